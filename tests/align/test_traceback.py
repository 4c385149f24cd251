"""Ends, begins and CIGARs equal the full-matrix oracle; every CIGAR re-scores to its score."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_oracle_scores import SCORINGS, _letters, random_pairs

from naive import gotoh, rescore
from seqwarp.align import Aligner, cpu
from seqwarp.alphabets import DNA
from seqwarp.scoring import Scoring

MODES = ("global", "semi-global", "local")
MODE_CODE = {"global": cpu.GLOBAL, "semi-global": cpu.SEMI_GLOBAL, "local": cpu.LOCAL}


def _ops(cigar: str) -> str:
    out, number = [], ""
    for c in cigar:
        if c.isdigit():
            number += c
        else:
            out.append(c * int(number))
            number = ""
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(
    q=st.lists(st.integers(0, 4), max_size=25),
    t=st.lists(st.integers(0, 4), max_size=25),
    mode=st.sampled_from(MODES),
    gaps=st.sampled_from([(1, 1), (2, 1), (3, 1), (5, 2), (0, 0), (4, 4)]),
    match=st.integers(1, 3),
    mismatch=st.integers(-3, 0),
)
def test_dna_matches_naive(q, t, mode, gaps, match, mismatch) -> None:
    scoring = Scoring.dna(match, mismatch, *gaps)
    _check_against_naive(q, t, mode, scoring)


@settings(max_examples=150, deadline=None)
@given(
    q=st.lists(st.integers(0, 26), max_size=20),
    t=st.lists(st.integers(0, 26), max_size=20),
    mode=st.sampled_from(MODES),
    gaps=st.sampled_from([(11, 1), (4, 4), (10, 2)]),
)
def test_protein_matches_naive(q, t, mode, gaps) -> None:
    _check_against_naive(q, t, mode, Scoring.from_matrix("BLOSUM62", *gaps))


def _check_against_naive(q: list[int], t: list[int], mode: str, scoring: Scoring) -> None:
    symbols = scoring.alphabet.symbols
    query = "".join(symbols[c] for c in q)
    target = "".join(symbols[c] for c in t)
    expected = gotoh(
        q,
        t,
        scoring.matrix.tolist(),
        mode,
        scoring.gap_open,
        scoring.gap_extend,
        scoring.alphabet.unknown,
    )
    aligner = Aligner(mode, scoring, device="cpu")
    result = aligner.align([query], [target], output="cigar")
    got = (
        int(result.score[0]),
        int(result.query_begin[0]),
        int(result.query_end[0]),
        int(result.target_begin[0]),
        int(result.target_end[0]),
        _ops(result.cigar[0]),
    )
    assert got == expected
    ends = aligner.align([query], [target], output="ends")
    assert (int(ends.score[0]), int(ends.query_end[0]), int(ends.target_end[0])) == (
        expected[0],
        expected[2],
        expected[4],
    )
    # the checkpointed (linear-space) traceback gives the same alignment for every block height
    qa, ta = np.array(q, np.uint8), np.array(t, np.uint8)
    for block in (1, 2, 3, 7):
        ops = np.empty(len(q) + len(t) + 1, np.uint8)
        fields = cpu._align_pair(
            qa,
            ta,
            scoring.matrix,
            MODE_CODE[mode],
            scoring.alphabet.unknown,
            scoring.gap_open,
            scoring.gap_extend,
            block,
            ops,
        )
        assert "".join("=XID"[o] for o in ops[: fields[5]]) == expected[5]
        assert tuple(fields[:5]) == expected[:5]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["dna-affine", "dna-linear", "protein-affine"])
def test_cigars_rescore(mode: str, case: str, rng: np.random.Generator) -> None:
    """Every CIGAR of a random batch re-scores to the reported score within reported bounds."""
    scoring = SCORINGS[case]
    queries, targets = random_pairs(rng, _letters(scoring), 400)
    result = Aligner(mode, scoring, device="cpu").align(queries, targets, output="cigar")
    matrix = scoring.matrix.tolist()
    encode = scoring.alphabet.encode
    for p in range(len(result)):
        q = encode(queries[p].encode()).tolist()
        t = encode(targets[p].encode()).tolist()
        ops = _ops(result.cigar[p])
        assert sum(o in "=XI" for o in ops) == result.query_end[p] - result.query_begin[p]
        assert sum(o in "=XD" for o in ops) == result.target_end[p] - result.target_begin[p]
        score = rescore(
            q,
            t,
            matrix,
            ops,
            int(result.query_begin[p]),
            int(result.target_begin[p]),
            scoring.gap_open,
            scoring.gap_extend,
            scoring.alphabet.unknown,
        )
        assert score == result.score[p], (p, result.cigar[p])
        if mode == "global":
            assert (result.query_begin[p], result.target_begin[p]) == (0, 0)
            assert (result.query_end[p], result.target_end[p]) == (len(q), len(t))
        assert result.matches[p] == ops.count("=")
        assert result.mismatches[p] == ops.count("X")


def test_long_pair_uses_linear_space_traceback() -> None:
    """A 6 kbp x 6 kbp pair goes through checkpointed blocks and gives the full-matrix CIGAR."""
    rng = np.random.default_rng(11)
    q = rng.integers(0, 4, 6000).astype(np.uint8)
    t = np.concatenate([q[:2000], rng.integers(0, 4, 300).astype(np.uint8), q[2100:]])
    scoring = Scoring.dna(2, -1, 2, 1)
    full = np.empty(len(q) + len(t), np.uint8)
    blocked = np.empty(len(q) + len(t), np.uint8)
    a = cpu._align_pair(q, t, scoring.matrix, cpu.GLOBAL, DNA.unknown, 2, 1, len(q), full)
    b = cpu._align_pair(q, t, scoring.matrix, cpu.GLOBAL, DNA.unknown, 2, 1, 78, blocked)
    assert a == b
    assert np.array_equal(full[: a[5]], blocked[: b[5]])


@pytest.mark.parametrize("long_pairs", [False, True])
def test_wildcards_are_mismatches_in_cigars(long_pairs: bool) -> None:
    """N against N (and the IUPAC codes read as N) scores as a mismatch, so the CIGAR says X
    and the pair's matches and identity leave it out; the same for protein X. Both CPU paths:
    lane groups, and the one-pair kernel with its checkpointed traceback (long pairs)."""
    pad = "ACGTTGCA" * 400 if long_pairs else ""
    dna = Aligner("global", Scoring.dna(2, -1, 3, 1), device="cpu")
    result = dna.align(["A" + pad + "RNA", "NNNN"], ["A" + pad + "YNA", "NNNN"], output="cigar")
    assert list(result.cigar) == [f"{1 + len(pad)}=2X1=", "4X"]
    assert list(result.score) == [2 * (2 + len(pad)) - 2, -4]
    assert list(result.matches) == [2 + len(pad), 0]
    assert list(result.mismatches) == [2, 4]
    protein = Aligner("local", Scoring.from_matrix("BLOSUM62", 11, 1), device="cpu")
    hit = protein.align(["WXXW"], ["WXXW"], output="cigar")
    assert list(hit.cigar) == ["1=2X1="] and list(hit.matches) == [2]
