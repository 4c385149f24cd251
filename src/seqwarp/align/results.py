"""Alignment results, typed by the requested output: ScoreResult ⊂ EndsResult ⊂ CigarResult.

Positions are 0-based and end-exclusive: ``query[query_begin:query_end]`` is the aligned part.
CIGAR operations are ``=`` (identical residues), ``X`` (substitution), ``I`` (a query residue
against a gap) and ``D`` (a target residue against a gap); unaligned flanks are not in it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

__all__ = ["CigarResult", "Cigars", "EndsResult", "ScoreResult", "TopHits"]


class Cigars(Sequence[str]):
    """The CIGAR strings of a batch: one ASCII text and the offsets of each pair's string.

    A list of millions of separate strings costs more to build than the alignments
    themselves; this sequence makes each string only when it is read (``cigars[p]``), and
    gives the whole text to callers who write it out in bulk (``text``, ``offsets``).
    Equal to any sequence of the same strings.
    """

    __slots__ = ("offsets", "text")

    def __init__(self, text: str, offsets: np.ndarray) -> None:
        self.text = text
        self.offsets = offsets

    @classmethod
    def from_bytes(cls, data: np.ndarray, offsets: np.ndarray) -> Cigars:
        """From ASCII codes (uint8) and ``len + 1`` offsets into them."""
        return cls(data.tobytes().decode("ascii"), offsets)

    @classmethod
    def from_strings(cls, strings: Sequence[str]) -> Cigars:
        """From separate strings."""
        offsets = np.zeros(len(strings) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in strings], out=offsets[1:])
        return cls("".join(strings), offsets)

    @classmethod
    def scatter(cls, count: int, parts: Sequence[tuple[np.ndarray, Cigars]]) -> Cigars:
        """``count`` strings, part ``(positions, cigars)`` giving ``cigars[k]`` to position
        ``positions[k]``; positions no part names get an empty string."""
        lengths = np.zeros(count, dtype=np.int64)
        for positions, cigars in parts:
            lengths[positions] = np.diff(cigars.offsets)
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        out = np.empty(int(offsets[-1]), dtype=np.uint8)
        for positions, cigars in parts:
            sizes = np.diff(cigars.offsets)
            if not sizes.sum():
                continue
            # each byte of a part moves by its string's shift
            shift = np.repeat(offsets[positions] - cigars.offsets[:-1], sizes)
            source = np.frombuffer(cigars.text.encode("ascii"), dtype=np.uint8)
            out[np.arange(len(source)) + shift] = source
        return cls.from_bytes(out, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[p] for p in range(*index.indices(len(self)))]
        p = range(len(self))[index]
        return self.text[self.offsets[p] : self.offsets[p + 1]]

    def __iter__(self) -> Iterator[str]:
        text = self.text
        for a, b in itertools.pairwise(self.offsets.tolist()):
            yield text[a:b]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cigars):
            return self.text == other.text and np.array_equal(self.offsets, other.offsets)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        head = ", ".join(repr(s) for s in self[:3])
        return f"Cigars([{head}{', ...' if len(self) > 3 else ''}], {len(self)} strings)"

    def tolist(self) -> list[str]:
        """Every string, as a list."""
        return list(self)


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
    cigar: Cigars = field(default_factory=lambda: Cigars("", np.zeros(1, np.int64)))
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
