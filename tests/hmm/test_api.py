"""The Python API: in-memory inputs, progress, streaming, and the CLI's outputs."""

from __future__ import annotations

import io

import numpy as np
import pyhmmer
import pytest
from hmm_support import ANAEROCOCCUS, PYHMMER_DATA, load_models, load_targets, strip_comments
from pyhmmer.easel import Alphabet, DigitalSequenceBlock, SequenceFile, TextSequence
from pyhmmer.plan7 import Background, Pipeline

from seqwarp.cli import main
from seqwarp.hmm import SearchOptions, files, hmmsearch, stage
from seqwarp.hmm.api import DEFAULT_CHUNK_RESIDUES, STRONG_COST, _costs, _jobs
from seqwarp.hmm.profile import FilterProfile


def _domains(results) -> list[str]:
    buffer = io.BytesIO()
    for index, hits in enumerate(results):
        hits.write(buffer, format="domains", header=index == 0)
    return strip_comments(buffer.getvalue().decode())


@pytest.fixture(scope="module")
def models():
    return [*load_models("pyhmmer:RREFam"), *load_models("pyhmmer:KR"), *load_models("fn3")]


def test_in_memory_search_equals_pyhmmer(models) -> None:
    targets = load_targets(str(ANAEROCOCCUS))
    got = hmmsearch(models, targets)
    expected = list(pyhmmer.hmmer.hmmsearch(models, targets, cpus=1))
    assert [hits.query.name for hits in got] == [hits.query.name for hits in expected]
    assert _domains(got) == _domains(expected)
    assert sum(len(hits) for hits in got) > 10


def test_streamed_file_reports_progress_and_whole_database_z(models) -> None:
    done: list[int] = []
    got = hmmsearch(models, ANAEROCOCCUS, chunk_residues=100_000, progress=done.append)
    assert len(done) > 5
    assert sum(done) == sum(len(s) for s in load_targets(str(ANAEROCOCCUS)))
    assert all(hits.Z == 2100 for hits in got)
    assert _domains(got) == _domains(hmmsearch(models, ANAEROCOCCUS))


def test_explicit_z_and_max() -> None:
    hmm = load_models("pyhmmer:Thioesterase")
    targets = load_targets(str(PYHMMER_DATA / "seqs" / "LuxC.faa"))
    got = hmmsearch(hmm, targets, SearchOptions(Z=1e6, max=True))
    expected = pyhmmer.hmmer.hmmsearch(
        hmm, targets, Z=1e6, F1=1.0, F2=1.0, F3=1.0, bias_filter=False
    )
    assert _domains(got) == _domains(list(expected))
    assert got[0].Z == 1e6


def test_cli_writes_tables_to_stdout_and_summary_to_a_file(tmp_path) -> None:
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / "PF02826.hmm"
    out, err = io.StringIO(), io.StringIO()
    summary = tmp_path / "hits.txt"
    argv = ["hmmsearch", "--cpu", "1", "-o", str(summary), "--tblout", "-"]
    argv += [str(hmmfile), str(ANAEROCOCCUS)]
    assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
    golden = (PYHMMER_DATA / "tables" / "PF02826.tbl").read_text()
    assert strip_comments(out.getvalue()) == strip_comments(golden)
    text = summary.read_text()
    assert text.startswith("Query:       2-Hacid_dh_C  [M=178]\n")
    assert text.count("938293.PRJEB85") == 22
    assert text.endswith("//\n[ok]\n")


def test_full_filter_stage_keeps_every_hmmer_hit(models) -> None:
    """With the numba Viterbi filter on too, the survivors still give HMMER's exact hits."""
    targets = load_targets(str(ANAEROCOCCUS))
    chunk = stage.prepare(*files.as_csr(targets))
    with_vf = stage.FilterSettings(viterbi=True)
    without = stage.FilterSettings(viterbi=False)
    for hmm in models:
        profile = FilterProfile.from_hmm(hmm, Background(hmm.alphabet))
        kept = stage.survivors(profile, chunk, with_vf)
        assert set(kept) <= set(stage.survivors(profile, chunk, without))
        subset = DigitalSequenceBlock(targets.alphabet, [targets[int(i)] for i in kept])
        got = Pipeline(targets.alphabet, Z=len(targets)).search_hmm(hmm, subset)
        expected = Pipeline(targets.alphabet).search_hmm(hmm, targets)
        assert _domains([got]) == _domains([expected]), hmm.name
        assert len(kept) < len(targets) // 10


def test_survivor_jobs_cover_every_target_once_and_split_large_models() -> None:
    """The thread pool's pieces: each survivor in exactly one piece of its model, in
    database order, a model with most of the work cut into several pieces of about equal
    cost, a model without survivors kept."""
    kept = [np.arange(0, 400, 2), np.array([1, 3], dtype=np.int64), np.zeros(0, dtype=np.int64)]
    costs = [(keep + 1) * 1000.0 for keep in kept]
    costs[0][::7] *= 20  # likely hits
    jobs = _jobs(kept, costs, pieces=16)
    for model, keep in enumerate(kept):
        pieces = [piece for m, _, piece, _ in jobs if m == model]
        assert all(np.all(np.diff(piece) > 0) for piece in pieces)
        assert np.array_equal(np.sort(np.concatenate(pieces)), keep)
    large = [cost for m, _, _, cost in jobs if m == 0]
    assert len(large) >= 4
    assert max(large) < 1.25 * min(large)
    assert [part for m, part, *_ in jobs if m == 0] == list(range(len(jobs) - 2))
    (single,) = _jobs([kept[0]], [costs[0]], pieces=1)  # one thread: no cutting
    assert np.array_equal(single[2], kept[0])


def test_job_costs_weight_likely_hits() -> None:
    lengths = np.array([100, 200, 300, 400], dtype=np.int64)
    kept = stage.Kept(np.array([1, 3]), np.array([1e-7, 0.01]))
    assert list(_costs(10, lengths, kept, F3=1e-5)) == [200 * 10 * STRONG_COST, 400 * 10]


def _all_hits(results) -> list[list[tuple]]:
    """Every hit each model stores, reported or not, with what it shows."""
    return [
        [(h.name, h.evalue, h.score, h.reported, h.included, len(h.domains)) for h in hits]
        for hits in results
    ]


def test_targets_rich_in_degenerate_codes_equal_pyhmmer() -> None:
    """B, J and Z (and X) weigh in the bias filter as in HMMER: their odds are the members'
    summed composition over their summed background, so no hit HMMER finds is lost."""
    amino = Alphabet.amino()
    rich = str.maketrans("NDILEQ", "BBJJZZ")
    with SequenceFile(str(ANAEROCOCCUS)) as handle:
        texts = [TextSequence(name=s.name, sequence=s.sequence.translate(rich)) for s in handle]
    targets = DigitalSequenceBlock(amino, [text.digitize(amino) for text in texts])
    models = load_models("SMC_N")
    got = hmmsearch(models, targets)
    expected = list(pyhmmer.hmmer.hmmsearch(models, targets, cpus=1))
    assert _all_hits(got) == _all_hits(expected)
    assert _domains(got) == _domains(expected)
    assert len(expected[0].reported) > 10


@pytest.mark.parametrize(
    ("options", "chunk_residues"),
    [
        (SearchOptions(E=0.01), DEFAULT_CHUNK_RESIDUES),
        (SearchOptions(E=0.01), 100_000),
        (SearchOptions(E=1e-4, domE=1e-3), 150_000),
    ],
)
def test_stored_hits_equal_pyhmmer(models, options, chunk_residues) -> None:
    """The hits HMMER stores but does not report (its cut while searching uses the count of
    targets read so far) are returned too, in chunks and thread-pool pieces alike."""
    targets = load_targets(str(ANAEROCOCCUS))
    got = hmmsearch(models, ANAEROCOCCUS, options, chunk_residues=chunk_residues)
    expected = list(
        pyhmmer.hmmer.hmmsearch(models, targets, cpus=1, E=options.E, domE=options.domE)
    )
    assert _all_hits(got) == _all_hits(expected)
    assert any(not hit.reported for hits in got for hit in hits)


def test_stored_hits_with_repeated_names_equal_pyhmmer() -> None:
    """A hit names its target: targets sharing a name are searched in separate runs, so
    each hit still gets its own target's rank in the database."""
    targets = load_targets(str(ANAEROCOCCUS))
    amino = targets.alphabet
    renamed = []
    for index, sequence in enumerate(targets):
        copy = sequence.copy()
        copy.name = f"dup{index % 7}"
        renamed.append(copy)
    block = DigitalSequenceBlock(amino, renamed)
    models = load_models("pyhmmer:PF02826")
    got = hmmsearch(models, block, SearchOptions(E=0.01))
    expected = list(pyhmmer.hmmer.hmmsearch(models, block, cpus=1, E=0.01))
    assert _all_hits(got) == _all_hits(expected)
    assert any(not hit.reported for hit in expected[0])


def test_targets_are_read_in_the_models_alphabet(tmp_path) -> None:
    """A protein file whose first record looks like DNA is protein, as hmmsearch reads it."""
    path = tmp_path / "dna_first.faa"
    path.write_bytes(
        b">p1\nGATTACAGATTACACAT\n" + (PYHMMER_DATA / "seqs" / "LuxC.faa").read_bytes()
    )
    models = load_models("pyhmmer:LuxC")
    with SequenceFile(str(path), digital=True, alphabet=Alphabet.amino()) as handle:
        targets = handle.read_block()
    got = hmmsearch(models, path)
    expected = list(pyhmmer.hmmer.hmmsearch(models, targets, cpus=1))
    assert _all_hits(got) == _all_hits(expected)
    assert got[0].Z == 13
