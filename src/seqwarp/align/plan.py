"""Work planning for alignment jobs: pure numpy on lengths, no device, testable in microseconds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

__all__ = [
    "SM_90",
    "CallBudget",
    "CrossBlock",
    "Multiprocessor",
    "PairShapes",
    "cross_product_blocks",
    "identity_index",
    "lane_groups",
    "largest_first",
    "rebased_reach",
    "rebased_step",
    "resident_blocks",
    "score_bound",
    "shape_key",
    "shared_carveout",
    "slices_by_total",
    "tile_cost",
    "tile_runs",
    "traceback_block",
]


def largest_first(cells: np.ndarray) -> np.ndarray:
    """Pairs in decreasing order of work (stable): with dynamic scheduling the long pairs
    start first and the short ones fill the gaps, so no worker is left with a long tail."""
    return np.argsort(-cells, kind="stable")


# the longest identity index made so far: calls take read-only views of its start
_identity = np.arange(0, dtype=np.int64)


def identity_index(count: int) -> np.ndarray:
    """``np.arange(count)`` (int64) as a read-only view of one kept array: a fresh one of
    millions of pairs costs more page faults than a GPU call's whole planning."""
    global _identity
    kept = _identity  # one read: other threads may replace it meanwhile
    if len(kept) < count:
        kept = np.arange(max(count, 2 * len(kept)), dtype=np.int64)
        kept.flags.writeable = False
        _identity = kept
    return kept[:count]


class CallBudget(NamedTuple):
    """How much of a job one engine call takes: at most ``cells`` DP cells and ``pairs``
    pairs (a call holds at least one pair)."""

    cells: int
    pairs: int


class PairShapes(NamedTuple):
    """What a caller already knows of one engine call's pairs, so the engine need not scan
    them again: query and target lengths, the running total of their DP cells (from zero),
    whether any pair may have an empty side and, when the query and the target indices are
    each consecutive, their first values (None: not known)."""

    m: np.ndarray
    n: np.ndarray
    cumulative: np.ndarray
    any_empty: bool
    firsts: tuple[int | None, int | None] | None = None


def slices_by_total(
    cumulative: np.ndarray, max_cells: int, max_pairs: int | None = None
) -> Iterator[slice]:
    """Consecutive slices of pairs (``cumulative``: their running total of cells), each
    holding at most ``max_cells`` cells and ``max_pairs`` pairs (at least one pair)."""
    n = len(cumulative)
    start = 0
    while start < n:
        base = cumulative[start - 1] if start else 0
        stop = int(np.searchsorted(cumulative, base + max_cells, side="right"))
        stop = max(stop, start + 1)
        if max_pairs is not None:
            stop = min(stop, start + max_pairs)
        yield slice(start, min(stop, n))
        start = stop


class CrossBlock(NamedTuple):
    """One block of a cross product: every pair of its ``queries`` and ``targets`` (slices).
    ``by_query``: its pairs run query by query (a row of targets each), else target by
    target; ``q_index`` and ``t_index`` spell them out for an indexed call (made when
    asked: the GPU's cross path needs only the slices)."""

    queries: slice
    targets: slice
    by_query: bool

    @property
    def pairs(self) -> int:
        """How many pairs the block holds."""
        return (self.queries.stop - self.queries.start) * (self.targets.stop - self.targets.start)

    @property
    def q_index(self) -> np.ndarray:
        """Each pair's query, in the block's order of pairs."""
        rows = np.arange(self.queries.start, self.queries.stop, dtype=np.int64)
        columns = self.targets.stop - self.targets.start
        return np.repeat(rows, columns) if self.by_query else np.tile(rows, columns)

    @property
    def t_index(self) -> np.ndarray:
        """Each pair's target, in the block's order of pairs."""
        columns = np.arange(self.targets.start, self.targets.stop, dtype=np.int64)
        rows = self.queries.stop - self.queries.start
        return np.tile(columns, rows) if self.by_query else np.repeat(columns, rows)

    def grid(self, values: np.ndarray) -> np.ndarray:
        """The block's per-pair ``values`` as a (queries, targets) array (a view)."""
        rows = self.queries.stop - self.queries.start
        columns = self.targets.stop - self.targets.start
        if self.by_query:
            return values.reshape(rows, columns)
        return values.reshape(columns, rows).T


def cross_product_blocks(n_queries: int, n_targets: int, max_pairs: int) -> Iterator[CrossBlock]:
    """Blocks of near-equal size of at most ``max_pairs`` pairs (at least one sequence of the
    cut side) of the cross product, cut along its longer side and holding the whole shorter
    side, whose sequences run fastest: a contiguous range of a block's pairs (a device's
    share) then reads a contiguous range of the longer side, and each of its sequences once."""
    if n_queries == 0 or n_targets == 0:
        return
    by_query = n_queries >= n_targets
    longer, shorter = (n_queries, n_targets) if by_query else (n_targets, n_queries)
    most = max(1, max_pairs // shorter)
    step = -(-longer // -(-longer // most))  # as few blocks as ``most`` allows, of equal size
    for start in range(0, longer, step):
        stop = min(longer, start + step)
        if by_query:
            yield CrossBlock(slice(start, stop), slice(0, n_targets), True)
        else:
            yield CrossBlock(slice(0, n_queries), slice(start, stop), False)


def traceback_block(query_length: int, target_length: int, max_bits: int = 1 << 24) -> int:
    """Rows per traceback block: the whole matrix when its direction bits fit ``max_bits``
    bytes, else about ``sqrt(m)`` rows (checkpointed, linear-space-style traceback)."""
    if query_length * (target_length + 1) <= max_bits:
        return max(1, query_length)
    return max(64, int(np.sqrt(query_length)) + 1)


def score_bound(
    query_lengths: np.ndarray,
    target_lengths: np.ndarray,
    max_score: int,
    min_score: int,
    gap_open: int,
    gap_extend: int,
) -> np.ndarray:
    """Per pair, a bound on ``|x|`` for every value a GPU kernel forms (cells, gap states, sums).

    A cell is at most ``min(m, n) * max_score`` (diagonal steps only) and at least the all-gap
    path ``-(2 * gap_open + (m + n) * gap_extend)``; the kernels keep ``H - gap_open`` and add
    one substitution score or one gap cost to a cell, which the slack terms cover. A pair whose
    bound fits a lane type is computed exactly in it: this is the 16-bit overflow guard.
    """
    m = np.asarray(query_lengths, dtype=np.int64)
    n = np.asarray(target_lengths, dtype=np.int64)
    high = np.minimum(m, n) * max(max_score, 0) + gap_open + abs(max_score)
    low = 2 * gap_open + (m + n) * gap_extend + gap_open + gap_extend + abs(min_score)
    return np.maximum(high, low)


def offset_bound(
    query_lengths: np.ndarray, target_lengths: np.ndarray, max_score: int, gap_extend: int
) -> np.ndarray:
    """Per pair, a bound on ``|x|`` for every value of the anti-diagonal offset form (the GPU
    kernels' ``G = H + (i + j) * gap_extend``, global and semi-global scores).

    ``G`` of a cell is at most ``min(m, n) * max_score + (m + n) * gap_extend`` and at least
    ``-2 * gap_open``; the slack terms cover one substitution (the profile holds
    ``s + 2 * gap_extend``). Cells padding a group of pairs take no more than the largest of
    their pairs' cells and rows or columns 0. The bound is at most twice :func:`score_bound`,
    so a 16-bit lane that holds a pair (``score_bound`` <= 12000) holds its offset form too.
    """
    m = np.asarray(query_lengths, dtype=np.int64)
    n = np.asarray(target_lengths, dtype=np.int64)
    slack = abs(max_score) + 2 * gap_extend
    return np.minimum(m, n) * max(max_score, 0) + (m + n) * gap_extend + slack


def rebased_step(max_score: int, gap_open: int, gap_extend: int) -> int:
    """A bound on how much two adjacent cells (a row or a column apart) differ in the offset
    form, ``G = H + (i + j) * gap_extend``, for global and semi-global alignments.

    In ``H`` a cell is at least its left (upper) neighbour less ``gap_open`` (a gap opened
    there) and at most that neighbour plus ``gap_open + max(max_score, 0)``: its diagonal
    neighbour is at most the left one plus ``gap_open``, and a gap into the cell costs at
    least what the same gap into its neighbour does. The offset form adds ``gap_extend``.
    """
    return gap_open + max(max_score, 0) + gap_extend


def rebased_reach(
    max_score: int,
    min_score: int,
    gap_open: int,
    gap_extend: int,
    columns: int,
    group: int,
    rebase_every: int,
) -> int:
    """A bound on ``|x|`` for every value a rebased GPU lane holds (``align_dp.cuh``): every
    value is a cell or gap state within ``columns + group + rebase_every + 1`` steps of the
    cell its base was taken from (a stripe of ``columns``, rows up to ``group`` behind and
    ``rebase_every`` ahead of it, the column handed in), plus one substitution or gap cost.
    Unlike :func:`score_bound` it does not grow with the pair's lengths."""
    steps = columns + group + rebase_every + 1
    slack = 2 * (gap_open + 2 * gap_extend + max(abs(max_score), abs(min_score)))
    return steps * rebased_step(max_score, gap_open, gap_extend) + slack


def shape_key(query_lengths: np.ndarray, target_lengths: np.ndarray) -> np.ndarray:
    """16-bit sort key of the GPU's pair order (``_host_scan.shape_sort``; neighbours in a
    GPU group or warp then pad each other little): ``(n - 1) // 32`` in the high byte and
    ``(m - 1) // 32`` in the low byte, each capped at 255."""
    m = np.asarray(query_lengths, dtype=np.int64)
    n = np.asarray(target_lengths, dtype=np.int64)
    high = np.minimum((n - 1) >> 5, 255)
    return ((high << 8) | np.minimum((m - 1) >> 5, 255)).astype(np.uint16)


# a thread's fixed work per row (shuffles, profile loads), in cells: measured as 16 x 32
# tiles beating 32 x 16 by 8-16 % on the H200
_ROW_OVERHEAD_CELLS = 3
# a stripe's fixed work per row (the boundary cell read from and written to memory, the
# wavefront's bookkeeping), in cells: fitted to the kernel rate of every tile at 96-1500
# residues on the H200 (what ``python -m seqwarp.bench align-tiles`` measures), where it
# picks a tile within 5 % of the fastest (27 % without it)
_STRIPE_ROW_CELLS = 30
# a tile that needs several stripes must win by this factor (the boundary column handed
# between stripes through memory, and costs the estimate leaves out)
_STRIPED_MARGIN = 1.1
# a tile whose stripe is not a power of two wide (20 or 24 columns a thread) takes targets of at
# most this many stripes: longer ones go to the power-of-two stripes that the split launches
# and the long reads' kernels are measured at
_ODD_TILE_STRIPES = 3


def tile_cost(target: np.ndarray, group: int, columns: int, letters: int) -> np.ndarray:
    """Estimated work (in cell updates) of a GPU group of ``group`` threads x ``columns``
    columns on a pair whose target (and query) is ``target`` long: its stripes of
    ``group * columns`` target columns, each with ``target + group - 1`` wavefront steps of
    ``_STRIPE_ROW_CELLS`` fixed work and a substitution profile of ``letters`` rows to build;
    several stripes cost ``_STRIPED_MARGIN`` times more (infinite past ``_ODD_TILE_STRIPES``
    stripes that are not a power of two wide)."""
    width = group * columns
    stripes = -(-np.asarray(target, dtype=np.int64) // width)
    per_row = width * (1 + _ROW_OVERHEAD_CELLS / columns) + _STRIPE_ROW_CELLS
    work = stripes * ((target + group - 1) * per_row + letters * width)
    work = np.where(stripes > 1, _STRIPED_MARGIN * work, work)
    if width & (width - 1):
        work = np.where(stripes > _ODD_TILE_STRIPES, np.inf, work)
    return work


def tile_runs(
    sorted_keys: np.ndarray, tiles: tuple[tuple[int, int], ...], letters: int
) -> tuple[np.ndarray, np.ndarray]:
    """The GPU tile of each run of pairs sorted by :func:`shape_key`: ``(tile, bounds)``, run
    ``r`` being pairs ``bounds[r]:bounds[r + 1]`` on tile ``tiles[tile[r]]`` (threads per
    group, columns per thread). Each 32-column bin of target lengths takes the tile of least
    :func:`tile_cost` at the bin's longest target (ties to the wider tile): a target just
    over one wide stripe goes to several narrow stripes rather than two wide ones, half
    padding; adjacent bins on one tile make one run. Reads the keys at one place per bin."""
    keys = np.asarray(sorted_keys, dtype=np.uint16)
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    # the bins present, and where each starts: a binary search per possible bin
    span = np.arange(int(keys[0]) >> 8, (int(keys[-1]) >> 8) + 1, dtype=np.int64)
    starts = np.searchsorted(keys, (span << 8).astype(np.uint16), side="left")
    present = np.append(starts[1:] > starts[:-1], True)
    bins, starts = span[present], starts[present]
    longest = 32 * (bins + 1)
    costs = np.stack([tile_cost(longest, g, k, letters) for g, k in tiles])
    widths = np.array([g * k for g, k in tiles])
    # least cost, ties to the wider tile: scan the tiles widest first
    widest_first = np.argsort(-widths, kind="stable")
    choice = widest_first[np.argmin(costs[widest_first], axis=0)]
    first = np.concatenate(([0], np.flatnonzero(np.diff(choice)) + 1))
    bounds = np.append(starts[first], len(keys)).astype(np.int64)
    return choice[first].astype(np.int64), bounds


def lane_groups(q_len: np.ndarray, t_len: np.ndarray, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """Group pairs of similar shape for inter-pair SIMD: (pair order, group offsets).

    Pairs are sorted by (target length, query length), largest first, and cut into groups of
    ``lanes``; padding to a group's longest pair then wastes little work, and big groups start
    first so dynamic scheduling balances the threads.
    """
    order = np.lexsort((-q_len, -t_len))
    offsets = np.arange(0, len(order) + lanes, lanes, dtype=np.int64)
    offsets[-1] = len(order)
    return order.astype(np.int64), np.unique(offsets)


class Multiprocessor(NamedTuple):
    """What one multiprocessor of a device holds (its CUDA device attributes)."""

    registers: int  # 32-bit registers
    threads: int
    blocks: int
    shared: int  # bytes of shared memory, at most
    reserved: int  # bytes of shared memory the system takes a block


# an sm_90 multiprocessor (H100, H200), as its CUDA device attributes give it: for plans made
# without a device (the SASS tool, host tests)
SM_90 = Multiprocessor(registers=65536, threads=2048, blocks=32, shared=233472, reserved=1024)


def resident_blocks(registers: int, threads: int, block_shared: int, sm: Multiprocessor) -> int:
    """Blocks of ``threads`` threads, ``registers`` registers a thread (allocated 256 a warp)
    and ``block_shared`` bytes of shared memory that ``sm`` holds at once."""
    per_warp = -(-registers * 32 // 256) * 256
    warps = -(-threads // 32)
    return min(
        sm.registers // (per_warp * warps),
        sm.threads // threads,
        sm.blocks,
        sm.shared // (block_shared + sm.reserved),
    )


def shared_carveout(registers: int, threads: int, block_shared: int, sm: Multiprocessor) -> int:
    """Percent of ``sm``'s shared memory to carve out of its L1 for a kernel of ``registers``
    a thread, ``threads`` a block and ``block_shared`` bytes of shared memory a block: what
    the blocks it holds (:func:`resident_blocks`) take, so that the rest stays L1.

    Measured on one H200 against all of it as shared memory (about 28 KB of L1 left): the
    125 bp global linear traceback's band fill 4.76 -> 4.44 ms a million pairs (its query
    letters and target residues come from global memory), 512 bp score kernels +0.7-1.6 %;
    the protein search's class-table kernels 0.5-3.3 % slower, so they keep all of it
    (``bench/results/align-gpu-carveout-experiment-h200-2026-12-04.log``)."""
    if block_shared == 0:
        return 0
    blocks = max(1, resident_blocks(registers, threads, block_shared, sm))
    return min(100, -(-100 * blocks * (block_shared + sm.reserved) // sm.shared))
