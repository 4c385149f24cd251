"""Full alignments on the GPU (``output="cigar"``): ``kernels/align_trace.cu`` through CuPy.

A call's pairs are planned as for scores (lane type by the overflow guard, tiles by target
length: ``_gpu_backend._plan``), stage by stage as the score kernels' are, and run in chunks
that fit device memory. For each chunk, ``align_fill`` runs the forward pass and keeps every
cell's direction flags on the device (4 bits a cell with affine gaps, 2 with linear ones),
then ``trace_walk`` walks them back, one thread per pair, writing the CIGAR text and the
pair's fields, and ``pack_text`` puts the texts side by side. Only the CIGARs cross to the
host chunk by chunk, on a copy stream, while the device works on the next chunk, into one
host buffer; the fields, column-major in the share's order of pairs, cross once at the end,
into the caller's columns. Every copy to or from the host goes through pinned memory. The
residues go to the device on the copy threads while the pairs are planned, and the first
chunks are small (each next one twice as large), so that the first kernels wait only for
their own pairs' residues.
The flags and the walk are ``cpu.trace``'s, so every field and CIGAR equals the CPU
backend's.

Pairs of one shape whose lengths differ by little (a read and the window it maps to) take a
band of diagonals instead of the whole matrix (``band_fill``, ``kernels/align_band.cuh``): a
window as wide as the lengths' difference and a margin for the errors, run in groups of 4 to
32 threads. The walk checks each pair's band against the bound its score sets and lists the
pairs whose band may have missed an optimal path; the chunk aligns them again on the whole
matrix before its CIGARs are packed (no host pass, no splice; on a stream of its own, which
the next chunk's kernels do not wait for), and those past the chunk's room for them run after
the call's chunks (by the CPU backend when they are few and short), so the band changes no
result, only the time.

Several devices each take a contiguous range of a call's pairs of near-equal cells, in a
host thread of their own; a range whose residues or buffers do not fit its device runs there
in halves of near-equal cells (a chunk's flags that do not fit run as smaller chunks). Pairs
with an empty side, and pairs whose flags alone would take
more than a quarter of the device's free memory (a 100 kbp x 100 kbp pair takes 5 GB), are
aligned by the CPU backend (its linear-space traceback) in the same call.
"""

from __future__ import annotations

from concurrent.futures import Future, wait
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numba
import numpy as np

from .. import cuda
from ..sequences import SequenceBatch
from . import _cpu_backend, _gpu_backend
from ._host_scan import length_spread
from ._pools import pool, thread_streams
from .plan import PairShapes
from .results import Cigars

__all__ = ["PhaseMarks", "align", "band_fill_name", "band_group", "fill_name", "walk_name"]

_BLOCK = 128
# a device's first chunk (each next one twice as large): larger than the score kernels' first
# (_gpu_backend._LEAD_PAIRS), as a chunk's walk takes as long as one pair's walk at least (a
# thread walks a pair) and a small chunk's band fill leaves most of the device idle in its
# last wave; a million 125 bp pairs' kernels, 16,384 -> 65,536: 8.1 -> 7.8 ms; 65,536 ->
# 131,072 (global linear): 6.52 -> 6.29 ms, the call 42.1 -> 39.6 ms; 262,144: 6.29, 40.8 ms
_LEAD_PAIRS = 1 << 17
_MAX_CHUNK_PAIRS = 1 << 20
_MAX_CHUNK_FLAG_BYTES = 8 << 30
_FIELDS = 8
_PACK = "seqwarp::pack_text"
_GATHER = "seqwarp::gather_missed"
_SCATTER = "seqwarp::scatter_missed"
# pairs a band missed that a chunk runs again on the whole matrix itself (the rest go to
# _outside_band): one in _MISSED_SHARE of its pairs and _MISSED_LEAST more. The grid runs
# stand-ins up to this room, so it stays near what the benchmark's bands miss (at most 0.05 %
# of their pairs); one in 64 measured the same within the runs' noise
_MISSED_SHARE = 1024
_MISSED_LEAST = 64
# the band fill: columns a thread (K, in order of preference, keyed by whether gaps are affine:
# a step's fixed work weighs less over 16 columns, so 16 is faster even where its window is
# twice as wide; with linear gaps 20 columns next, before 8: 125 bp local and semi-global
# bands of 20 x 4 filled a million pairs in 21-26 % less time than 8 x 8, with affine gaps in
# 2-3 % more, their E column taking 120 registers against 89), threads a group (G: the window
# holds G K - K + 1 diagonals), the lanes it runs (16-bit: two pairs a register), the margin
# of diagonals on each side of the lengths' difference as a share of the shorter side (global
# paths need fewer: their ends are fixed; a pair its band misses runs again, a few
# milliseconds a call), and the window's most columns as a share of the target's (20 x 4
# takes 80 of a 125 bp read's window of 132 or more)
_BAND_COLUMNS = {False: (16, 20, 8), True: (16, 8)}
_BAND_GROUPS = (4, 8, 16, 32)
_BAND_LANES = ("s16x2", "s16x2-bytes")
_BAND_MARGIN = {"global": 1 / 32, "semi-global": 1 / 7, "local": 1 / 7}
_BAND_MIN_MARGIN = 4
_BAND_MOST_COLUMNS = 0.65
# pairs a band missed run on the CPU backend when each has at most _CPU_AGAIN_PAIR_CELLS and
# all of them at most _CPU_AGAIN_CELLS_PER_THREAD a numba thread, on the device otherwise: a
# CPU thread takes a few pairs at once to their end, so a few long ones leave the others idle
# (125 bp: 26 to 3,173 pairs 0.9-6.0 ms on the CPU, 3.6-10.4 on the device; 512 bp: 4 pairs
# 9-14 ms on the CPU, 4-5 on the device, 111 pairs 17-34 against 5.5-6.4)
_CPU_AGAIN_PAIR_CELLS = 1 << 16
_CPU_AGAIN_CELLS_PER_THREAD = 1 << 22


def fill_name(mode: str, affine: bool, lane: str, columns: int, group: int) -> str:
    """NVRTC name expression of one forward-with-flags kernel (``lane``: a fused lane)."""
    struct = _gpu_backend._LANE_STRUCT[lane][0]
    return (
        f"seqwarp::align_fill<{_gpu_backend._MODES[mode]}, {'true' if affine else 'false'}, "
        f"seqwarp::{struct}, {columns}, {group}>"
    )


def band_fill_name(mode: str, affine: bool, lane: str, columns: int, group: int) -> str:
    """NVRTC name expression of one banded forward-with-flags kernel (``lane``: a 16-bit
    fused lane; ``columns`` a thread, ``group`` threads a group)."""
    struct = _gpu_backend._LANE_STRUCT[lane][0]
    return (
        f"seqwarp::band_fill<{_gpu_backend._MODES[mode]}, {'true' if affine else 'false'}, "
        f"seqwarp::{struct}, {columns}, {group}>"
    )


def walk_name(mode: str, affine: bool, banded: bool = False) -> str:
    """NVRTC name expression of the traceback walk for ``mode`` (after a banded fill)."""
    flags = ", ".join("true" if x else "false" for x in (affine, banded))
    return f"seqwarp::trace_walk<{_gpu_backend._MODES[mode]}, {flags}>"


def band_group(mode: str, affine: bool, m: np.ndarray, n: np.ndarray) -> tuple[int, int] | None:
    """The band fill's tile (columns a thread, threads a group) for pairs of lengths ``m`` and
    ``n`` (one launch's) with affine gaps or linear ones: the first of the gap model's
    ``_BAND_COLUMNS`` whose narrowest window holds the lengths' difference and the mode's
    margin on each side within the targets' most columns, or None (the whole matrix costs
    less)."""
    spread, shortest, fewest_columns = length_spread(m, n)
    margin = max(_BAND_MIN_MARGIN, int(np.ceil(shortest * _BAND_MARGIN[mode])))
    for k in _BAND_COLUMNS[affine]:
        for group in _BAND_GROUPS:
            if group * k - k + 1 >= spread + 1 + 2 * margin:
                if group * k <= _BAND_MOST_COLUMNS * fewest_columns:
                    return k, group
                break
    return None


def _thread_bytes(columns: int, affine: bool) -> int:
    """Bytes of a thread's flags of a row: ``columns`` cells of 4 bits (affine gaps) or 2
    (linear) in whole 4-byte words (``align_dp.cuh``'s "Direction flags")."""
    return 4 * -(-columns * (4 if affine else 2) // 32)


def band_flag_bytes(m: Any, columns: int, group: int, affine: bool) -> Any:
    """Device bytes of each pair's flags under the band fill (``align_band.cuh``'s layout): at
    most ``m + (m - 1) / K + G`` steps of ``G`` threads' flags of a row, rounded up to 16 (the
    walk reads 16-byte words)."""
    steps = m.astype(np.int64) + (m.astype(np.int64) - 1) // columns + group
    return (steps * group * _thread_bytes(columns, affine) + 15) & ~15


def flag_bytes(m: Any, n: Any, columns: int, group: int, affine: bool) -> Any:
    """Device bytes of each pair's flags under a tile of ``group`` threads of ``columns``
    columns, rounded up to 16 (the walk reads 16-byte words): as ``align_dp.cuh`` lays them
    out, each stripe holds ``m + group - 1`` anti-diagonal steps, and a step a thread's flags
    of a row. ``m`` and ``n``: numpy or CuPy integers (the chunks' places are running totals
    of these on the device)."""
    stripe = group * columns
    stripes = (n.astype(np.int64) + (stripe - 1)) // stripe
    step = group * _thread_bytes(columns, affine)
    return (stripes * (m.astype(np.int64) + (group - 1)) * step + 15) & ~15


def _most_flag_bytes(
    m: np.ndarray, n: np.ndarray, tiles: tuple[tuple[int, int], ...], affine: bool
) -> np.ndarray:
    """Each pair's flag bytes under the tile of ``tiles`` that needs the most for it."""
    return np.max([flag_bytes(m, n, columns, group, affine) for group, columns in tiles], axis=0)


@dataclass
class _Pending:
    """One chunk queued on the device: its CIGARs, once ``done`` has passed (its fields go
    straight to the device's columns of them)."""

    positions: slice | np.ndarray  # the chunk's pairs, as positions in the device's share
    offsets: Any  # (pairs + 1) int64: each CIGAR in ``text``
    text: Any  # uint8, the CIGARs side by side
    done: Any  # CUDA event recorded after the chunk's last kernel
    alive: tuple  # device buffers its kernels use, kept until then


def align(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    *,
    marks: PhaseMarks | None = None,
    shapes: PairShapes | None = None,
    band: bool = True,
) -> tuple[np.ndarray, Cigars]:
    """``(n, 8)`` int64 fields (``cpu._align_pair``'s) and the CIGAR strings of every pair.

    With several devices each aligns one contiguous range of the pairs, of near-equal cells,
    in a host thread of its own (as ``_gpu_backend.score`` does). ``marks``, when given,
    records the phases of every chunk (:class:`PhaseMarks`). ``shapes``: the pairs' lengths
    and running total of cells, when the caller has them. ``band``: let pairs take the band
    fill (the pairs a band did not hold run again without).
    """
    q_index = np.asarray(q_index, dtype=np.int64)
    t_index = np.asarray(t_index, dtype=np.int64)
    firsts, (m, n, cumulative, any_empty, _) = _gpu_backend.firsts_and_shapes(
        queries, targets, q_index, t_index, shapes
    )
    # column-major, as the API hands out columns
    out = np.empty((len(m), _FIELDS), dtype=np.int64, order="F")
    parts: list[tuple[np.ndarray | slice, Cigars]] = []

    def run(device: int, a: int, b: int) -> np.ndarray:
        """Pairs ``a:b`` on ``device``, in halves of near-equal cells where they run out of
        its memory; a part's CIGARs count once it has finished (a failed attempt's do not)."""
        left: list[np.ndarray] = []

        def part(x: int, y: int) -> None:
            share = (q_index[x:y], t_index[x:y], *_gpu_backend.shifted(firsts, x))
            cells = (cumulative[x:y], int(cumulative[x - 1]) if x else 0)
            done: list[tuple[np.ndarray | slice, Cigars]] = []
            rest = _align_share(
                device, queries, targets, share, m[x:y], n[x:y], cells, x,
                (matrix, mode, gap_open, gap_extend, queries.alphabet.unknown), out, done,
                marks, band,
            )  # fmt: skip
            parts.extend(done)
            left.append(x + rest)

        _gpu_backend._in_halves_on(
            _out_of_memory(), part, cumulative, a, b, partial(_gpu_backend.release_pool, device)
        )
        return np.concatenate(left) if left else np.zeros(0, dtype=np.int64)

    too_large = _gpu_backend.on_devices(cumulative, run)
    # the pairs with an empty side (looked for only when the scan saw one), and those whose
    # flags do not fit a device
    empty = np.flatnonzero((m == 0) | (n == 0)) if any_empty else np.zeros(0, dtype=np.int64)
    rest = np.sort(np.concatenate([empty, *too_large]))
    if rest.size:
        fields, texts = _cpu_backend.align(
            queries, targets, q_index[rest], t_index[rest], matrix, mode, gap_open, gap_extend
        )
        out[rest] = fields
        parts.append((rest, texts))
    cigars = Cigars.scatter(len(m), parts)
    # the pairs whose band may have missed an optimal path (operations -1), on the whole matrix
    outside = np.flatnonzero(out[:, 5] < 0) if band else np.zeros(0, dtype=np.int64)
    if outside.size:
        fields, texts = _outside_band(
            queries, targets, q_index[outside], t_index[outside], matrix, mode, gap_open,
            gap_extend, marks,
        )  # fmt: skip
        out[outside] = fields
        cigars = cigars.replaced(outside, texts)
    return out, cigars


def _outside_band(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    marks: PhaseMarks | None,
) -> tuple[np.ndarray, Cigars]:
    """Fields and CIGARs of the pairs a band did not hold past their chunk's room for them
    (:meth:`_ShareRun._missed_room`), on the whole matrix: by the CPU backend when they are
    short and their cells few (a call on the device costs 3-4 ms of set-up however few its
    pairs), else on the device, their residues gathered first (scattered through a call's
    batches, they would span nearly all of them, and all of that would go to the device)."""
    cells = queries.lengths[q_index].astype(np.int64) * targets.lengths[t_index]
    if (
        cells.max() <= _CPU_AGAIN_PAIR_CELLS
        and cells.sum() <= _CPU_AGAIN_CELLS_PER_THREAD * numba.get_num_threads()
    ):
        return _cpu_backend.align(
            queries, targets, q_index, t_index, matrix, mode, gap_open, gap_extend
        )
    index = np.arange(len(q_index), dtype=np.int64)
    return align(
        queries.take(q_index), targets.take(t_index), index, index, matrix, mode, gap_open,
        gap_extend, marks=marks, band=False,
    )  # fmt: skip


def _out_of_memory() -> type[BaseException]:
    """CuPy's out-of-memory error: a device's part of a call that raises it runs in halves."""
    import cupy as cp

    return cp.cuda.memory.OutOfMemoryError


def _align_share(
    device: int,
    queries: SequenceBatch,
    targets: SequenceBatch,
    share: tuple[np.ndarray, np.ndarray, int | None, int | None],
    m: np.ndarray,
    n: np.ndarray,
    cells: tuple[np.ndarray, int],
    base: int,
    scoring: tuple[np.ndarray, str, int, int, int],
    out: np.ndarray,
    parts: list[tuple[np.ndarray | slice, Cigars]],
    marks: PhaseMarks | None,
    band: bool,
) -> np.ndarray:
    """Align one device's share of a call (pairs ``base ...`` of it: their indices and the
    first of each when consecutive, lengths ``m`` and ``n``, running total of cells and the
    cells before them): fields into ``out``, CIGARs appended to ``parts``; returns the
    positions in the share of the pairs (both sides non-empty) whose flags need more than a
    quarter of the device's free memory, left to the CPU."""
    import cupy as cp

    q_index, t_index, *firsts = share
    with cp.cuda.Device(device):
        # what the pool holds unused is free too (it releases it when an allocation fails)
        free = int(cp.cuda.Device().mem_info[0]) + cp.get_default_memory_pool().free_bytes()
        # the longest sides bound every pair's flags from above under any tile
        tiles = _gpu_backend._tiles(scoring[0])
        affine = scoring[2] != scoring[3]
        too_large = np.zeros(0, dtype=np.int64)
        if len(m) and _most_flag_bytes(m.max(), n.max(), tiles, affine) > free // 4:
            fits = _most_flag_bytes(m, n, tiles, affine) <= free // 4
            too_large = np.flatnonzero(~fits & (m > 0) & (n > 0))
            m = np.where(fits, m, 0)  # planned as if empty: the CPU answers them
            if not np.any((m > 0) & (n > 0)):
                return too_large
        # a share has cells (on_devices and _in_halves_on skip those without); only the
        # residues its pairs touch go to the device (as for scores)
        spans = _gpu_backend._spans(queries, targets, q_index, t_index, tuple(firsts), m, n)
        _align_on_device(
            cp, spans, m, n, cells, base, *scoring,
            min(_MAX_CHUNK_FLAG_BYTES, free // 3), out, parts, marks, band,
        )  # fmt: skip
    return too_large


def _align_on_device(
    cp: Any,
    spans: _gpu_backend._Spans,
    m: np.ndarray,
    n: np.ndarray,
    cells: tuple[np.ndarray, int],
    base: int,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    unknown: int,
    budget: int,
    out: np.ndarray,
    parts: list[tuple[np.ndarray | slice, Cigars]],
    marks: PhaseMarks | None,
    band: bool,
) -> None:
    """Align a device's share (pairs ``base ...`` of the call; those with an empty side are
    left to the caller) on the current device: fields into ``out``, CIGARs appended to
    ``parts`` (see :class:`_ShareRun`)."""
    rows = out.T[:, base : base + len(m)]
    # the fresh pages of these rows of ``out``, faulted in on a gather thread while the
    # device works rather than by the fields' copy after the last kernel
    gather = pool("gather")
    touched = gather.submit(rows.fill, 0)
    try:
        run = _ShareRun(
            cp, spans, m, n, matrix, mode, gap_open, gap_extend, unknown, budget, marks, band
        )  # fmt: skip
        host = run.align(cells)
    finally:
        wait([touched])  # a rerun in halves must not find it still writing
    # each field widened on a thread of its own (numpy's casts release the interpreter lock):
    # all eight on one thread took 12 ms for a million pairs
    wait([gather.submit(np.copyto, row, values) for row, values in zip(rows, host, strict=True)])
    parts.extend(run.texts.parts(base))


@dataclass
class _Stage:
    """One stage of a share, planned: its first pair in the share, its pairs' arguments in
    launch order, its launches, each one's band fill tile (None: the whole matrix) and their
    module."""

    start: int
    pairs: _gpu_backend._Pairs
    launches: list[_gpu_backend._Launch]
    bands: list[tuple[int, int] | None]
    module: Any


class _ShareRun:
    """A device's share of a call, queued stage by stage as the score kernels' shares are
    (``_gpu_backend._score_part``): this thread plans the first stage, the planner threads
    the later ones while the device runs it. Each stage's per-pair arguments cross in one
    copy (``_gpu_backend._Pairs``); a chunk of a launch takes slices of them, and its flags'
    and CIGARs' places are running totals computed on the device, so that queueing a chunk
    costs the host the same for any number of pairs (computed on the host, a million pairs'
    took 30-55 ms before the first kernel). A chunk's flags fit ``budget`` bytes at the
    launch's largest pair; the first chunks are small (each next one twice as large), so that
    the first kernels wait only for their own pairs' residues. A chunk's second pass (the pairs
    its band missed) and its packing run on a stream of their own that the next chunk's
    kernels do not wait for. A chunk's CIGARs are collected while the device runs the next one
    (:class:`_Texts`); the fields, column-major in the share's order, cross once at the
    end."""

    def __init__(
        self,
        cp: Any,
        spans: _gpu_backend._Spans,
        m: np.ndarray,
        n: np.ndarray,
        matrix: np.ndarray,
        mode: str,
        gap_open: int,
        gap_extend: int,
        unknown: int,
        budget: int,
        marks: PhaseMarks | None,
        band: bool,
    ) -> None:
        _gpu_backend.check_gaps(gap_open, gap_extend)
        self.cp, self.spans, self.m, self.n = cp, spans, m, n
        self.band = band
        self.matrix, self.mode, self.gap_open, self.gap_extend = matrix, mode, gap_open, gap_extend
        self.affine = gap_open != gap_extend
        self.unknown = unknown  # the alphabet's wildcard: never a match in a CIGAR
        self.budget, self.marks = budget, marks
        self.device = cp.cuda.runtime.getDevice()
        self.stream, self.copies, second = thread_streams(cp, self.device, 3)
        # the second pass's and the packing's stream; the kernels' own when the caller times
        # each phase's kernels (their marks follow one another on one stream)
        self.second_stream = self.stream if marks is not None else second
        with self.stream:  # the kernels' stream (non-blocking: it would not wait for the default)
            self.device_matrix = cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32))
            # the last column: the stand-in pairs' fields (gather_missed)
            self.fields = cp.empty((_FIELDS, len(m) + 1), dtype=np.int32)
        self.texts = _Texts(len(m), _text_bound(m, n))
        self.flags = _GrowingBuffer(cp)
        self.missed_flags = _GrowingBuffer(cp)  # the second pass's, on its stream only
        self.pending: _Pending | None = None
        self.most = _LEAD_PAIRS
        # each stage's pinned arguments, until the kernels' stream has been synchronised
        self.stages: list[_Stage] = []

    def align(self, cells: tuple[np.ndarray, int]) -> np.ndarray:
        """Queue every stage (``cells``: the share's running total of cells and the cells
        before it); returns the (8, pairs) int32 fields in pinned memory."""
        cp = self.cp
        self.upload = _gpu_backend._Upload(
            cp, self.device, self.spans.sources, _gpu_backend._COPY_THREADS
        )
        stages = [
            (a, b) for a, b in _gpu_backend._stages(*cells) if _gpu_backend._cells_in(*cells, a, b)
        ]
        planned: list[Future] = []
        try:
            for k, (a, b) in enumerate(stages):
                if k == 0:
                    stage = self._plan(a, b)
                    planned = [pool("plan").submit(self._plan, *later) for later in stages[1:]]
                else:
                    stage = planned[k - 1].result()
                if stage is not None:
                    self._queue_stage(stage)
            if self.pending is not None:
                _collect(cp, self.pending, self.copies, self.texts)
                self.pending = None
        finally:
            # also after an error: nothing of this share is left running or copying
            wait([task for task in planned if not task.cancel()])
            self.stream.synchronize()
            self.second_stream.synchronize()
            self.upload.join()
            self.texts.finish()
        return _pinned_copy(cp, self.fields, self.stream)[:, : len(self.m)]

    def _plan(self, a: int, b: int) -> _Stage | None:
        """Pairs ``a:b`` of the share planned, their arguments in pinned memory and their
        module compiled; None when none of them runs on the device."""
        cp = self.cp
        with cp.cuda.Device(self.device):
            m, n = self.m[a:b], self.n[a:b]
            launches = _gpu_backend._plan(
                m, n, self.matrix, self.gap_open, self.gap_extend, "auto", table=False
            )
            if not launches:
                return None
            spans = replace(
                self.spans, q_offsets=self.spans.q_offsets[a:b], t_offsets=self.spans.t_offsets[a:b]
            )
            pairs = _gpu_backend._Pairs(cp, spans, m, n, _gpu_backend._order(launches))
            bands = [
                band_group(self.mode, self.affine, pairs.m[x.start : x.start + len(x.pairs)],
                           pairs.n[x.start : x.start + len(x.pairs)])
                if self.band and x.kernel_lane in _BAND_LANES else None
                for x in launches
            ]  # fmt: skip
            names = {self._fill_name(x, g) for x, g in zip(launches, bands, strict=True)}
            # a band's misses run again on the whole matrix: its launch's whole fill too
            names |= {self._fill_name(x, None) for x, g in zip(launches, bands, strict=True) if g}
            walks = {walk_name(self.mode, self.affine, g is not None) for g in bands}
            walks.add(walk_name(self.mode, self.affine))
            module = cuda.compile_module(
                "seqwarp.align", "align_trace.cu",
                [*sorted(names), *sorted(walks), _PACK, _GATHER, _SCATTER],
            )  # fmt: skip
            return _Stage(a, pairs, launches, bands, module)

    def _fill_name(self, launch: _gpu_backend._Launch, band: tuple[int, int] | None) -> str:
        """The forward kernel of ``launch``: the band fill's on tile ``band``, else the whole
        matrix's."""
        if band:
            return band_fill_name(self.mode, self.affine, launch.kernel_lane, *band)
        return fill_name(self.mode, self.affine, launch.kernel_lane, launch.columns, launch.group)

    def _flag_bytes(
        self, m: Any, n: Any, launch: _gpu_backend._Launch, band: tuple[int, int] | None
    ) -> Any:
        """Flag bytes of pairs of lengths ``m`` and ``n`` under ``launch``'s forward kernel:
        the band fill's on tile ``band``, else the whole matrix's."""
        if band:
            return band_flag_bytes(m, *band, self.affine)
        return flag_bytes(m, n, launch.columns, launch.group, self.affine)

    def _queue_stage(self, stage: _Stage) -> None:
        """Queue a stage's chunks, collecting each one's CIGARs once the next is queued."""
        cp, pairs = self.cp, stage.pairs
        self.stages.append(stage)
        with self.stream:
            args = pairs.to_device(cp)
            # each pair's column of the share's fields
            count = len(pairs.order)
            if pairs.identity:
                args["slot"] = cp.arange(stage.start, stage.start + count, dtype=np.int64)
            else:
                args["slot"] = cp.asarray(pairs.order + stage.start)
        module = stage.module
        pack = module.function(_PACK)
        for launch, band in zip(stage.launches, stage.bands, strict=True):
            walk = module.function(walk_name(self.mode, self.affine, band is not None))
            fill = module.function(self._fill_name(launch, band))
            # a band's misses: gathered, the whole matrix's fill and walk, lengths scattered
            again = (
                module.function(self._fill_name(launch, None)),
                module.function(walk_name(self.mode, self.affine)),
                module.function(_GATHER),
                module.function(_SCATTER),
            ) if band else ()  # fmt: skip
            lo, hi = launch.start, launch.start + len(launch.pairs)
            per_pair = int(
                self._flag_bytes(pairs.m[lo:hi].max(), pairs.n[lo:hi].max(), launch, band)
            )
            x = lo
            while x < hi:
                fits = max(1, self.budget // per_pair)
                take = min(hi - x, fits, self.most)
                if hi - x - take < take // 2 and hi - x <= min(fits, _MAX_CHUNK_PAIRS):
                    # the launch's remainder, under half a chunk, joins this chunk: a chunk's
                    # walk takes as long as one pair's walk at least (a thread walks a pair),
                    # so a small chunk costs nearly a whole one
                    take = hi - x
                y = x + take
                self.upload.wait(self.stream, pairs.needs(x, y))
                try:
                    queued = self._queue_chunk(
                        (fill, walk, pack, *again), launch, band, stage, args, x, y, per_pair
                    )
                except cp.cuda.memory.OutOfMemoryError:
                    # a smaller chunk, after what is queued has finished
                    self.stream.synchronize()
                    self.second_stream.synchronize()
                    self.flags.drop()
                    self.missed_flags.drop()
                    cp.get_default_memory_pool().free_all_blocks()
                    if y - x == 1:
                        raise
                    self.budget = max(per_pair, (y - x) * per_pair // 2)
                    continue
                self.most = min(2 * self.most, _MAX_CHUNK_PAIRS)
                if self.pending is not None:
                    _collect(cp, self.pending, self.copies, self.texts)
                self.pending = queued
                x = y

    def _queue_chunk(
        self,
        kernels: tuple[Any, ...],
        launch: _gpu_backend._Launch,
        band: tuple[int, int] | None,
        stage: _Stage,
        args: dict[str, Any],
        x: int,
        y: int,
        per_pair: int,
    ) -> _Pending:
        """Queue pairs ``x:y`` of a stage (one launch's): forward pass and walk on the
        kernels' stream, then packing, after the pairs a band missed have run again
        (:meth:`_queue_missed`) on the second pass's stream (``kernels``: fill, walk, pack,
        then with a band the second pass's; ``band``: the band fill's tile, None for the whole
        matrix); ``args``: the stage's per-pair arguments on the device, ``per_pair``: the
        flag bytes of the launch's largest pair."""
        cp, stream, pairs = self.cp, self.stream, stage.pairs
        fill, walk, pack, *again = kernels
        count = y - x
        alpha = self.matrix.shape[0]
        matrix, gap_open, gap_extend = self.device_matrix, self.gap_open, self.gap_extend
        with stream:
            q_start, t_start = args["q_start"][x:y], args["t_start"][x:y]
            m, n, slot = args["m"][x:y], args["n"][x:y], args["slot"][x:y]
            flags = self.flags.at_least(count * per_pair)
            # each pair's flags, and its CIGAR in 2 (m + n) bytes of whole 4-byte words (the
            # walk stores words), after the previous pair's
            flag_offset = _starts(cp, self._flag_bytes(m, n, launch, band))
            text_offset = _starts(cp, (2 * (m.astype(np.int64) + n) + 3) & ~3)
            host_m, host_n = pairs.m[x:y], pairs.n[x:y]
            # the CIGARs, then 16 spare bytes (4-byte aligned) for the stand-in pairs'
            spare_text = (_text_bound(host_m, host_n) + 3) & ~3
            text = cp.empty(spare_text + 16, dtype=np.uint8)
            packed = cp.empty_like(text)
            ends = cp.empty((count, 3), dtype=np.int32)
            lengths = cp.empty(count, dtype=np.int32)
            offsets = cp.zeros(count + 1, dtype=np.int64)
            chunk = (q_start, m, t_start, n, slot)
            missed, room = lengths, (0, 0)  # the whole matrix's walk lists no misses
            if band:
                room = self._missed_room(launch, host_m, host_n)
                missed = cp.zeros(1 + room[0], dtype=np.int32)
                grid = _band_grid(launch, *band, count, alpha)
                band_lo = cp.empty(count, dtype=np.int32)
                grid.configure(fill)
                _mark(self.marks, "start", stream)
                fill(
                    (grid.blocks,), (_BLOCK,),
                    (
                        self.upload.codes, q_start, m, t_start, n, np.int32(count), matrix,
                        np.int32(alpha), np.int32(gap_open), np.int32(gap_extend), ends,
                        band_lo, flags, flag_offset,
                    ),
                    shared_mem=grid.shared,
                )  # fmt: skip
                tile = band
            else:
                _mark(self.marks, "start", stream)
                band_lo = self._fill_whole(
                    fill, launch, chunk[:4], (host_m, host_n), ends, flags, flag_offset
                )  # not read by the walk
                tile = (launch.columns, launch.group)
            _mark(self.marks, "fill", stream)
            self._walk(
                walk, tile, chunk, (flags, flag_offset, ends, band_lo),
                (text, text_offset, lengths), (missed, room[0]),
            )  # fmt: skip
            _mark(self.marks, "walk", stream)
        # the second pass and the packing on a stream of their own, which the next chunk's
        # kernels do not wait for (a missed pair's whole matrix on one group is a latency)
        last = self.second_stream
        last.wait_event(stream.record())
        second: tuple = ()
        with last:
            if room[0]:
                second = self._queue_missed(
                    again, launch, (*chunk, text_offset, host_m, host_n), (missed, *room),
                    text, spare_text, lengths,
                )  # fmt: skip
            cp.cumsum(lengths, dtype=np.int64, out=offsets[1:])
            threads = (-(-count // _BLOCK),), (_BLOCK,)
            pack(*threads, (text, text_offset, lengths, offsets, np.int32(count), packed))
            _mark(self.marks, "pack", last)
        positions = (
            slice(stage.start + x, stage.start + y)
            if pairs.identity
            else stage.start + pairs.order[x:y]
        )
        alive = (ends, text, lengths, band_lo, flag_offset, text_offset, args, missed, second)
        return _Pending(positions, offsets, packed, last.record(), alive)

    def _fill_whole(
        self,
        fill: Any,
        launch: _gpu_backend._Launch,
        chunk: tuple[Any, Any, Any, Any],
        lengths: tuple[np.ndarray, np.ndarray],
        ends: Any,
        flags: Any,
        flag_at: Any,
    ) -> Any:
        """Queue the whole matrix's forward pass of ``chunk``'s pairs (their query starts,
        query lengths, target starts and target lengths on the device; ``lengths`` on the
        host) on the current stream, their flags into ``flags`` at ``flag_at``; returns the
        scratch buffer its stages use."""
        q_start, m, t_start, n = chunk
        count, alpha = len(m), self.matrix.shape[0]
        grid = _gpu_backend._Grid.of(
            launch, count, int(lengths[0].max()), int(lengths[1].max()), alpha
        )
        scratch = self.cp.empty(grid.scratch, dtype=np.uint32)
        grid.configure(fill)
        fill(
            (grid.blocks,), (_BLOCK,),
            (
                self.upload.codes, q_start, m, t_start, n, np.int32(count), self.device_matrix,
                np.int32(alpha), np.int32(self.gap_open), np.int32(self.gap_extend), scratch,
                np.int64(grid.stride), ends, flags, flag_at,
            ),
            shared_mem=grid.shared,
        )  # fmt: skip
        return scratch

    def _walk(
        self,
        walk: Any,
        tile: tuple[int, int],
        chunk: tuple[Any, Any, Any, Any, Any],
        forward: tuple[Any, Any, Any, Any],
        out: tuple[Any, Any, Any],
        missed: tuple[Any, int],
    ) -> None:
        """Queue the walk of ``chunk``'s pairs (query starts and lengths, target starts and
        lengths, field columns) on the current stream: ``forward``, the forward pass's flags,
        their places, the pairs' ends and band starts (the band fill's ``tile``, else the
        whole matrix's); ``out``, the CIGARs' buffer, places and lengths; ``missed``, the
        band walk's list of pairs its band did not hold and its room."""
        q_start, m, t_start, n, slot = chunk
        flags, flag_at, ends, band_lo = forward
        text, text_at, lengths = out
        listed, room = missed
        count, fields = len(m), self.fields
        walk(
            (-(-count // _BLOCK),), (_BLOCK,),
            (
                self.upload.codes, q_start, t_start, np.int32(count), flags, flag_at, m,
                np.int32(tile[0]), np.int32(tile[1]), self.device_matrix,
                np.int32(self.matrix.shape[0]), np.int32(self.unknown), np.int32(self.gap_open),
                np.int32(self.gap_extend), ends, text, text_at, lengths, slot,
                np.int64(fields.shape[1]), fields, n, band_lo, np.int32(self.matrix.max()),
                listed, np.int32(room),
            ),
        )  # fmt: skip

    def _missed_room(
        self, launch: _gpu_backend._Launch, m: np.ndarray, n: np.ndarray
    ) -> tuple[int, int]:
        """How many of a chunk's pairs (lengths ``m`` and ``n``, under ``launch``) its band may
        miss and the chunk still runs again on the whole matrix itself, and the flag bytes
        each takes there: their flags stay within a quarter of the budget."""
        whole = int(flag_bytes(m.max(), n.max(), launch.columns, launch.group, self.affine))
        cap = min(len(m), len(m) // _MISSED_SHARE + _MISSED_LEAST, self.budget // 4 // whole)
        return cap, whole

    def _queue_missed(
        self,
        kernels: list[Any],
        launch: _gpu_backend._Launch,
        chunk: tuple,
        missed: tuple[Any, int, int],
        text: Any,
        spare_text: int,
        lengths: Any,
    ) -> tuple:
        """Queue, on the current stream, the whole matrix's fill and walk for a chunk's pairs
        that its band did not hold (``missed``: the band walk's list, its ``cap`` and each
        entry's flag bytes: :meth:`_missed_room`), their CIGARs into the chunk's ``text`` and
        their lengths into ``lengths``, so that they are packed with the others. ``chunk``:
        the chunk's per-pair arguments on the device and its lengths on the host. Their flags
        take the second pass's buffer, which only this stream uses. Returns the device
        buffers the kernels use."""
        cp = self.cp
        fill, walk, gather, scatter = kernels
        q_start, m, t_start, n, slot, text_offset, host_m, host_n = chunk
        listed, cap, stride = missed
        flags, fields = self.missed_flags.at_least(cap * stride), self.fields
        q_first, t_first, slots, text_at, flag_at = (
            cp.empty(cap, dtype=np.int64) for _ in range(5)
        )
        q_len, t_len, text_len = (cp.empty(cap, dtype=np.int32) for _ in range(3))
        ends = cp.empty((cap, 3), dtype=np.int32)
        threads = (-(-cap // _BLOCK),), (_BLOCK,)
        gather(
            *threads,
            (
                listed, np.int32(cap), q_start, m, t_start, n, slot, text_offset,
                np.int64(fields.shape[1] - 1), np.int64(spare_text), np.int64(stride),
                q_first, q_len, t_first, t_len, slots, text_at, flag_at,
            ),
        )  # fmt: skip
        rerun = (q_first, q_len, t_first, t_len)
        scratch = self._fill_whole(fill, launch, rerun, (host_m, host_n), ends, flags, flag_at)
        _mark(self.marks, "fill", self.second_stream)
        # the walk lists nothing here; its unread band starts are the lengths
        self._walk(
            walk, (launch.columns, launch.group), (*rerun, slots),
            (flags, flag_at, ends, text_len), (text, text_at, text_len), (listed, 0),
        )  # fmt: skip
        scatter(*threads, (listed, np.int32(cap), text_len, lengths))
        _mark(self.marks, "walk", self.second_stream)
        return (*rerun, slots, text_at, flag_at, text_len, ends, scratch)


def _band_grid(
    launch: _gpu_backend._Launch, columns: int, group: int, count: int, alpha: int
) -> Any:
    """The band fill's grid for ``count`` pairs of ``launch``: a pair set (two pairs) a group
    of ``group`` threads of ``columns`` columns, ``_BLOCK`` threads a block; shared memory for
    the residues' profile columns (a block's) and each group's profile of its window."""
    sets_per_block = _BLOCK // group
    letters = alpha + 1
    size = _gpu_backend._LANE_STRUCT[launch.kernel_lane][1]
    table = (letters * letters * size + 15) & ~15
    shared = table + sets_per_block * launch.lane_pairs * letters * group * columns * size
    sets = -(-count // launch.lane_pairs)
    blocks = -(-sets // sets_per_block)
    return _gpu_backend._Grid(blocks, _BLOCK, shared, 0, 1)


def _starts(cp: Any, sizes: Any) -> Any:
    """Exclusive running total (int64) of ``sizes``, on the device."""
    starts = cp.zeros(len(sizes), dtype=np.int64)
    starts[1:] = cp.cumsum(sizes[:-1], dtype=np.int64)
    return starts


def _text_bound(m: np.ndarray, n: np.ndarray) -> int:
    """Bytes that hold the CIGARs of pairs of lengths ``m`` and ``n``, each in 2 (m + n)
    bytes of whole 4-byte words (a run of L operations takes at most 2 L bytes)."""
    return 2 * (int(m.sum(dtype=np.int64)) + int(n.sum(dtype=np.int64))) + 3 * len(m)


class _Texts:
    """A device share's CIGARs on the host, in one buffer: each chunk's codes after the
    previous chunk's, copied there from pinned memory on a gather thread while the device
    runs the later chunks. The chunks that follow each other in the share's order (the
    usual case: one shape of pairs, planned in order) make one :class:`Cigars` over the
    buffer, without a join (joining a million pairs' CIGARs took 11-18 ms); the others stay
    parts of their own, for ``Cigars.scatter``. The buffer is sized for the longest CIGARs
    and only the pages written are ever touched."""

    def __init__(self, count: int, bound: int) -> None:
        self.codes = np.empty(max(1, bound), dtype=np.uint8)
        self.used = 0  # bytes of codes placed
        # pairs 0 .. ordered - 1 hold their CIGARs in order, at codes[offsets[k]:offsets[k + 1]]
        self.offsets = np.empty(count + 1, dtype=np.int64)
        self.offsets[0] = 0
        self.ordered = 0
        self.others: list[tuple[slice | np.ndarray, int, np.ndarray]] = []
        self.copies: list[Future] = []

    def place(self, positions: slice | np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Room for one chunk's codes (its pairs at ``positions`` in the share, ``offsets``
        their ``pairs + 1`` offsets from 0); returns the part of the buffer to fill."""
        size, at = int(offsets[-1]), self.used
        self.used += size
        if (
            isinstance(positions, slice)
            and positions.start == self.ordered
            and at == self.offsets[self.ordered]
        ):
            np.add(offsets[1:], at, out=self.offsets[positions.start + 1 : positions.stop + 1])
            self.ordered = positions.stop
        else:
            self.others.append((positions, at, np.array(offsets)))
        return self.codes[at : at + size]

    def finish(self) -> None:
        """Wait for every copy into the buffer (raising the first copy's error)."""
        wait(self.copies)
        for copy in self.copies:
            copy.result()

    def parts(self, base: int) -> list[tuple[slice | np.ndarray, Cigars]]:
        """The CIGARs as parts for ``Cigars.scatter``: positions in the call (the share
        starting at ``base``) and their strings."""
        parts: list[tuple[slice | np.ndarray, Cigars]] = []
        if self.ordered:
            ordered = Cigars(
                self.codes[: self.offsets[self.ordered]], self.offsets[: self.ordered + 1]
            )
            parts.append((slice(base, base + self.ordered), ordered))
        for positions, at, offsets in self.others:
            where = (
                slice(base + positions.start, base + positions.stop)
                if isinstance(positions, slice)
                else base + positions
            )
            parts.append((where, Cigars(self.codes[at : at + int(offsets[-1])], offsets)))
        return parts


class _GrowingBuffer:
    """A device byte buffer kept from chunk to chunk, replaced on the current stream by a
    larger one when a chunk needs more (the old one dropped first, so that the pool can reuse
    its memory)."""

    def __init__(self, cp: Any) -> None:
        self.cp = cp
        self.array: Any = None

    def at_least(self, size: int) -> Any:
        """The buffer, of ``size`` bytes or more."""
        if self.array is None or self.array.size < size:
            self.array = None
            self.array = self.cp.empty(size, dtype=np.uint8)
        return self.array

    def drop(self) -> None:
        """Let the pool have its memory back."""
        self.array = None


class PhaseMarks:
    """CUDA events between the phases of a CIGAR call's chunks, to time the kernels apart from
    the copies and the host's work: ``"start"`` before a chunk's kernels, then one after its
    ``"fill"``, ``"walk"`` and ``"pack"`` kernels (a band's second pass adds a fill and a walk
    before the packing), all on the chunk's kernel stream (a call on one device: the events of
    several would interleave)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def mark(self, phase: str, stream: Any) -> None:
        """Record an event on ``stream`` after ``phase``."""
        self.events.append((phase, stream.record()))


def _mark(marks: PhaseMarks | None, phase: str, stream: Any) -> None:
    """Mark ``phase`` on ``stream`` when the caller asked for marks."""
    if marks is not None:
        marks.mark(phase, stream)


def _collect(cp: Any, pending: _Pending, copies: Any, texts: _Texts) -> None:
    """Copy a chunk's CIGARs to pinned memory on the ``copies`` stream once its kernels are
    done, then into ``texts`` on a gather thread (the first writes fault fresh pages in)."""
    copies.wait_event(pending.done)
    offsets = _pinned_copy(cp, pending.offsets, copies)
    staged = _pinned_copy(cp, pending.text[: int(offsets[-1])], copies)
    into = texts.place(pending.positions, offsets)
    texts.copies.append(pool("gather").submit(np.copyto, into, staged))


def _pinned_copy(cp: Any, array: Any, stream: Any) -> np.ndarray:
    """``array`` copied to the host on ``stream`` through pinned memory (a copy to pageable
    memory ran at a few GB/s: a million pairs' fields and CIGARs took 33 ms). The result
    holds its pinned block, returned to CuPy's pool when it is dropped."""
    host = _gpu_backend._pinned(cp, array.dtype, array.shape)
    array.get(stream=stream, out=host, blocking=False)
    stream.synchronize()
    return host
