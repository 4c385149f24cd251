"""Substitution scores and gap models, in one convention.

Scores are integers to maximise. A gap of length ``k`` costs ``gap_open + (k - 1) * gap_extend``
(AnySeq/GPU's alpha and beta); linear gaps are the case ``gap_open == gap_extend``. Both are
given as positive costs.

* parasail: ``open=gap_open, extend=gap_extend`` (parasail charges ``open`` alone on a gap's
  first position, so its parameters are ours unchanged).
* Biopython ``PairwiseAligner``: ``open_gap_score=-gap_open, extend_gap_score=-gap_extend``.
* EMBOSS/BLAST style "open 11, extend 1" where opening costs ``open + extend``: pass
  ``gap_open=12, gap_extend=1``.

DNA scoring is match/mismatch over ``ACGT``; ``N`` scores ``n_score`` against everything,
itself included (default: the mismatch score). Protein scoring takes a matrix by name from the
``scoring-matrices`` package (BLOSUM45/50/62/80, PAM…, or NUC.4.4 for DNA) or a user matrix;
``J``, ``O`` and ``U`` score like ``X`` when the matrix has no row for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import scoring_matrices

from .alphabets import DNA, Alphabet, AlphabetName, get_alphabet
from .errors import InvalidParameter

__all__ = ["GapModel", "Scoring"]

GapModel = Literal["linear", "affine"]

# Scores beyond this magnitude would make 32-bit DP cells overflow on very long inputs.
_MAX_ABS_SCORE = 1 << 12


def check_gaps(gap_open: int, gap_extend: int) -> None:
    """Refuse a gap extension above the opening, for every ``Scoring`` and again where the GPU
    backend stages its kernels' scoring (their rows rest on it: ``align_dp.cuh``)."""
    if gap_extend > gap_open:
        raise InvalidParameter(
            "gap_extend", gap_extend, hint=f"must not exceed gap_open ({gap_open})"
        )


@dataclass(frozen=True, eq=False)
class Scoring:
    """A substitution matrix over an alphabet's codes plus a gap model."""

    matrix: np.ndarray
    alphabet: Alphabet
    gap_open: int
    gap_extend: int
    name: str

    def __post_init__(self) -> None:
        for pname in ("gap_open", "gap_extend"):
            value = getattr(self, pname)
            if int(value) != value or not 0 <= value <= _MAX_ABS_SCORE:
                raise InvalidParameter(
                    pname, value, hint=f"expected an integer cost in 0..{_MAX_ABS_SCORE}"
                )
        check_gaps(self.gap_open, self.gap_extend)
        if self.matrix.shape != (self.alphabet.size, self.alphabet.size):
            raise InvalidParameter(
                "matrix",
                self.matrix.shape,
                hint=f"expected {self.alphabet.size}x{self.alphabet.size}",
            )
        if np.abs(self.matrix).max() > _MAX_ABS_SCORE:
            raise InvalidParameter(
                "matrix", "scores", hint=f"substitution scores must lie in ±{_MAX_ABS_SCORE}"
            )
        self.matrix.flags.writeable = False

    @property
    def gap_model(self) -> GapModel:
        return "linear" if self.gap_open == self.gap_extend else "affine"

    @property
    def max_score(self) -> int:
        return int(self.matrix.max())

    @property
    def min_score(self) -> int:
        return int(self.matrix.min())

    def describe(self) -> str:
        gaps = (
            f"linear gap {self.gap_open}"
            if self.gap_model == "linear"
            else f"affine gap open {self.gap_open} extend {self.gap_extend}"
        )
        return f"{self.name}, {gaps}"

    # --- constructors --------------------------------------------------------------------

    @classmethod
    def dna(
        cls,
        match: int = 2,
        mismatch: int = -1,
        gap_open: int = 2,
        gap_extend: int = 1,
        n_score: int | None = None,
    ) -> Scoring:
        """Match/mismatch scores over ``ACGTN``; ``N`` scores ``n_score`` (default: mismatch)."""
        if match < mismatch:
            raise InvalidParameter(
                "match", match, hint=f"must be at least the mismatch score ({mismatch})"
            )
        size = DNA.size
        matrix = np.full((size, size), mismatch, dtype=np.int32)
        np.fill_diagonal(matrix, match)
        n = DNA.unknown
        matrix[n, :] = matrix[:, n] = mismatch if n_score is None else n_score
        return cls(
            matrix, DNA, int(gap_open), int(gap_extend), f"match {match} mismatch {mismatch}"
        )

    @classmethod
    def from_matrix(
        cls,
        name: str,
        gap_open: int = 11,
        gap_extend: int = 1,
        alphabet: AlphabetName | None = None,
    ) -> Scoring:
        """A named matrix from ``scoring-matrices`` (``BLOSUM62``, ``PAM250``, ``NUC.4.4`` …)."""
        try:
            source = scoring_matrices.ScoringMatrix.from_name(name)
        except (ValueError, KeyError):
            choices = sorted(scoring_matrices.ScoringMatrix.BUILTIN_MATRICES)
            raise InvalidParameter("matrix", name, choices=choices) from None
        if alphabet is None:
            alphabet = (
                "dna"
                if set(source.alphabet) >= set("ACGTN") and "L" not in source.alphabet
                else "protein"
            )
        return cls.from_table(
            source.alphabet, np.asarray(source), gap_open, gap_extend, alphabet, name
        )

    @classmethod
    def from_table(
        cls,
        symbols: str,
        scores: np.ndarray | list[list[int]],
        gap_open: int,
        gap_extend: int,
        alphabet: AlphabetName | Alphabet = "protein",
        name: str = "user matrix",
    ) -> Scoring:
        """A user matrix: ``scores[i][j]`` scores ``symbols[i]`` against ``symbols[j]``."""
        table = np.asarray(scores, dtype=np.float64)
        if table.shape != (len(symbols), len(symbols)):
            raise InvalidParameter(
                "matrix",
                table.shape,
                hint=f"expected {len(symbols)}x{len(symbols)} for {symbols!r}",
            )
        if not np.array_equal(table, np.round(table)):
            raise InvalidParameter("matrix", name, hint="scores must be integers")
        alpha = get_alphabet(alphabet)
        index = {s.upper(): i for i, s in enumerate(symbols)}
        fallback = "N" if alpha is DNA else "X"
        rows = []
        for symbol in alpha.symbols:
            if symbol in index:
                rows.append(index[symbol])
            elif fallback in index:
                rows.append(index[fallback])
            else:
                raise InvalidParameter(
                    "matrix", name, hint=f"has no row for {symbol!r} nor for {fallback!r}"
                )
        matrix = table[np.ix_(rows, rows)].astype(np.int32)
        return cls(matrix, alpha, int(gap_open), int(gap_extend), name)

    @classmethod
    def blosum62(cls, gap_open: int = 11, gap_extend: int = 1) -> Scoring:
        """BLOSUM62 with the given gap costs."""
        return cls.from_matrix("BLOSUM62", gap_open, gap_extend, "protein")
