"""Full alignments on the GPU (``output="cigar"``): ``kernels/align_trace.cu`` through CuPy.

A call's pairs are planned as for scores (lane type by the overflow guard, tiles by target
length: ``_gpu_backend._plan``) and run in chunks that fit device memory. For each chunk,
``align_fill`` runs the forward pass and keeps every cell's 4 direction flags on the device
(a nibble per cell), then ``trace_walk`` walks them back, one thread per pair, writing the
CIGAR text and the pair's fields, and ``pack_text`` puts the texts side by side. Only the
CIGARs cross to the host chunk by chunk, on a copy stream, while the device works on the next
chunk; the fields, column-major in the device's own order of pairs, cross once at the end,
into the caller's columns. Every copy to or from the host goes through pinned memory. The
residues go to the device on the copy threads while the pairs are planned, and the first
chunks are small (each next one twice as large), so that the first kernels wait only for
their own pairs' residues. The flags and the walk are ``cpu.trace``'s, so every field and CIGAR
equals the CPU backend's.

Several devices each take a contiguous range of a call's pairs of near-equal cells, in a
host thread of their own; a range whose residues or buffers do not fit its device runs there
in halves of near-equal cells (a chunk's flags that do not fit run as smaller chunks). Pairs
with an empty side, and pairs whose flags alone would take
more than a quarter of the device's free memory (a 100 kbp x 100 kbp pair takes 5 GB), are
aligned by the CPU backend (its linear-space traceback) in the same call.
"""

from __future__ import annotations

from concurrent.futures import wait
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .. import cuda
from ..sequences import SequenceBatch
from . import _cpu_backend, _gpu_backend
from ._host_scan import is_consecutive
from ._pools import pool, thread_streams
from .plan import PairShapes
from .results import Cigars

__all__ = ["align", "fill_name", "walk_name"]

_BLOCK = 128
_MAX_CHUNK_PAIRS = 1 << 20
_MAX_CHUNK_FLAG_BYTES = 8 << 30
_FIELDS = 8
_PACK = "seqwarp::pack_text"


def fill_name(mode: str, affine: bool, lane: str, columns: int, group: int) -> str:
    """NVRTC name expression of one forward-with-flags kernel (``lane``: a fused lane)."""
    struct = _gpu_backend._LANE_STRUCT[lane][0]
    return (
        f"seqwarp::align_fill<{_gpu_backend._MODES[mode]}, {'true' if affine else 'false'}, "
        f"seqwarp::{struct}, {columns}, {group}>"
    )


def walk_name(mode: str) -> str:
    """NVRTC name expression of the traceback walk for ``mode``."""
    return f"seqwarp::trace_walk<{_gpu_backend._MODES[mode]}>"


def flag_bytes(m: np.ndarray, n: np.ndarray, columns: int, group: int) -> np.ndarray:
    """Device bytes of each pair's flags under a tile of ``group`` threads of ``columns``
    columns, rounded up to 16 (the walk reads 16-byte words): as ``align_dp.cuh`` lays them
    out, each stripe holds ``m + group - 1`` anti-diagonal steps, and a step a thread's
    ``columns`` nibbles in whole 4-byte words."""
    stripe = group * columns
    stripes = (np.asarray(n, dtype=np.int64) + (stripe - 1)) // stripe
    step = group * 4 * ((columns + 7) // 8)
    return (stripes * (np.asarray(m, dtype=np.int64) + (group - 1)) * step + 15) & ~15


def _most_flag_bytes(
    m: np.ndarray, n: np.ndarray, tiles: tuple[tuple[int, int], ...]
) -> np.ndarray:
    """Each pair's flag bytes under the tile of ``tiles`` that needs the most for it."""
    return np.max([flag_bytes(m, n, columns, group) for group, columns in tiles], axis=0)


@dataclass
class _Pending:
    """One chunk queued on the device: its CIGARs, once ``done`` has passed (its fields go
    straight to the device's columns of them)."""

    positions: np.ndarray  # the chunk's pairs, as positions in the call
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
    marks: list[tuple[str, Any]] | None = None,
    shapes: PairShapes | None = None,
) -> tuple[np.ndarray, Cigars]:
    """``(n, 8)`` int64 fields (``cpu._align_pair``'s) and the CIGAR strings of every pair.

    With several devices each aligns one contiguous range of the pairs, of near-equal cells,
    in a host thread of its own (as ``_gpu_backend.score`` does). ``marks``, when given,
    receives ``(phase, CUDA event)`` pairs: ``"start"`` before each chunk, then an event
    after its ``"fill"``, ``"walk"`` and ``"pack"`` kernels (to time the kernels apart from
    the copies and the host's work). ``shapes``: the pairs' lengths and running total of
    cells, when the caller has them.
    """
    q_index = np.asarray(q_index, dtype=np.int64)
    t_index = np.asarray(t_index, dtype=np.int64)
    firsts, (m, n, cumulative, any_empty, _) = _gpu_backend.firsts_and_shapes(
        queries, targets, q_index, t_index, shapes
    )
    # column-major, as the API hands out columns
    out = np.empty((len(m), _FIELDS), dtype=np.int64, order="F")
    parts: list[tuple[np.ndarray, Cigars]] = []

    def run(device: int, a: int, b: int) -> np.ndarray:
        """Pairs ``a:b`` on ``device``, in halves of near-equal cells where they run out of
        its memory; a part's CIGARs count once it has finished (a failed attempt's do not)."""
        left: list[np.ndarray] = []

        def part(x: int, y: int) -> None:
            share = (q_index[x:y], t_index[x:y], *_gpu_backend.shifted(firsts, x))
            done: list[tuple[np.ndarray, Cigars]] = []
            rest = _align_share(
                device, queries, targets, share, m[x:y], n[x:y], x,
                (matrix, mode, gap_open, gap_extend), out, done, marks,
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
    return out, Cigars.scatter(len(m), parts)


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
    base: int,
    scoring: tuple[np.ndarray, str, int, int],
    out: np.ndarray,
    parts: list[tuple[np.ndarray, Cigars]],
    marks: list[tuple[str, Any]] | None,
) -> np.ndarray:
    """Align one device's share of a call (pairs ``base ...`` of it: their indices and the
    first of each when consecutive, lengths ``m`` and ``n``): fields into ``out``, CIGARs
    appended to ``parts``; returns the positions in the share of the pairs (both sides
    non-empty) whose flags need more than a quarter of the device's free memory, left to the
    CPU."""
    import cupy as cp

    q_index, t_index, *firsts = share
    with cp.cuda.Device(device):
        # what the pool holds unused is free too (it releases it when an allocation fails)
        free = int(cp.cuda.Device().mem_info[0]) + cp.get_default_memory_pool().free_bytes()
        # the longest sides bound every pair's flags from above under any tile
        both = (m > 0) & (n > 0)
        tiles = _gpu_backend._tiles(scoring[0])
        if len(m) and _most_flag_bytes(m.max(), n.max(), tiles) <= free // 4:
            fits = np.ones(len(m), dtype=bool)
        else:
            fits = _most_flag_bytes(m, n, tiles) <= free // 4
        on_device = both & fits
        # the usual case, every pair on the device, takes views rather than gathers (those
        # of a million pairs took 14 ms)
        every = bool(on_device.all())
        gpu = slice(None) if every else np.flatnonzero(on_device)
        count = len(m) if every else len(gpu)
        if count:
            # only the residues these pairs touch go to the device (as for scores)
            spans = _gpu_backend._spans(queries, targets, q_index, t_index, tuple(firsts), m, n)
            _align_on_device(
                cp,
                spans.sources,
                (spans.q_offsets - spans.q_shift)[gpu],
                (spans.t_offsets - spans.t_shift)[gpu],
                m[gpu],
                n[gpu],
                base + np.arange(len(m))[gpu],
                *scoring,
                min(_MAX_CHUNK_FLAG_BYTES, free // 3),
                out,
                parts,
                marks,
            )
    return np.zeros(0, dtype=np.int64) if every else np.flatnonzero(both & ~fits)


def _align_on_device(
    cp: Any,
    sources: list[np.ndarray],
    q_start: np.ndarray,
    t_start: np.ndarray,
    m: np.ndarray,
    n: np.ndarray,
    positions: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    budget: int,
    out: np.ndarray,
    parts: list[tuple[np.ndarray, Cigars]],
    marks: list[tuple[str, Any]] | None,
) -> None:
    """Align pairs (every side non-empty) on the current device: fields into ``out`` at
    ``positions``, CIGARs appended to ``parts`` (see :func:`_fields_on_device`)."""
    first = int(positions[0])
    consecutive = int(positions[-1]) - first == len(positions) - 1  # (they increase)
    rows = out.T[:, first : first + len(positions)]
    # the fresh pages of these rows of ``out``, faulted in on a gather thread while the
    # device works rather than by the fields' copy after the last kernel
    touched = pool("gather").submit(rows.fill, 0) if consecutive else None
    try:
        host = _fields_on_device(
            cp, sources, q_start, t_start, m, n, positions, matrix, mode, gap_open, gap_extend,
            budget, parts, marks,
        )  # fmt: skip
    finally:
        if touched is not None:
            wait([touched])  # a rerun in halves must not find it still writing
    if consecutive:
        # each field widened on a thread of its own (numpy's casts release the interpreter
        # lock): all eight on one thread took 12 ms for a million pairs
        gather = pool("gather")
        wait(
            [gather.submit(np.copyto, row, values) for row, values in zip(rows, host, strict=True)]
        )
    else:
        out.T[:, positions] = host


def _fields_on_device(
    cp: Any,
    sources: list[np.ndarray],
    q_start: np.ndarray,
    t_start: np.ndarray,
    m: np.ndarray,
    n: np.ndarray,
    positions: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    budget: int,
    parts: list[tuple[np.ndarray, Cigars]],
    marks: list[tuple[str, Any]] | None,
) -> np.ndarray:
    """Align pairs (every side non-empty) on the current device: returns their (8, pairs)
    int32 fields in pinned memory, and appends their CIGARs to ``parts``. A pair's residues
    start at ``q_start`` and ``t_start`` in ``sources`` laid end to end; they go to the device
    on the copy threads (``_gpu_backend._Upload``) while the pairs are planned. The walk
    writes each pair's fields into one column-major device array of the device's pairs,
    copied once at the end."""
    affine = gap_open != gap_extend
    device = cp.cuda.runtime.getDevice()
    upload = _gpu_backend._Upload(cp, device, sources, _gpu_backend._COPY_THREADS)
    launches = _gpu_backend._plan(m, n, matrix, gap_open, gap_extend, "auto", table=False)
    names = {fill_name(mode, affine, x.kernel_lane, x.columns, x.group) for x in launches}
    module = cuda.compile_module(
        "seqwarp.align", "align_trace.cu", [*sorted(names), walk_name(mode), _PACK]
    )
    walk = module.function(walk_name(mode))
    pack = module.function(_PACK)
    stream, copies = thread_streams(cp, device, 2)
    with stream:  # the kernels' stream (a non-blocking one: it would not wait for the default)
        device_matrix = cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32))
    fields = cp.empty((_FIELDS, len(m)), dtype=np.int32)
    flags = None
    pending: _Pending | None = None
    # the first chunks small and each next one twice as large, so that the first kernels wait
    # only for their own residues rather than for every pair's
    most = _gpu_backend._LEAD_PAIRS
    with stream:
        for launch in launches:
            fill = module.function(
                fill_name(mode, affine, launch.kernel_lane, launch.columns, launch.group)
            )
            # a launch of consecutive pairs (the usual case) is sliced: views, not gathers
            pairs = _sliced(launch.pairs)
            sizes = flag_bytes(m[pairs], n[pairs], launch.columns, launch.group)
            total = np.cumsum(sizes)
            a = 0
            while a < len(launch.pairs):
                b = _chunk_end(total, a, budget, most)
                chunk = _part(pairs, a, b)
                need = int(sizes[a:b].sum())
                if most < _MAX_CHUNK_PAIRS:
                    q_end = int((q_start[chunk] + m[chunk]).max())
                    t_end = int((t_start[chunk] + n[chunk]).max())
                    upload.wait(stream, _residues_needed(sources, q_end, t_end))
                    most *= 2
                else:
                    upload.wait(stream, [len(x) for x in sources])
                try:
                    if flags is None or flags.size < need:
                        flags = None
                        flags = cp.empty(need, dtype=np.uint8)
                    queued = _run_chunk(
                        cp,
                        (fill, walk, pack),
                        launch,
                        chunk,
                        positions[chunk],
                        upload.codes,
                        (q_start, t_start, m, n),
                        sizes[a:b],
                        (flags, fields),
                        (device_matrix, matrix.shape[0], gap_open, gap_extend),
                        stream,
                        marks,
                    )
                except cp.cuda.memory.OutOfMemoryError:
                    # a smaller chunk, after what is queued has finished
                    stream.synchronize()
                    flags = None
                    cp.get_default_memory_pool().free_all_blocks()
                    if b - a == 1:
                        raise
                    budget = max(1, need // 2)
                    continue
                if pending is not None:
                    parts.append(_collect(cp, pending, copies))
                pending = queued
                a = b
    if pending is not None:
        parts.append(_collect(cp, pending, copies))
    upload.join()
    return _pinned_copy(cp, fields, stream)


def _chunk_end(total: np.ndarray, start: int, budget: int, most: int) -> int:
    """End of the chunk starting at ``start``: as many pairs as the flag budget allows (at
    least one, at most ``most``); ``total``: the running total of the pairs' flag bytes (one
    sum a launch: a sum a chunk took 15 ms of a million-pair call)."""
    before = int(total[start - 1]) if start else 0
    end = int(np.searchsorted(total, before + budget, side="right"))
    return start + max(1, min(end - start, most))


def _residues_needed(sources: list[np.ndarray], q_end: int, t_end: int) -> list[int]:
    """Bytes of each source, from its start, that hold the residues before positions
    ``q_end`` and ``t_end`` of the sources laid end to end, as on the device (one source for
    queries and targets, or the queries' source and then the targets')."""
    if len(sources) == 1:
        return [max(q_end, t_end)]
    return [q_end, t_end - len(sources[0])]


def _sliced(index: np.ndarray) -> slice | np.ndarray:
    """``index`` as a slice when it is ``first, first + 1, ...`` (then it takes views)."""
    if len(index) and is_consecutive(index):
        return slice(int(index[0]), int(index[0]) + len(index))
    return index


def _part(index: slice | np.ndarray, a: int, b: int) -> slice | np.ndarray:
    """Entries ``a:b`` of an index that :func:`_sliced` gave."""
    if isinstance(index, slice):
        return slice(index.start + a, index.start + b)
    return index[a:b]


def _run_chunk(
    cp: Any,
    kernels: tuple[Any, Any, Any],
    launch: _gpu_backend._Launch,
    chunk: slice | np.ndarray,
    positions: np.ndarray,
    codes: Any,
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    sizes: np.ndarray,
    buffers: tuple[Any, Any],
    scoring: tuple[Any, int, int, int],
    stream: Any,
    marks: list[tuple[str, Any]] | None,
) -> _Pending:
    """Queue one chunk's forward pass, walk and packing (``kernels``) on ``stream``; ``pairs``
    holds every pair's residue starts and lengths, ``buffers`` the flags and the device's
    (8, pairs) fields (the walk writes column ``chunk[k]`` of them for the chunk's pair k;
    ``chunk``: the pairs' indices, or a slice of them), ``scoring`` the device matrix,
    alphabet size and gap penalties."""
    fill, walk, pack = kernels
    flags, fields = buffers
    q_start, t_start, m, n = pairs
    matrix, alpha, gap_open, gap_extend = scoring
    cm, cn = m[chunk], n[chunk]
    count = len(cm)
    # the per-pair arguments in two pinned buffers, each copied in one transfer (seven copies
    # from pageable arrays took 8 ms for a million pairs)
    wide = _gpu_backend._pinned(cp, np.int64, (5 * count + 1,))
    narrow = _gpu_backend._pinned(cp, np.int32, (2 * count,))
    wide[:count] = q_start[chunk]
    wide[count : 2 * count] = t_start[chunk]
    wide[2 * count : 3 * count] = (
        np.arange(chunk.start, chunk.stop) if isinstance(chunk, slice) else chunk
    )
    flag_offset, text_offset = wide[3 * count : 4 * count], wide[4 * count :]
    flag_offset[0] = text_offset[0] = 0
    np.cumsum(sizes[:-1], out=flag_offset[1:])
    # each pair's CIGAR in 2 (m + n) bytes, in whole 4-byte words (the walk stores words)
    np.cumsum((2 * (cm + cn) + 3) & ~3, out=text_offset[1:])
    narrow[:count], narrow[count:] = cm, cn
    d_wide = cp.empty(wide.shape, dtype=np.int64)
    d_narrow = cp.empty(narrow.shape, dtype=np.int32)
    d_wide.set(wide, stream=stream)
    d_narrow.set(narrow, stream=stream)
    d_q, d_t, d_slot = d_wide[:count], d_wide[count : 2 * count], d_wide[2 * count : 3 * count]
    d_flag_offset, d_text_offset = d_wide[3 * count : 4 * count], d_wide[4 * count :]
    d_m, d_n = d_narrow[:count], d_narrow[count:]
    ends = cp.empty((count, 3), dtype=np.int32)
    text = cp.empty(max(1, int(text_offset[-1])), dtype=np.uint8)
    packed = cp.empty_like(text)
    lengths = cp.empty(count, dtype=np.int32)
    offsets = cp.zeros(count + 1, dtype=np.int64)

    grid = _gpu_backend._Grid.of(launch, count, int(cm.max()), int(cn.max()), alpha)
    grid.configure(fill)
    scratch = cp.empty(grid.scratch, dtype=np.uint32)
    _mark(marks, "start", stream)
    fill(
        (grid.blocks,),
        (_BLOCK,),
        (
            codes,
            d_q,
            d_m,
            d_t,
            d_n,
            np.int32(count),
            matrix,
            np.int32(alpha),
            np.int32(gap_open),
            np.int32(gap_extend),
            scratch,
            np.int64(grid.stride),
            ends,
            flags,
            d_flag_offset,
        ),
        shared_mem=grid.shared,
    )
    _mark(marks, "fill", stream)
    threads = (-(-count // _BLOCK),), (_BLOCK,)
    walk(
        *threads,
        (
            codes,
            d_q,
            d_t,
            np.int32(count),
            flags,
            d_flag_offset,
            d_m,
            np.int32(launch.columns),
            np.int32(launch.group),
            matrix,
            np.int32(alpha),
            np.int32(gap_open),
            np.int32(gap_extend),
            ends,
            text,
            d_text_offset,
            lengths,
            d_slot,
            np.int64(fields.shape[1]),
            fields,
        ),
    )
    _mark(marks, "walk", stream)
    offsets[1:] = cp.cumsum(lengths, dtype=np.int64)
    pack(*threads, (text, d_text_offset, lengths, offsets, np.int32(count), packed))
    _mark(marks, "pack", stream)
    alive = (wide, narrow, d_wide, d_narrow, ends, text, lengths, scratch)
    return _Pending(positions, offsets, packed, stream.record(), alive)


def _mark(marks: list[tuple[str, Any]] | None, phase: str, stream: Any) -> None:
    """Record an event on ``stream`` after ``phase`` when the caller asked for marks."""
    if marks is not None:
        marks.append((phase, stream.record()))


def _collect(cp: Any, pending: _Pending, copies: Any) -> tuple[np.ndarray, Cigars]:
    """Copy a chunk's CIGARs to the host on the ``copies`` stream once its kernels are done;
    returns its (positions, CIGARs)."""
    copies.wait_event(pending.done)
    offsets = _pinned_copy(cp, pending.offsets, copies).copy()
    text = _pinned_copy(cp, pending.text[: int(offsets[-1])], copies)
    return pending.positions, Cigars.from_bytes(text, offsets)


def _pinned_copy(cp: Any, array: Any, stream: Any) -> np.ndarray:
    """``array`` copied to the host on ``stream`` through pinned memory (a copy to pageable
    memory ran at a few GB/s: a million pairs' fields and CIGARs took 33 ms). The result
    holds its pinned block, returned to CuPy's pool when it is dropped."""
    host = _gpu_backend._pinned(cp, array.dtype, array.shape)
    array.get(stream=stream, out=host, blocking=False)
    stream.synchronize()
    return host
