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
``scoring-matrices`` package (BLOSUM, PAM, VTML…, or NUC.4.4 for DNA; :func:`matrix_names` lists
those with integer scores and the rows an alphabet needs) or a user matrix; ``J``, ``O`` and
``U`` score like ``X`` when the matrix has no row for them. Every score and cost must be a
whole number: ``2.0`` and NumPy integers are taken, ``2.5`` is refused, never truncated.
"""

from __future__ import annotations

import functools
import numbers
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scoring_matrices

from .alphabets import DNA, Alphabet, AlphabetName, get_alphabet
from .errors import InvalidParameter

__all__ = ["GapModel", "Scoring", "matrix_names"]

GapModel = Literal["linear", "affine"]

# Scores beyond this magnitude would make 32-bit DP cells overflow on very long inputs.
_MAX_ABS_SCORE = 1 << 12


def _whole(name: str, value: object, hint: str = "expected an integer") -> int:
    """``value`` as an ``int`` when it is a whole number (``2``, ``2.0``, ``np.int8(2)``);
    anything else is refused rather than truncated."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameter(name, value, hint=hint)
    if isinstance(value, numbers.Integral) or float(value).is_integer():
        return int(value)
    raise InvalidParameter(name, value, hint=hint)


def _gap_cost(name: str, value: object) -> int:
    """A gap cost as an ``int`` (its range is checked by ``Scoring``)."""
    return _whole(name, value, f"expected an integer cost in 0..{_MAX_ABS_SCORE}")


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
        match, mismatch = _whole("match", match), _whole("mismatch", mismatch)
        n_score = mismatch if n_score is None else _whole("n_score", n_score)
        if match < mismatch:
            raise InvalidParameter(
                "match", match, hint=f"must be at least the mismatch score ({mismatch})"
            )
        size = DNA.size
        matrix = np.full((size, size), mismatch, dtype=np.int32)
        np.fill_diagonal(matrix, match)
        n = DNA.unknown
        matrix[n, :] = matrix[:, n] = n_score
        return cls(
            matrix,
            DNA,
            _gap_cost("gap_open", gap_open),
            _gap_cost("gap_extend", gap_extend),
            f"match {match} mismatch {mismatch}",
        )

    @classmethod
    def from_matrix(
        cls,
        name: str,
        gap_open: int = 11,
        gap_extend: int = 1,
        alphabet: AlphabetName | None = None,
    ) -> Scoring:
        """A named matrix from ``scoring-matrices`` (``BLOSUM62``, ``PAM250``, ``NUC.4.4`` …),
        the name in any case; :func:`matrix_names` lists the ones that load."""
        canonical = _BUILTIN.get(str(name).upper())
        if canonical is None:
            raise InvalidParameter("matrix", name, choices=matrix_names())
        source = scoring_matrices.ScoringMatrix.from_name(canonical)
        if alphabet is None:
            alphabet = (
                "dna"
                if set(source.alphabet) >= set("ACGTN") and "L" not in source.alphabet
                else "protein"
            )
        return cls.from_table(
            source.alphabet, np.asarray(source), gap_open, gap_extend, alphabet, canonical
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
        gaps = _gap_cost("gap_open", gap_open), _gap_cost("gap_extend", gap_extend)
        return cls(matrix, alpha, *gaps, name)

    @classmethod
    def blosum62(cls, gap_open: int = 11, gap_extend: int = 1) -> Scoring:
        """BLOSUM62 with the given gap costs."""
        return cls.from_matrix("BLOSUM62", gap_open, gap_extend, "protein")


# every built-in matrix by its upper-case name (names are matched case-insensitively)
_BUILTIN = {name.upper(): name for name in scoring_matrices.ScoringMatrix.BUILTIN_MATRICES}


def _natural_order(name: str) -> tuple[tuple[int, str], ...]:
    """Sort key putting PAM30 before PAM250 (numbers compared as numbers)."""
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"(\d+)", name) if p)


@functools.cache
def matrix_names() -> tuple[str, ...]:
    """The ``scoring-matrices`` names :meth:`Scoring.from_matrix` accepts: those with integer
    scores and a row for every residue of their alphabet (or for ``X``/``N``). The package
    also holds BENNER and PFASUM (fractional scores) and PAM1 (no ``B``/``X`` rows)."""
    names = []
    for name in sorted(_BUILTIN.values(), key=_natural_order):
        try:
            Scoring.from_matrix(name, 1, 1)
        except InvalidParameter:
            continue
        names.append(name)
    return tuple(names)
