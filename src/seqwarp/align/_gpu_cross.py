"""Score blocks of a cross product on the GPU without per-pair host arrays.

``Aligner.score_matrix`` and ``top_hits`` score every query against every target. Through
the indexed path (``_gpu_backend.score``) the host builds, sorts, copies and scatters a
dozen arrays per pair, and for short reads that host work took several times the kernels'
time (all pairs of 3,000 reads of 125 bp: 249 ms a call against 27 ms of kernels on one
H200). Here the host handles one entry per sequence: queries sorted longest first, targets
shortest first (counting sorts by 32-residue bin) and given a tile per run of similar
lengths (``plan.tile_runs``), each run one launch of every query against its targets, query
by query (so that a pair set's two pairs share their query: the paired profile, or the class
table read once). Each chunk's per-pair arguments are spelt out on the device from the two
sorted lists, its scores put in place in the block's matrix there, and only that matrix
comes back.

The same kernels, lanes and tiles as the indexed path run, so the scores are the same.
Targets long enough to want split warps, and pairs past the 16-bit lane's exact range,
are left to the indexed path (the long targets' columns; past the range, the whole block).
"""

from __future__ import annotations

import contextlib
from concurrent.futures import wait
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from ..sequences import SequenceBatch
from . import _gpu_backend as engine
from ._host_scan import shape_sort
from ._pools import pool, thread_streams
from .plan import tile_runs


class CrossLaunch(NamedTuple):
    """One launch of a block: every sorted query against sorted targets ``first`` to
    ``first + width``, pair ``p`` being query ``p // width`` and target ``first + p % width``."""

    launch: Any  # _gpu_backend._Launch (its ``pairs`` unused: the device spells them out)
    first: int
    width: int


def cross_launches(
    target_lengths: np.ndarray, matrix: np.ndarray, offset: bool, gap_extend: int
) -> list[CrossLaunch]:
    """The launches of a block whose targets, in order of their 32-residue bins, have
    ``target_lengths`` (all at least 1): a tile per run of bins as the indexed path picks
    it, the paired profile where a DNA tile takes it, with an odd run's last target on the
    plain profile alone (a paired set's two targets share every query)."""
    plain, paired = _lanes(matrix, offset, gap_extend)
    tiles = engine._tiles(matrix, plain)
    bins = np.minimum((np.asarray(target_lengths, dtype=np.int64) - 1) >> 5, 255)
    keys = (bins << 8).astype(np.uint16)
    chosen, bounds = tile_runs(keys, tiles, engine.profile_letters(paired, matrix))
    none = np.empty(0, dtype=np.int64)
    launches = []
    for tile, a, b in zip(chosen.tolist(), bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        group, columns = tiles[tile]
        if paired == plain or not engine.takes_paired(paired, columns):
            runs = [(plain, a, b - a)]
        else:
            even = (b - a) & ~1
            runs = [(paired, a, even), (plain, a + even, b - a - even)]
        for each_lane, first, width in runs:
            if width:
                launch = engine._Launch("s16x2", each_lane, group, columns, none)
                launches.append(CrossLaunch(launch, first, width))
    return launches


def _lanes(matrix: np.ndarray, offset: bool, gap_extend: int) -> tuple[str, str]:
    """The kernel lanes of a block's pair sets: the plain one (the class table's where the
    alphabet has one, else a profile's) and the one for two targets sharing a query (the
    class table's again where it serves, else the paired profile)."""
    table = engine._class_table(matrix) is not None
    plain = engine._kernel_lane("s16x2", offset, matrix, gap_extend, table)
    paired = engine._kernel_lane("s16x2", offset, matrix, gap_extend, table, paired=True)
    return plain, paired


def _long_targets(matrix: np.ndarray) -> int:
    """Target length above which a target goes to the indexed path: spanning
    ``_SPLIT - 1`` stripes of the widest tile, where split warps may serve it better."""
    # the plain form's lane: the offset form's takes the same tiles
    tiles = engine._tiles(matrix, _lanes(matrix, False, 0)[0])
    return (engine._SPLIT - 1) * max(g * k for g, k in tiles)


def score_block(
    queries: SequenceBatch,
    targets: SequenceBatch,
    rows: slice,
    columns: slice,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
) -> np.ndarray | None:
    """Scores of queries ``rows`` against targets ``columns``: an int32 (rows, columns)
    array, or None where this path does not serve the block (a pair past the 16-bit lane's
    exact range, a device's memory too small for its share): the caller then takes the
    indexed path. With several devices, each takes a contiguous range of the block's
    queries of near-equal cells, in a host thread of its own."""
    import cupy as cp

    m = queries.lengths[rows].astype(np.int64)
    n = targets.lengths[columns].astype(np.int64)
    long = n > _long_targets(matrix)
    short = (n > 0) & ~long
    scoring = (matrix, mode, gap_open, gap_extend)
    block = (queries, targets, rows, columns)
    cells = m * int(n[short].sum())
    if not cells.any():
        result = np.empty((len(m), len(n)), dtype=np.int32)
        _fill_rest(result, m, n, _long_columns(block, long, scoring), scoring)
        return result
    longest = (int(m.max()), int(n[short].max()))
    if not engine._narrow(*longest, matrix, gap_open, gap_extend, "s16x2").all():
        return None
    # a counting sort by 32-residue bins (shape_sort: the key's target part first): the
    # targets shortest bin first, as the tiles are chosen
    candidates = np.flatnonzero(~long)
    t_order, _ = shape_sort(np.ones_like(candidates), n[candidates])
    t_sorted = candidates[t_order]
    result = engine._pinned(cp, np.int32, (len(m), len(n)))
    # the indexed path's work for the long targets' columns overlaps the devices' shares
    long_task = pool("cross").submit(_long_columns, block, long, scoring)
    share = partial(_score_rows, cp, block, m, t_sorted, scoring, result)
    try:
        engine.on_devices(np.cumsum(cells), share)
        short_of_memory = False
    except cp.cuda.memory.OutOfMemoryError:
        short_of_memory = True
    finally:
        wait([long_task])
    if short_of_memory:
        for device in set(engine._devices):
            engine.release_pool(device)
        return None
    _fill_rest(result, m, n, long_task.result(), scoring)
    return result


def _score_rows(
    cp: Any,
    block: tuple[SequenceBatch, SequenceBatch, slice, slice],
    m: np.ndarray,
    t_sorted: np.ndarray,
    scoring: tuple[np.ndarray, str, int, int],
    result: np.ndarray,
    device: int,
    a: int,
    b: int,
) -> None:
    """Rows ``a:b`` of the block (queries ``m[a:b]`` long) against its sorted targets on
    ``device``, into ``result[a:b]`` (the cells of empty queries left as they are)."""
    queries, targets, rows, columns = block
    # queries longest bin first (shape_sort: the key's query part; empty ones left out)
    q_order, _ = shape_sort(m[a:b], np.ones(b - a, dtype=np.int64))
    q_sorted = q_order[::-1]
    sorted_pairs = (rows.start + a + q_sorted, columns.start + t_sorted, q_sorted, t_sorted)
    with cp.cuda.Device(device):
        finish = _queue(cp, device, queries, targets, sorted_pairs, result[a:b], scoring)
        finish()


def _long_columns(
    block: tuple[SequenceBatch, SequenceBatch, slice, slice],
    long: np.ndarray,
    scoring: tuple[np.ndarray, str, int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """The columns of the block's ``long`` targets and their scores (rows, columns), by the
    indexed path on a batch of those targets alone (only their residues go to the device)."""
    wanted = np.flatnonzero(long)
    queries, targets, rows, columns = block
    count = rows.stop - rows.start
    if not len(wanted):
        return wanted, np.empty((count, 0), dtype=np.int64)
    few = targets.take(columns.start + wanted)
    q_index = np.repeat(np.arange(rows.start, rows.stop, dtype=np.int64), len(wanted))
    t_index = np.tile(np.arange(len(wanted), dtype=np.int64), count)
    fields = engine.score(queries, few, q_index, t_index, *scoring, ends=False)
    return wanted, fields[:, 0].reshape(count, len(wanted))


def _fill_rest(
    result: np.ndarray,
    m: np.ndarray,
    n: np.ndarray,
    long_scores: tuple[np.ndarray, np.ndarray],
    scoring: tuple[np.ndarray, str, int, int],
) -> None:
    """The cells of ``result`` the device's cross launches leave: pairs with an empty side
    (closed formulas) and the long targets' columns (``_long_columns``)."""
    _, mode, gap_open, gap_extend = scoring
    if (m == 0).any():
        result[m == 0] = engine._empty_pairs(np.zeros_like(n), n, mode, gap_open, gap_extend)[0]
    if (n == 0).any():
        scores = engine._empty_pairs(m, np.zeros_like(m), mode, gap_open, gap_extend)[0]
        result[:, n == 0] = scores[:, None]
    wanted, scores = long_scores
    result[:, wanted] = scores


def _queue(
    cp: Any,
    device: int,
    queries: SequenceBatch,
    targets: SequenceBatch,
    sorted_pairs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    out: np.ndarray,
    scoring: tuple[np.ndarray, str, int, int],
) -> Any:
    """Queue every sorted query against every sorted target on ``device`` (the current
    one), their scores copied to their places in ``out`` (pinned host memory, int32; its
    other cells undefined), and return the function that waits for them.
    ``sorted_pairs``: the queries' and targets' indices in their batches, then their rows
    and columns in ``out``."""
    q_ids, t_ids, q_places, t_places = sorted_pairs
    matrix, mode, gap_open, gap_extend = scoring
    streams = thread_streams(cp, device, engine._STREAMS)
    first = streams[0]
    m = queries.lengths[q_ids].astype(np.int64)
    n = targets.lengths[t_ids].astype(np.int64)
    spans = engine._spans(queries, targets, q_ids, t_ids, (None, None), m, n)
    sources = spans.sources
    upload = engine._Upload(cp, device, sources, engine._COPY_THREADS)
    # every device array stays referenced until finish(): freed at once, its memory could go
    # to an allocation on another stream while a kernel still reads it
    alive: list[Any] = [upload]
    try:
        with first:
            q_start = cp.asarray(spans.q_offsets - spans.q_shift)
            t_start = cp.asarray(spans.t_offsets - spans.t_shift)
            q_len, t_len = cp.asarray(m.astype(np.int32)), cp.asarray(n.astype(np.int32))
            q_at, t_at = cp.asarray(q_places * out.shape[1]), cp.asarray(t_places)
            found = cp.empty(out.shape, dtype=np.int32)
            data = engine._data(cp, matrix, gap_open, gap_extend, mode != "local")
            alive += [q_start, t_start, q_len, t_len, q_at, t_at, found, data]
        engine._join_streams(streams[1:], first)
        launches = cross_launches(n, matrix, mode != "local", gap_extend)
        affine = gap_open != gap_extend
        kernels = engine._module(mode, affine, [x.launch for x in launches], False)
        places = found.ravel()
        turn = 0
        for launch, begin, width in launches:
            kernel = kernels.of(launch)
            count = len(q_ids) * width
            size = engine.chunk_pairs(launch, int(m.max()), count)
            longest_target = int(n[begin : begin + width].max())
            for a in range(0, count, size):
                b = min(count, a + size)
                stream = streams[turn % len(streams)]
                turn += 1
                upload.wait(stream, [len(x) for x in sources])
                with stream:
                    # pair p: sorted query p // width, sorted target begin + p % width
                    pair = cp.arange(a, b, dtype=np.int64)
                    q, t = pair // width, begin + pair % width
                    arrays = (q_start[q], q_len[q], t_start[t], t_len[t])
                    fields = cp.empty((b - a, 3), dtype=np.int32)
                    longest = (int(m[a // width : (b - 1) // width + 1].max()), longest_target)
                    grid, args = engine.kernel_call(
                        cp, kernel, launch, arrays, longest, upload.codes, fields, data
                    )
                    kernel((grid.blocks,), (grid.threads,), args, shared_mem=grid.shared)
                    places[q_at[q] + t_at[t]] = fields[:, 0]
                    alive.append((pair, q, t, arrays, fields, args))
        engine._join_streams([first], *streams[1:])
        found.get(stream=first, out=out, blocking=False)
    except BaseException:
        # nothing of this block is left running or copying when the error leaves
        for stream in streams:
            stream.synchronize()
        _wait_for_copies(upload)
        raise

    def finish() -> None:
        first.synchronize()
        upload.join()
        alive.clear()

    return finish


def _wait_for_copies(upload: Any) -> None:
    """Wait for an upload's copy tasks, whatever they raised (the caller raises already)."""
    with contextlib.suppress(BaseException):
        upload.join()
