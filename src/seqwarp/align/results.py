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

from .._jit import jit, parallel_jit, prange

__all__ = ["CigarResult", "Cigars", "EndsResult", "ScoreResult", "TopHits"]


class Cigars(Sequence[str]):
    """The CIGAR strings of a batch: their ASCII codes in one array and the offsets of each
    pair's string.

    A list of millions of separate strings costs more to build than the alignments
    themselves, and so does one text of them all: this sequence keeps the codes as they came
    and makes strings only when they are read (``cigars[p]``, a slice, iteration). Callers
    who write them out in bulk take ``text`` (decoded once) or ``codes`` and ``offsets``.
    Equal to any sequence of the same strings.
    """

    __slots__ = ("_text", "codes", "offsets")

    def __init__(self, text: str | np.ndarray, offsets: np.ndarray) -> None:
        """``text``: the strings end to end, as a ``str`` or as ASCII codes (uint8)."""
        if isinstance(text, str):
            self.codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
            self._text: str | None = text
        else:
            self.codes = np.ascontiguousarray(text, dtype=np.uint8)
            self._text = None
        self.offsets = offsets

    @property
    def text(self) -> str:
        """Every string, end to end (decoded on first use, then kept)."""
        if self._text is None:
            self._text = str(memoryview(self.codes), "ascii")
        return self._text

    @classmethod
    def from_bytes(cls, data: np.ndarray, offsets: np.ndarray) -> Cigars:
        """From ASCII codes (uint8, copied: ``data`` may be a pinned buffer that goes back
        to its pool) and ``len + 1`` offsets into them."""
        return cls(np.array(data, dtype=np.uint8), offsets)

    @classmethod
    def from_strings(cls, strings: Sequence[str]) -> Cigars:
        """From separate strings."""
        offsets = np.zeros(len(strings) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in strings], out=offsets[1:])
        return cls("".join(strings), offsets)

    @classmethod
    def scatter(cls, count: int, parts: Sequence[tuple[np.ndarray | slice, Cigars]]) -> Cigars:
        """``count`` strings, part ``(positions, cigars)`` giving ``cigars[k]`` to position
        ``positions[k]``; positions no part names get an empty string."""
        if not parts:
            return cls("", np.zeros(count + 1, dtype=np.int64))
        ranges = [_as_range(positions, count) for positions, _ in parts]
        if all(r is not None for r in ranges):
            # consecutive ranges (the usual case): join them in order when they tile 0..count
            ordered = sorted(zip(ranges, (c for _, c in parts), strict=True), key=lambda x: x[0])
            starts = [r[0] for r, _ in ordered]
            stops = [r[1] for r, _ in ordered]
            if starts[0] == 0 and stops[-1] == count and starts[1:] == stops[:-1]:
                if len(ordered) == 1:
                    return ordered[0][1]
                return cls._join([c for _, c in ordered], count)
        lengths = np.zeros(count, dtype=np.int64)
        for positions, cigars in parts:
            lengths[positions] = np.diff(cigars.offsets)
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        out = np.empty(int(offsets[-1]), dtype=np.uint8)
        for positions, cigars in parts:
            where = np.arange(count)[positions] if isinstance(positions, slice) else positions
            _scatter_bytes(
                cigars.codes, cigars.offsets, np.asarray(where, dtype=np.int64), out, offsets
            )
        return cls(out, offsets)

    def replaced(self, positions: np.ndarray, other: Cigars) -> Cigars:
        """These strings with ``other[k]`` at ``positions[k]`` (ascending), in one pass over
        blocks of strings on every numba thread: the strings between two replaced ones move
        as one copy and their offsets by one shift, so a few replacements in a million
        strings cost a parallel copy of the text, not a scatter of every string."""
        positions = np.asarray(positions, dtype=np.int64)
        growth = np.diff(other.offsets) - (self.offsets[positions + 1] - self.offsets[positions])
        # where each replaced string starts, against its old place (the text starts at 0)
        shifts = np.concatenate(([0], np.cumsum(growth, dtype=np.int64))) - self.offsets[0]
        bounds = np.append(np.arange(0, len(self), _SPLICE_BLOCK, dtype=np.int64), len(self))
        firsts = np.searchsorted(positions, bounds)
        out = np.empty(int(self.offsets[-1] + shifts[-1]), dtype=np.uint8)
        offsets = np.empty(len(self) + 1, dtype=np.int64)
        offsets[0] = 0
        _splice(
            self.codes, self.offsets, other.codes, other.offsets, positions, shifts, bounds,
            firsts, out, offsets,
        )  # fmt: skip
        return Cigars(out, offsets)

    @classmethod
    def _join(cls, pieces: list[Cigars], count: int) -> Cigars:
        """The strings of ``pieces``, one piece after the other."""
        offsets = np.empty(count + 1, dtype=np.int64)
        offsets[0] = at = base = 0
        for piece in pieces:
            n = len(piece)
            offsets[at + 1 : at + n + 1] = piece.offsets[1:] - piece.offsets[0] + base
            at += n
            base += int(piece.offsets[-1] - piece.offsets[0])
        codes = np.concatenate([p.codes[p.offsets[0] : p.offsets[-1]] for p in pieces])
        return cls(codes, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[p] for p in range(start, stop, step)]
            bounds = self.offsets[start : max(start, stop) + 1].tolist()
            # only the codes of these strings are decoded (unless the whole text already is)
            first = bounds[0] if self._text is None else 0
            text = self._decode(first, bounds[-1]) if self._text is None else self._text
            return [text[a - first : b - first] for a, b in itertools.pairwise(bounds)]
        p = range(len(self))[index]
        a, b = int(self.offsets[p]), int(self.offsets[p + 1])
        return self._decode(a, b) if self._text is None else self._text[a:b]

    def _decode(self, a: int, b: int) -> str:
        """Codes ``a:b`` as text."""
        return str(memoryview(self.codes[a:b]), "ascii")

    def __iter__(self) -> Iterator[str]:
        text = self.text
        for a, b in itertools.pairwise(self.offsets.tolist()):
            yield text[a:b]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Cigars):
            return np.array_equal(self.codes, other.codes) and np.array_equal(
                self.offsets, other.offsets
            )
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
    """Scores of pairs ``(query_index[p], target_index[p])``; ``backend`` names what ran. The
    index arrays may be read-only (``align`` hands out views of one kept ``arange``)."""

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


def _as_range(positions: np.ndarray | slice, count: int) -> tuple[int, int] | None:
    """``(start, stop)`` when ``positions`` are ``start, start + 1, ..., stop - 1``."""
    if isinstance(positions, slice):
        start, stop, step = positions.indices(count)
        return (start, max(start, stop)) if step == 1 else None
    if len(positions) == 0:
        return None
    first, last = int(positions[0]), int(positions[-1])
    if last - first != len(positions) - 1 or not np.all(np.diff(positions) == 1):
        return None
    return first, last + 1


@jit
def _scatter_bytes(source, source_offsets, positions, out, out_offsets):
    """Copy string ``k`` of ``source`` to string ``positions[k]`` of ``out``."""
    for k in range(len(positions)):
        a = source_offsets[k]
        size = source_offsets[k + 1] - a
        b = out_offsets[positions[k]]
        out[b : b + size] = source[a : a + size]


# Cigars.replaced: strings a block (a thread's unit of work)
_SPLICE_BLOCK = 1 << 14


@parallel_jit
def _splice(codes, offsets, other, other_offsets, positions, shifts, bounds, firsts, out,
            out_offsets):  # fmt: skip
    """Strings of ``codes`` into ``out``, string ``k`` of ``other`` in place of string
    ``positions[k]``; block ``b`` holds strings ``bounds[b]`` up to ``bounds[b + 1]`` and
    replacements ``firsts[b]`` up to ``firsts[b + 1]``, and ``shifts[k]`` is how far the
    strings before replacement ``k`` (after ``k - 1``) move. Fills ``out_offsets[1:]``."""
    for b in prange(len(bounds) - 1):
        kept = bounds[b]  # the block's first string not yet placed
        for k in range(firsts[b], firsts[b + 1]):
            p = positions[k]
            _move(codes, offsets, kept, p, shifts[k], out, out_offsets)
            a = other_offsets[k]
            size = other_offsets[k + 1] - a
            start = offsets[p] + shifts[k]
            out[start : start + size] = other[a : a + size]
            out_offsets[p + 1] = start + size
            kept = p + 1
        _move(codes, offsets, kept, bounds[b + 1], shifts[firsts[b + 1]], out, out_offsets)


@jit
def _move(codes, offsets, first, stop, shift, out, out_offsets):
    """Strings ``first`` up to ``stop`` of ``codes`` into ``out``, ``shift`` bytes later, and
    the offsets that end them."""
    out[offsets[first] + shift : offsets[stop] + shift] = codes[offsets[first] : offsets[stop]]
    for j in range(first + 1, stop + 1):
        out_offsets[j] = offsets[j] + shift
