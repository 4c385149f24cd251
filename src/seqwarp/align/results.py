"""Alignment results, typed by the requested output: ScoreResult ⊂ EndsResult ⊂ CigarResult.

Positions are 0-based and end-exclusive: ``query[query_begin:query_end]`` is the aligned part.
CIGAR operations are ``=`` (identical residues), ``X`` (substitution), ``I`` (a query residue
against a gap) and ``D`` (a target residue against a gap); unaligned flanks are not in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CigarResult", "EndsResult", "ScoreResult", "TopHits"]


@dataclass(frozen=True, eq=False)
class ScoreResult:
    """Scores of pairs ``(query_index[p], target_index[p])``; ``backend`` names what ran."""

    query_index: np.ndarray
    target_index: np.ndarray
    score: np.ndarray
    backend: str
    query_names: tuple[str, ...] = field(repr=False, default=())
    target_names: tuple[str, ...] = field(repr=False, default=())

    def __len__(self) -> int:
        return len(self.score)

    def compare(self, other: ScoreResult) -> str | None:
        """The first difference from ``other``, in words, or ``None`` when equal."""
        for name in self._fields():
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, np.ndarray):
                if mine.shape != np.shape(theirs) or not np.array_equal(mine, theirs):
                    diff = np.flatnonzero(np.asarray(mine) != np.asarray(theirs))
                    at = int(diff[0]) if diff.size else 0
                    return f"{name} differs at pair {at}: {mine[at] if diff.size else mine.shape} != {theirs[at] if diff.size else np.shape(theirs)}"
            elif mine != theirs:
                for p, (a, b) in enumerate(zip(mine, theirs, strict=False)):
                    if a != b:
                        return f"{name} differs at pair {p}: {a!r} != {b!r}"
                return f"{name} differs in length: {len(mine)} != {len(theirs)}"
        return None

    def _fields(self) -> tuple[str, ...]:
        return ("query_index", "target_index", "score")


@dataclass(frozen=True, eq=False)
class EndsResult(ScoreResult):
    """Scores plus the end of each alignment (exclusive) in query and target."""

    query_end: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    target_end: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def _fields(self) -> tuple[str, ...]:
        return (*super()._fields(), "query_end", "target_end")


@dataclass(frozen=True, eq=False)
class CigarResult(EndsResult):
    """Full alignments: begins, CIGAR strings and per-pair statistics."""

    query_begin: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    target_begin: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    cigar: list[str] = field(default_factory=list)
    matches: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    mismatches: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    alignment_length: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    @property
    def gaps(self) -> np.ndarray:
        """Residues aligned to a gap (``I`` plus ``D`` operations)."""
        return self.alignment_length - self.matches - self.mismatches

    @property
    def identity(self) -> np.ndarray:
        """Identical positions over alignment length (0 for empty alignments)."""
        length = np.maximum(self.alignment_length, 1)
        return np.where(self.alignment_length > 0, self.matches / length, 0.0)

    def _fields(self) -> tuple[str, ...]:
        return (
            *super()._fields(),
            "query_begin",
            "target_begin",
            "cigar",
            "matches",
            "mismatches",
            "alignment_length",
        )


@dataclass(frozen=True, eq=False)
class TopHits:
    """The ``k`` best targets of each query: ``target_index[q, r]`` ranks ``r = 0..k-1``.

    Ties go to the smaller target index; ``-1`` pads rows when there are fewer than ``k``
    targets.
    """

    target_index: np.ndarray
    score: np.ndarray
    backend: str
    query_names: tuple[str, ...] = field(repr=False, default=())
    target_names: tuple[str, ...] = field(repr=False, default=())
