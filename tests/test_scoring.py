"""Scoring: named matrices in our code order, the J/O/U policy, gap and matrix validation."""

from __future__ import annotations

import numpy as np
import pytest
import scoring_matrices

from seqwarp import InvalidParameter, Scoring
from seqwarp.alphabets import PROTEIN


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
