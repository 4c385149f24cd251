"""One-pass scans of a GPU call's per-pair arrays, compiled by numba (``_jit``: without the
interpreter lock), so that they allocate nothing per element and the host threads of several
devices run them at the same time."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from .._jit import jit
from ._pools import pool

# a scan of this many pairs or more runs in _SCAN_PIECES pieces on the scan threads
_PARALLEL_FROM = 1 << 20
_SCAN_PIECES = 8

T = TypeVar("T")

__all__ = [
    "extent",
    "gather_pairs",
    "indexed_running_cells",
    "is_consecutive",
    "length_spread",
    "one_query_sets",
    "running_cells",
    "shape_sort",
    "take",
]


@jit
def is_consecutive(index: np.ndarray) -> bool:
    """Whether ``index`` is ``index[0], index[0] + 1, ...`` (the pairs of a batch taken in
    order); stops at the first step that is not +1."""
    for i in range(1, len(index)):
        if index[i] != index[0] + i:
            return False
    return True


@jit
def _running_cells(m: np.ndarray, n: np.ndarray, out: np.ndarray) -> bool:
    total = 0
    empty = False
    for i in range(len(m)):
        cells = m[i] * n[i]
        empty |= cells == 0
        total += cells
        out[i] = total
    return empty


@jit
def _add(values: np.ndarray, offset: int) -> None:
    for i in range(len(values)):
        values[i] += offset


def _pieces(count: int) -> list[slice]:
    """One slice of ``count`` pairs, or ``_SCAN_PIECES`` when there are ``_PARALLEL_FROM``."""
    if count < _PARALLEL_FROM:
        return [slice(0, count)]
    bounds = np.linspace(0, count, _SCAN_PIECES + 1).astype(np.int64).tolist()
    return [slice(a, b) for a, b in itertools.pairwise(bounds)]


def _in_pieces(pieces: list[slice], work: Callable[[slice], T]) -> list[T]:
    """``work(piece)`` for every piece, on the scan threads when there are several."""
    if len(pieces) == 1:
        return [work(pieces[0])]
    return list(pool("scan").map(work, pieces))


def _carry(totals: np.ndarray, pieces: list[slice]) -> None:
    """Turn each piece's own running total into the whole array's (the totals of the pieces
    before it added)."""
    if len(pieces) > 1:
        before = np.cumsum([int(totals[p.stop - 1]) for p in pieces[:-1]]).tolist()
        list(pool("scan").map(lambda p, offset: _add(totals[p], offset), pieces[1:], before))


def running_cells(m: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, bool]:
    """The running total of the pairs' DP cells (``np.cumsum(m * n)``, int64) and whether
    any pair has an empty side, in one pass (a long one in pieces on the scan threads: each
    piece's own running total, then the totals before it added)."""
    out = np.empty(len(m), dtype=np.int64)
    pieces = _pieces(len(m))
    empties = _in_pieces(pieces, lambda p: _running_cells(m[p], n[p], out[p]))
    _carry(out, pieces)
    return out, any(empties)


@jit
def _indexed_running_cells(
    q_lengths: np.ndarray,
    t_lengths: np.ndarray,
    q_index: np.ndarray,
    t_index: np.ndarray,
    m: np.ndarray,
    n: np.ndarray,
    out: np.ndarray,
) -> int:
    # returns -1 (no pair with an empty side), -2 (some) or the first pair of a bad index
    total = 0
    empty = False
    for i in range(len(q_index)):
        q, t = q_index[i], t_index[i]
        if q < 0 or q >= len(q_lengths) or t < 0 or t >= len(t_lengths):
            return i
        m[i] = q_lengths[q]
        n[i] = t_lengths[t]
        cells = m[i] * n[i]
        empty |= cells == 0
        total += cells
        out[i] = total
    return -2 if empty else -1


def indexed_running_cells(
    q_lengths: np.ndarray, t_lengths: np.ndarray, q_index: np.ndarray, t_index: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The query and target lengths of the pairs ``(q_index[p], t_index[p])``, their
    running total of cells and whether any pair has an empty side, in one pass (the
    gathers, :func:`running_cells` and a bounds check of the indices; a long one in pieces on
    the scan threads, as :func:`running_cells`)."""
    count = len(q_index)
    m, n, out = (np.empty(count, dtype=np.int64) for _ in range(3))
    pieces = _pieces(count)
    found = _in_pieces(
        pieces,
        lambda p: int(
            _indexed_running_cells(q_lengths, t_lengths, q_index[p], t_index[p], m[p], n[p], out[p])
        ),
    )
    bad = [p.start + first for p, first in zip(pieces, found, strict=True) if first >= 0]
    if bad:
        at = bad[0]
        raise IndexError(
            f"pair {at}: query index {int(q_index[at])} or target index"
            f" {int(t_index[at])} outside 0..{len(q_lengths) - 1} or 0..{len(t_lengths) - 1}"
        )
    _carry(out, pieces)
    return m, n, out, -2 in found


@jit
def _shape_key(m: int, n: int) -> int:
    return (min((n - 1) >> 5, 255) << 8) | min((m - 1) >> 5, 255)


@jit
def _shape_sort(m: np.ndarray, n: np.ndarray, order: np.ndarray, keys: np.ndarray) -> int:
    # a counting sort: how many pairs take each key, where each key's run begins, then every
    # pair into the next place of its key's run (in pair order: stable)
    starts = np.zeros(1 << 16, dtype=np.int64)
    for i in range(len(m)):
        if m[i] > 0 and n[i] > 0:
            starts[_shape_key(m[i], n[i])] += 1
    total = 0
    for key in range(1 << 16):
        count = starts[key]
        starts[key] = total
        total += count
    for i in range(len(m)):
        if m[i] > 0 and n[i] > 0:
            key = _shape_key(m[i], n[i])
            j = starts[key]
            starts[key] = j + 1
            order[j] = i
            keys[j] = key
    return total


def shape_sort(m: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs with both sides non-empty in the stable order of ``plan.shape_key`` (target,
    then query length in steps of 32), and their keys: a counting sort in two passes."""
    order = np.empty(len(m), dtype=np.int64)
    keys = np.empty(len(m), dtype=np.uint16)
    count = _shape_sort(m, n, order, keys)
    return order[:count], keys[:count]


@jit
def _gather_pairs(
    order: np.ndarray,
    q_offsets: np.ndarray,
    t_offsets: np.ndarray,
    q_shift: int,
    t_shift: int,
    m: np.ndarray,
    n: np.ndarray,
    q_start: np.ndarray,
    t_start: np.ndarray,
    m_out: np.ndarray,
    n_out: np.ndarray,
) -> None:
    for i in range(len(order)):
        p = order[i]
        q_start[i] = q_offsets[p] - q_shift
        t_start[i] = t_offsets[p] - t_shift
        m_out[i] = m[p]
        n_out[i] = n[p]


def gather_pairs(
    order: np.ndarray,
    offsets: tuple[np.ndarray, np.ndarray],
    shifts: tuple[int, int],
    lengths: tuple[np.ndarray, np.ndarray],
    out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Fill ``out`` (query starts, target starts, query and target lengths) with the pairs of
    ``order``: residue start = offset - shift, in one pass without temporaries."""
    _gather_pairs(order, *offsets, *shifts, *lengths, *out)


@jit
def _take(values: np.ndarray, index: np.ndarray, out: np.ndarray) -> None:
    for i in range(len(index)):
        out[i] = values[index[i]]


def take(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]`` for a valid ``index`` (a long one in pieces on the scan threads)."""
    out = np.empty(len(index), dtype=values.dtype)
    _in_pieces(_pieces(len(index)), lambda p: _take(values, index[p], out[p]))
    return out


@jit
def _extent(offsets: np.ndarray, lengths: np.ndarray) -> tuple[int, int]:
    low, high = offsets[0], offsets[0] + lengths[0]
    for i in range(1, len(offsets)):
        low = min(low, offsets[i])
        high = max(high, offsets[i] + lengths[i])
    return low, high


def extent(offsets: np.ndarray, lengths: np.ndarray) -> tuple[int, int]:
    """``offsets.min()`` and ``(offsets + lengths).max()`` of sequences (at least one), in one
    pass (a long one in pieces on the scan threads)."""
    pieces = _pieces(len(offsets))
    ends = _in_pieces(pieces, lambda p: _extent(offsets[p], lengths[p]))
    return int(min(low for low, _ in ends)), int(max(high for _, high in ends))


@jit
def _length_spread(m: np.ndarray, n: np.ndarray) -> tuple[int, int, int]:
    spread, shortest, fewest_columns = 0, m[0], n[0]
    for i in range(len(m)):
        spread = max(spread, abs(np.int64(n[i]) - m[i]))
        shortest = min(shortest, m[i], n[i])
        fewest_columns = min(fewest_columns, n[i])
    return spread, shortest, fewest_columns


def length_spread(m: np.ndarray, n: np.ndarray) -> tuple[int, int, int]:
    """``abs(n - m).max()``, ``minimum(m, n).min()`` and ``n.min()`` of pairs (at least
    one), in one pass (a long one in pieces on the scan threads)."""
    parts = _in_pieces(_pieces(len(m)), lambda p: _length_spread(m[p], n[p]))
    return (
        int(max(x[0] for x in parts)),
        int(min(x[1] for x in parts)),
        int(min(x[2] for x in parts)),
    )


@jit
def _odd_runs(pairs: np.ndarray, query_starts: np.ndarray) -> int:
    """How many runs of consecutive pairs of one query (``query_starts`` equal) in ``pairs``
    have an odd length."""
    count, start = 0, 0
    for k in range(1, len(pairs) + 1):
        if k == len(pairs) or query_starts[pairs[k]] != query_starts[pairs[start]]:
            count += (k - start) & 1
            start = k
    return count


@jit
def _arrange_runs(pairs: np.ndarray, query_starts: np.ndarray, out: np.ndarray, sets: int) -> None:
    """Writes each run's pairs two by two to ``out[:sets]`` and each odd run's last pair to
    ``out[sets:]``, both in their order."""
    front, back, start = 0, sets, 0
    for k in range(1, len(pairs) + 1):
        if k == len(pairs) or query_starts[pairs[k]] != query_starts[pairs[start]]:
            even = start + ((k - start) & ~1)
            for j in range(start, even):
                out[front] = pairs[j]
                front += 1
            if even < k:
                out[back] = pairs[even]
                back += 1
            start = k


def one_query_sets(pairs: np.ndarray, query_starts: np.ndarray) -> tuple[np.ndarray, int]:
    """``pairs`` arranged as pair sets of one query (each run of consecutive pairs of one
    query, ``query_starts[pair]`` equal, gives its pairs two by two) followed by the pairs
    left over (the last of each run of odd length), both in their order, and the number in
    sets; ``pairs`` itself when no run is odd."""
    left = _odd_runs(pairs, query_starts)
    if left == 0:
        return pairs, len(pairs)
    out = np.empty(len(pairs), dtype=np.int64)
    _arrange_runs(pairs, query_starts, out, len(pairs) - left)
    return out, len(pairs) - left
