"""Batched MSV and Viterbi-filter scores equal HMMER 3.4's for every (model, target) pair."""

from __future__ import annotations

import numpy as np
import pytest
from hmm_support import (
    AMINO_MODELS,
    DNA_MODELS,
    PROTEOMES,
    PYHMMER_AMINO,
    PYHMMER_DATA,
    BiasOracle,
    ViterbiOracle,
    load_models,
    load_targets,
    proteome_path,
)
from pyhmmer.easel import Alphabet, DigitalSequenceBlock, TextSequence
from pyhmmer.plan7 import Background, Profile

from seqwarp.hmm import cpu, files, stage
from seqwarp.hmm.profile import FilterProfile

AMINO = [*AMINO_MODELS, *(f"pyhmmer:{name}" for name in PYHMMER_AMINO)]
DATABASES = [*PROTEOMES, "Anaerococcus", "LuxC"]


def _targets(name: str) -> DigitalSequenceBlock:
    if name == "LuxC":  # LuxC homologs: every MSV score overflows to +inf
        return load_targets(str(PYHMMER_DATA / "seqs" / "LuxC.faa"))
    if name == "dna_target":
        return load_targets(str(proteome_path("x").parent / "dna_target.fa.gz"), "dna")
    return load_targets(str(proteome_path(name)))


def _chunk(block: DigitalSequenceBlock) -> stage.Chunk:
    return stage.prepare(*files.as_csr(block))


def _hmmer_msv(hmm, block: DigitalSequenceBlock, ssv: bool = False) -> np.ndarray:
    background = Background(hmm.alphabet)
    profile = Profile(hmm.M, hmm.alphabet)
    profile.configure(hmm, background, 100)
    om = profile.to_optimized()
    scores = np.empty(len(block), dtype=np.float32)
    for i, sequence in enumerate(block):
        om.L = len(sequence)
        scores[i] = om.ssv_filter(sequence) if ssv else om.msv_filter(sequence)
    return scores


def _same_ssv(got: np.ndarray, expected: np.ndarray, msv: np.ndarray) -> bool:
    """SSV equals HMMER's (NaN where it has no result); where MSV overflows, HMMER's SSV says
    +inf or no result and ours says +inf."""
    finite = np.isfinite(msv)
    overflow_ok = (
        np.isinf(got[~finite]).all()
        and (np.isinf(expected[~finite]) | np.isnan(expected[~finite])).all()
    )
    return np.array_equal(got[finite], expected[finite], equal_nan=True) and overflow_ok


@pytest.mark.parametrize("database", DATABASES)
def test_msv_equals_hmmer_for_every_pair(database: str) -> None:
    block = _targets(database)
    chunk = _chunk(block)
    overflows = 0
    for name in AMINO:
        for hmm in load_models(name):
            profile = FilterProfile.from_hmm(hmm, Background(hmm.alphabet))
            expected = _hmmer_msv(hmm, block)
            assert np.array_equal(stage.msv_scores(profile, chunk), expected), (hmm.name, database)
            ssv = _hmmer_msv(hmm, block, ssv=True)
            assert _same_ssv(stage.ssv_scores(profile, chunk), ssv, expected), hmm.name
            overflows += int(np.isinf(expected).sum())
    if database == "LuxC":
        assert overflows >= len(block)  # the +inf cases are really exercised


def test_msv_equals_hmmer_for_nucleotide_models() -> None:
    block = _targets("dna_target")
    chunk = _chunk(block)
    for name in DNA_MODELS:
        for hmm in load_models(name):
            profile = FilterProfile.from_hmm(hmm, Background(hmm.alphabet))
            msv = _hmmer_msv(hmm, block)
            assert np.array_equal(stage.msv_scores(profile, chunk), msv), name
            ssv = _hmmer_msv(hmm, block, ssv=True)
            assert _same_ssv(stage.ssv_scores(profile, chunk), ssv, msv), name


def test_msv_single_residue_targets() -> None:
    alphabet = Alphabet.amino()
    block = _single_residues(alphabet)
    chunk = _chunk(block)
    for name in ("M1", "XYPPX", "fn3"):
        hmm = load_models(name)[0]
        profile = FilterProfile.from_hmm(hmm, Background(alphabet))
        msv = _hmmer_msv(hmm, block)
        assert np.array_equal(stage.msv_scores(profile, chunk), msv), name
        assert _same_ssv(stage.ssv_scores(profile, chunk), _hmmer_msv(hmm, block, True), msv), name


def test_packed_models_score_as_alone() -> None:
    """Every protein model in one pass, packed into shared SSV groups largest first (out of
    file order): each model's MSV and SSV scores equal those of its own pass."""
    profiles = [
        FilterProfile.from_hmm(hmm, Background(hmm.alphabet))
        for name in AMINO
        for hmm in load_models(name)
    ]
    chunk = _chunk(_targets("Anaerococcus"))
    tables = stage.MSVTables.of(profiles)
    assert len(tables.groups) < len(profiles)
    msv, ssv = stage._msv_ssv(tables, chunk)
    for m, profile in enumerate(profiles):
        assert np.array_equal(msv[m], stage.msv_scores(profile, chunk)), profile.name
        assert np.array_equal(ssv[m], stage.ssv_scores(profile, chunk), equal_nan=True)


def _single_residues(alphabet: Alphabet) -> DigitalSequenceBlock:
    """One target per residue letter (L=1, degenerate codes and ``*`` included), plus 'WW'."""
    letters = alphabet.symbols[: alphabet.Kp - 2].replace("-", "")
    texts = [TextSequence(name=f"r{i}".encode(), sequence=c) for i, c in enumerate(letters)]
    texts.append(TextSequence(name=b"pair", sequence="WW"))
    return DigitalSequenceBlock(alphabet, [t.digitize(alphabet) for t in texts])


@pytest.mark.parametrize("name", ["fn3", "Pkinase", "M1", "XYPPX", "SMC_N", "pyhmmer:LuxC"])
def test_bias_filter_is_within_the_stage_margin(name: str) -> None:
    """The float32 re-derivation of HMMER's bias filter: most scores bit-identical, all far
    inside the margin the stage gives every comparison (so no target HMMER keeps is lost)."""
    block = _targets("Anaerococcus")
    codes, offsets = files.as_csr(block)
    hmm = load_models(name)[0]
    bias = FilterProfile.from_hmm(hmm, Background(hmm.alphabet)).bias
    everything = np.arange(len(block))
    got = cpu.bias_scores(codes, offsets, everything, bias.odds, bias.t10, bias.t11)
    oracle = BiasOracle(hmm)
    expected = np.array(
        [oracle(codes[offsets[i] : offsets[i + 1]]) for i in range(len(block))], dtype=np.float32
    )
    assert np.abs(got.astype(np.float64) - expected).max() < stage.MARGIN / 100
    assert (got == expected).mean() > 0.95


def _degenerate_rich(alphabet: Alphabet) -> DigitalSequenceBlock:
    """Per residue letter, degenerate codes included: 80 of it alone, and 200 residues drawn
    mostly from the canonical letters with that letter a third of the time."""
    rng = np.random.default_rng(5)
    canonical = list(alphabet.symbols[: alphabet.K])
    texts = []
    for code, letter in enumerate(alphabet.symbols[: alphabet.Kp - 2]):
        if code == alphabet.K:  # the gap character is no residue
            continue
        mixed = "".join(rng.choice(canonical + [letter] * (len(canonical) // 2), 200))
        texts.append(TextSequence(name=f"{letter}-only", sequence=letter * 80))
        texts.append(TextSequence(name=f"{letter}-mixed", sequence=mixed))
    return DigitalSequenceBlock(alphabet, [text.digitize(alphabet) for text in texts])


@pytest.mark.parametrize("name", ["fn3", "Pkinase", "pyhmmer:LuxC", "pyhmmer:RREFam", "MADE1"])
def test_bias_filter_scores_degenerate_residues_as_hmmer(name: str) -> None:
    """B, J, Z, O, U and X (IUPAC codes and N for DNA) get easel's odds: summed member
    composition over summed background, so their bias scores equal HMMER's."""
    hmm = load_models(name)[0]
    block = _degenerate_rich(hmm.alphabet)
    codes, offsets = files.as_csr(block)
    bias = FilterProfile.from_hmm(hmm, Background(hmm.alphabet)).bias
    got = cpu.bias_scores(codes, offsets, np.arange(len(block)), bias.odds, bias.t10, bias.t11)
    oracle = BiasOracle(hmm)
    expected = np.array(
        [oracle(codes[offsets[i] : offsets[i + 1]]) for i in range(len(block))], dtype=np.float32
    )
    assert np.abs(got.astype(np.float64) - expected).max() < 1e-5


def _check_viterbi(database: str, step: int, tmp_path) -> None:
    block = _single_residues(Alphabet.amino()) if database == "single" else _targets(database)
    chunk = _chunk(block)
    chosen = np.arange(0, len(block), step if len(block) > 1000 else 1)
    for name in AMINO:
        for hmm in load_models(name):
            oracle = ViterbiOracle(hmm, tmp_path)
            profile = FilterProfile.from_hmm(hmm, Background(hmm.alphabet))
            got = stage.viterbi_scores(profile, chunk, chosen)
            codes, offsets = chunk.codes, chunk.offsets
            expected = np.array(
                [oracle(codes[offsets[i] : offsets[i + 1]]) for i in chosen], dtype=np.float32
            )
            assert np.array_equal(got, expected), (name, hmm.name, database)


@pytest.mark.parametrize("database", [*DATABASES, "single"])
def test_viterbi_filter_equals_hmmer(database: str, tmp_path) -> None:
    """Every 15th protein of the large sets (all of the small ones) against every model."""
    _check_viterbi(database, 15, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("database", DATABASES)
def test_viterbi_filter_equals_hmmer_for_every_pair(database: str, tmp_path) -> None:
    _check_viterbi(database, 1, tmp_path)
