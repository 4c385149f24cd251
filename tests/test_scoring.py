"""Scoring: named matrices in our code order, the J/O/U policy, gap and matrix validation."""

from __future__ import annotations

import numpy as np
import pytest
import scoring_matrices

from seqwarp import InvalidParameter, Scoring
from seqwarp.alphabets import PROTEIN
from seqwarp.scoring import matrix_names


def test_named_matrix_in_code_order() -> None:
    scoring = Scoring.from_matrix("BLOSUM62", 11, 1)
    source = scoring_matrices.ScoringMatrix.from_name("BLOSUM62")
    table = np.asarray(source)
    for a, ra in enumerate(source.alphabet):
        for b, rb in enumerate(source.alphabet):
            assert (
                scoring.matrix[PROTEIN.symbols.index(ra), PROTEIN.symbols.index(rb)] == table[a, b]
            )
    x = PROTEIN.symbols.index("X")
    for letter in "JOU":
        assert np.array_equal(scoring.matrix[PROTEIN.symbols.index(letter)], scoring.matrix[x])


def test_dna_scoring_and_n_policy() -> None:
    scoring = Scoring.dna(match=5, mismatch=-4, gap_open=3, gap_extend=1)
    assert scoring.matrix[0, 0] == 5 and scoring.matrix[0, 1] == -4
    assert scoring.matrix[4, 4] == -4  # N never matches, not even N
    assert Scoring.dna(n_score=0).matrix[4, 0] == 0
    assert (
        scoring.gap_model == "affine"
        and Scoring.dna(gap_open=1, gap_extend=1).gap_model == "linear"
    )


def test_nuc44_is_dna() -> None:
    assert Scoring.from_matrix("NUC.4.4", 10, 1).alphabet.name == "dna"


def test_unknown_matrix() -> None:
    with pytest.raises(
        InvalidParameter,
        match=r"^invalid value for 'matrix': 'BLOSUM63' \(expected one of: .*BLOSUM62.*\)$",
    ):
        Scoring.from_matrix("BLOSUM63")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"gap_open": -1},
            r"^invalid value for 'gap_open': -1; expected an integer cost in 0\.\.4096$",
        ),
        (
            {"gap_open": 1, "gap_extend": 2},
            r"^invalid value for 'gap_extend': 2; must not exceed gap_open \(1\)$",
        ),
        (
            {"match": -2, "mismatch": 1},
            r"^invalid value for 'match': -2; must be at least the mismatch score \(1\)$",
        ),
    ],
)
def test_bad_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message):
        Scoring.dna(**kwargs)


def test_user_matrix_must_be_square_integers() -> None:
    with pytest.raises(InvalidParameter, match=r"expected 2x2 for 'AC'$"):
        Scoring.from_table("AC", [[1, 0, 0]], 2, 1, "dna")
    with pytest.raises(InvalidParameter, match=r"scores must be integers$"):
        Scoring.from_table("ACGTN", np.full((5, 5), 0.5), 2, 1, "dna")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"match": 2.7}, r"^invalid value for 'match': 2\.7; expected an integer$"),
        ({"mismatch": -1.5}, r"^invalid value for 'mismatch': -1\.5; expected an integer$"),
        ({"n_score": 0.5}, r"^invalid value for 'n_score': 0\.5; expected an integer$"),
        ({"match": True}, r"^invalid value for 'match': True; expected an integer$"),
        (
            {"gap_open": 2.5},
            r"^invalid value for 'gap_open': 2\.5; expected an integer cost in 0\.\.4096$",
        ),
        (
            {"gap_extend": float("nan")},
            r"^invalid value for 'gap_extend': nan; expected an integer cost in 0\.\.4096$",
        ),
    ],
)
def test_fractional_scores_are_refused_not_truncated(kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message):
        Scoring.dna(**kwargs)


def test_whole_floats_and_numpy_integers_are_taken() -> None:
    scoring = Scoring.dna(np.int8(3), -2.0, np.int64(5), 2.0, n_score=np.int32(0))
    assert scoring.matrix[0, 0] == 3 and scoring.matrix[0, 1] == -2 and scoring.matrix[4, 0] == 0
    assert (scoring.gap_open, scoring.gap_extend) == (5, 2)
    assert type(scoring.gap_open) is int and type(scoring.gap_extend) is int
    assert Scoring.from_matrix("BLOSUM62", 11.0, np.int16(1)).gap_open == 11


@pytest.mark.parametrize(
    "make",
    [
        lambda gap_open, gap_extend: Scoring.from_matrix("BLOSUM62", gap_open, gap_extend),
        lambda gap_open, gap_extend: Scoring.from_table(
            "ACGTN", np.eye(5), gap_open, gap_extend, "dna"
        ),
    ],
    ids=["from_matrix", "from_table"],
)
def test_fractional_gap_costs_of_matrices_are_refused(make) -> None:
    with pytest.raises(
        InvalidParameter,
        match=r"^invalid value for 'gap_open': 10\.5; expected an integer cost in 0\.\.4096$",
    ):
        make(10.5, 1)
    with pytest.raises(InvalidParameter, match=r"^invalid value for 'gap_extend': 0\.9; "):
        make(10, 0.9)


def test_matrix_choices_are_the_matrices_that_load() -> None:
    names = matrix_names()
    assert {"BLOSUM62", "PAM250", "VTML80", "NUC.4.4"} <= set(names)
    assert not [n for n in names if n.startswith(("BENNER", "PFASUM"))] and "PAM1" not in names
    for name in names:
        Scoring.from_matrix(name)
    for name in ("BENNER22", "PFASUM31", "PAM1"):
        assert name in scoring_matrices.ScoringMatrix.BUILTIN_MATRICES
        with pytest.raises(InvalidParameter, match=rf"^invalid value for 'matrix': '{name}'; "):
            Scoring.from_matrix(name)
    with pytest.raises(InvalidParameter) as error:
        Scoring.from_matrix("FOO")
    assert error.value.choices == list(names)


def test_matrix_names_are_case_insensitive() -> None:
    lower = Scoring.from_matrix("blosum62", 11, 1)
    assert lower.name == "BLOSUM62"
    assert np.array_equal(lower.matrix, Scoring.from_matrix("BLOSUM62", 11, 1).matrix)
    assert Scoring.from_matrix("nuc.4.4", 10, 1).alphabet.name == "dna"
