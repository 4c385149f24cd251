"""The timed measurements of ``python -m seqwarp.bench align-gpu``, each checked as taken.

One function per kind of workload (score-only pairs, traceback, all pairs, protein search)
times it and returns its result rows: the kernels alone with CUDA events around pre-staged
launches, whole calls with the wall clock, each the median of the repeats after a warm-up.
Every result is compared with the int32 kernel and a sample with the CPU backend, so that no
speed is reported for wrong answers. :func:`instruction_rates` measures the DP instructions'
own rates (``kernels/microbench.cu``), to set beside the ceilings in ``CEILING``. CuPy is
imported only inside the functions that use the device.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from functools import partial

import numpy as np

from ..align import Aligner, _cpu_backend, _gpu_backend, _gpu_traceback
from ..align._pools import thread_streams
from ..align.plan import cross_product_blocks
from ..scoring import Scoring
from ..sequences import SequenceBatch
from .align_gpu_plan import GAPS, Workload, dna_scoring
from .held_marks import HeldPhaseMarks
from .report import median_seconds

__all__ = [
    "CEILING",
    "instruction_rates",
    "launch_breakdown",
    "measure_all_pairs",
    "measure_protein",
    "measure_score",
    "measure_traceback",
    "row_identity",
]

# lane ops per cell in align_score.cu, by (gap model, lane type), global/semi-global; local
# adds one for half2 (the relu is fused for DPX and int32, a separate max for half2)
_OPS_PER_CELL = {
    ("linear", "s16x2"): 3,
    ("affine", "s16x2"): 5,
    ("linear", "half2"): 4,
    ("affine", "half2"): 8,
    ("linear", "s32"): 3,
    ("affine", "s32"): 5,
    # the fused lanes in the anti-diagonal offset form (global and semi-global; rebased too)
    ("linear", "offset"): 2,
    ("affine", "offset"): 4,
}
# ceilings in lane ops per second on the H200 (DESIGN.md)
CEILING = {"s16x2": 32e12, "half2": 64e12, "s32": 16e12}
# the CPU check takes at most this many cells per workload
_CHECK_CELLS = 4_000_000_000


# --- timing ---------------------------------------------------------------------------------


def _time_kernels(staged: list[_gpu_backend.Staged], repeats: int) -> float:
    """Median seconds of one pass over every staged launch (CUDA events, after a warm-up),
    each on the stream a score call queues it on (``_gpu_backend.StreamTurns``: the split
    launches on streams of their own, the other chunks on the call's streams in turn, so
    that one chunk's tail overlaps the next chunk's start as in the engine)."""
    import cupy as cp

    kinds = [(launch.kernel_lane, *launch.shape) for launch in staged]
    split = {kind for kind, launch in zip(kinds, staged, strict=True) if launch.shape[2] > 1}
    turns = _gpu_backend.StreamTurns(split)
    slots = [turns.slot(kind) for kind in kinds]
    streams = thread_streams(cp, cp.cuda.Device().id, turns.streams)
    first, others = streams[0], streams[1:]

    def one_pass() -> tuple[object, object]:
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record(first)
        for stream in others:
            stream.wait_event(start)
        for launch, slot in zip(staged, slots, strict=True):
            with streams[slot]:
                launch.launch()
        for stream in others:
            first.wait_event(stream.record())
        stop.record(first)
        return start, stop

    one_pass()[1].synchronize()
    times = []
    for _ in range(repeats):
        start, stop = one_pass()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def launch_breakdown(
    staged: Sequence[_gpu_backend.Staged], seconds: Sequence[float], m: np.ndarray, n: np.ndarray
) -> list[dict]:
    """Where a call's kernel time goes: per kind of launch (kernel lane and shape: threads a
    group, columns a thread, warps and blocks a pair set), the seconds of its launches each
    run alone, its pairs, cells and longest target, the slowest kind first. ``m`` and ``n``:
    the query and target lengths by pair."""
    kinds: dict[tuple, dict] = {}
    for launch, took in zip(staged, seconds, strict=True):
        group, columns, split, cluster = launch.shape
        key = (launch.kernel_lane, *launch.shape)
        kind = kinds.setdefault(
            key,
            {
                "kernel_lane": launch.kernel_lane,
                "tile": f"{group}x{columns}",
                "split": split,
                "cluster": cluster,
                "launches": 0,
                "pairs": 0,
                "cells": 0,
                "longest_target": 0,
                "registers": int(launch.kernel.num_regs),
                "seconds_alone": 0.0,
            },
        )
        kind["launches"] += 1
        kind["pairs"] += len(launch.pairs)
        kind["cells"] += int(np.sum(m[launch.pairs] * n[launch.pairs]))
        kind["longest_target"] = max(kind["longest_target"], int(n[launch.pairs].max(initial=0)))
        kind["seconds_alone"] += took
    for kind in kinds.values():
        kind["tcups_alone"] = kind["cells"] / kind["seconds_alone"] / 1e12
    return sorted(kinds.values(), key=lambda kind: -kind["seconds_alone"])


def kind_line(kind: dict) -> str:
    """One kind of launch of :func:`launch_breakdown`, as the benchmark and its A/B tool print
    it: time and rate alone, kernel lane and shape, pairs, longest target, registers."""
    return (
        f"{kind['seconds_alone'] * 1e3:8.2f} ms alone, {kind['tcups_alone']:.3f} TCUPS: "
        f"{kind['kernel_lane']} {kind['tile']}, {kind['split']} warps x {kind['cluster']} "
        f"blocks a pair set, {kind['pairs']} pairs up to {kind['longest_target']} "
        f"columns, {kind['registers']} registers"
    )


def _results(staged: list[_gpu_backend.Staged], pairs: int) -> np.ndarray:
    """Run every staged launch once and gather the results in pair order."""
    out = np.empty((pairs, 3), dtype=np.int64)
    for launch in staged:
        launch.launch()
    for launch in staged:
        out[launch.pairs] = launch.result()
    return out


def _sample(
    queries: SequenceBatch, targets: SequenceBatch, q: np.ndarray, t: np.ndarray, check: int
):
    """The first pairs, at most ``check`` and ``_CHECK_CELLS`` cells (at least one)."""
    cells = np.cumsum(queries.lengths[q[:check]] * targets.lengths[t[:check]])
    keep = max(1, int(np.searchsorted(cells, _CHECK_CELLS, side="right")))
    return q[:keep], t[:keep]


def _cpu_scores(work: Workload, q: np.ndarray, t: np.ndarray) -> np.ndarray:
    s = work.scoring
    return _cpu_backend.score(
        work.queries, work.targets, q, t, s.matrix, work.mode, s.gap_open, s.gap_extend
    )


def _equal_rows(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.sum(np.all(a == b, axis=1))) if a.ndim == 2 else int(np.sum(a == b))


def measure_score(
    work: Workload,
    lanes: Sequence[str],
    repeats: int,
    check: int,
    tiles: Sequence[tuple[int, int]] = (),
    per_launch: bool = False,
) -> tuple[list[dict], np.ndarray]:
    """Time every lane type (and, for the first lane, each of ``tiles`` in place of the
    default tile), checking each result against the int32 kernel and the CPU; returns the
    rows and the int32 kernel's results. ``per_launch``: the first lane's row also says where
    its kernel time goes (``launches``: :func:`launch_breakdown`). Local kernels run as a
    score call runs them, without finding the end cells (``ends=False``), and are checked
    on their scores."""
    s = work.scoring
    index = np.arange(len(work.queries), dtype=np.int64)
    args = (work.queries, work.targets, index, index, s.matrix, work.mode, s.gap_open, s.gap_extend)
    aligner = Aligner(work.mode, s, device="gpu")
    exact = _results(_gpu_backend.stage(*args, lanes="s32"), len(index))
    q, t = _sample(work.queries, work.targets, index, index, check)
    cpu_equal = _equal_rows(_cpu_scores(work, q, t), exact[q])
    rows = []
    variants = [(lane, None) for lane in lanes] + [(lanes[0], tile) for tile in tiles]
    ends = work.mode != "local"  # the other modes find their end cells at no cost
    kept = slice(None) if ends else slice(0, 1)
    for lane, tile in variants:
        shape = None if tile is None else (tile,)
        staged = _gpu_backend.stage(*args, lanes=lane, tiles=shape, ends=ends)
        seconds = _time_kernels(staged, repeats)
        values = _results(staged, len(index))
        engine = whole = float("nan")
        equal = _equal_rows(values[:, kept], exact[:, kept])
        if tile is None:
            call = partial(_gpu_backend.score, *args, lanes=lane, ends=ends)
            engine, answer = median_seconds(call, repeats)
            equal = min(equal, _equal_rows(answer[:, kept], exact[:, kept]))
            if lane == lanes[0]:  # the public call uses the default lanes
                whole, result = median_seconds(
                    partial(aligner.align_indexed, *args[:4], "score"), repeats
                )
                equal = min(equal, _equal_rows(result.score, exact[:, 0]))
        ran = [x.kernel_lane for x in staged if x.lane == lane]
        # the rebased lane is the offset form too
        form = "offset" if ran and all(k.endswith(("-offset", "-rebased")) for k in ran) else lane
        ops = _OPS_PER_CELL[(s.gap_model, form)] + (work.mode == "local" and lane == "half2")
        tcups = work.cells / seconds / 1e12
        rows.append(
            {
                **row_identity(work, "score"),
                "lane": lane,
                "tile": "default" if tile is None else f"{tile[0]}x{tile[1]}",
                "kernel_seconds": seconds,
                "tcups_kernel": tcups,
                "tcups_engine": work.cells / engine / 1e12,
                "tcups_end_to_end": work.cells / whole / 1e12,
                "ops_per_cell": ops,
                "fraction_of_ceiling": tcups * 1e12 * ops / CEILING[lane],
                "pairs_in_lane": sum(len(x.pairs) for x in staged if x.lane == lane),
                "end_cells": ends,
                "registers": max(x.kernel.num_regs for x in staged),
                "warps_per_sm": min(x.blocks_per_sm() * x.threads // 32 for x in staged),
                "equal_to_int32_kernel": equal,
                "checked_against_cpu": len(q),
                "equal_to_cpu": cpu_equal,
            }
        )
        if per_launch and tile is None and lane == lanes[0]:
            m, n = np.asarray(work.queries.lengths), np.asarray(work.targets.lengths)
            alone = [_time_kernels([launch], repeats) for launch in staged]
            rows[-1]["launches"] = launch_breakdown(staged, alone, m, n)
        del staged
    return rows, exact


def row_identity(work: Workload, output: str) -> dict[str, object]:
    """The fields that name a result row of ``work`` with ``output`` ("score" or "cigar")."""
    return {
        "workload": work.name if output == "score" else work.name.replace("short-", "traceback-"),
        "family": work.family if output == "score" else "traceback",
        "length": work.length,
        "mode": work.mode,
        "gap": work.gap,
        "output": output,
        "pairs": len(work.queries),
        "cells": work.cells,
    }


def measure_traceback(
    work: Workload, pairs: int, repeats: int, check: int, exact: np.ndarray
) -> dict:
    """The public call with CIGAR output on the first ``pairs`` pairs: end to end, its
    scores and ends checked against the int32 kernel, a sample against the CPU backend."""
    s = work.scoring
    part = Workload(
        work.name,
        work.family,
        work.length,
        work.queries[:pairs],
        work.targets[:pairs],
        s,
        work.mode,
    )
    index = np.arange(pairs, dtype=np.int64)
    aligner = Aligner(work.mode, s, device="gpu")
    seconds, result = median_seconds(
        partial(aligner.align_indexed, part.queries, part.targets, index, index, "cigar"), repeats
    )
    ends = np.stack([result.score, result.query_end, result.target_end], axis=1)
    q, t = _sample(part.queries, part.targets, index, index, check)
    fields, cigars = _cpu_backend.align(
        part.queries, part.targets, q, t, s.matrix, work.mode, s.gap_open, s.gap_extend
    )
    mine = np.stack(
        [
            result.score,
            result.query_begin,
            result.query_end,
            result.target_begin,
            result.target_end,
        ],
        axis=1,
    )[q]
    same = np.all(mine == fields[:, :5], axis=1) & np.array(
        [result.cigar[k] == c for k, c in zip(q, cigars, strict=True)]
    )
    phases = _traceback_kernel_seconds(part, index, repeats)
    return {
        **row_identity(part, "cigar"),
        "lane": "auto",
        "tile": "default",
        "tcups_kernel": part.cells / sum(phases.values()) / 1e12,
        **{f"seconds_{phase}": value for phase, value in phases.items()},
        "tcups_end_to_end": part.cells / seconds / 1e12,
        "seconds_end_to_end": seconds,
        "equal_to_int32_kernel": _equal_rows(ends, exact[:pairs]),
        "checked_against_cpu": len(q),
        "equal_to_cpu": int(same.sum()),
    }


def _traceback_kernel_seconds(part: Workload, index: np.ndarray, repeats: int) -> dict:
    """Median seconds of each traceback kernel phase (forward with flags, walk, packing) over
    ``repeats`` calls, from CUDA events between the kernels of chunks that run back to back
    (:class:`HeldPhaseMarks`: no wait for the host's launches counts)."""
    import cupy as cp

    s = part.scoring
    runs = []
    for _ in range(repeats):
        marks = HeldPhaseMarks()
        _gpu_traceback.align(
            part.queries,
            part.targets,
            index,
            index,
            s.matrix,
            part.mode,
            s.gap_open,
            s.gap_extend,
            marks=marks,
        )
        cp.cuda.get_current_stream().synchronize()
        runs.append(marks.seconds())
    return {phase: statistics.median(r[phase] for r in runs) for phase in runs[0]}


def measure_all_pairs(
    reads: SequenceBatch, length: int, mode: str, gap: str, repeats: int, check: int, seed: int
) -> dict:
    """Every read against every read through ``Aligner.score_matrix``, and the kernels alone
    on its first block of pairs (staged by the indexed path: the kernels, lanes and tiles
    that the call's cross path runs, local scores without ends, in the indexed path's order
    of pairs)."""
    s = dna_scoring(gap)
    aligner = Aligner(mode, s, device="gpu")
    seconds, scores = median_seconds(partial(aligner.score_matrix, reads, reads), repeats)
    n = len(reads)
    equal, kernel_pairs, kernel_cells, kernel_seconds = 0, 0, 0.0, 0.0
    ran: set[str] = set()  # the kernel lanes of the first block
    for block in cross_product_blocks(n, n, 1 << 22):
        q_index, t_index = block.q_index, block.t_index  # made at each access
        args = (reads, reads, q_index, t_index, s.matrix, mode, *GAPS[gap])
        exact = _gpu_backend.score(*args, lanes="s32")
        equal += int(np.sum(block.grid(exact[:, 0]) == scores[block.queries, block.targets]))
        if kernel_cells == 0:
            staged = _gpu_backend.stage(*args, ends=False)
            kernel_seconds = _time_kernels(staged, repeats)
            ran = {x.kernel_lane for x in staged}
            lengths = reads.lengths.astype(np.float64)
            kernel_cells = float(np.sum(lengths[q_index] * lengths[t_index]))
            kernel_pairs = len(q_index)
            del staged
    rng = np.random.default_rng(seed)
    q = rng.integers(0, n, size=min(check, n * n))
    t = rng.integers(0, n, size=len(q))
    cpu = _cpu_backend.score(reads, reads, q, t, s.matrix, mode, *GAPS[gap])
    cells = int(reads.lengths.sum()) ** 2
    offset = all(lane.endswith(("-offset", "-rebased")) for lane in ran)
    ops = _OPS_PER_CELL[(gap, "offset" if offset else "s16x2")]
    return {
        "workload": f"allpairs-{length}-{mode}-{gap}",
        "family": "allpairs",
        "length": length,
        "mode": mode,
        "gap": gap,
        "output": "score",
        "lane": "auto",
        "tile": "default",
        "reads": n,
        "pairs": n * n,
        "cells": cells,
        "tcups_kernel": kernel_cells / kernel_seconds / 1e12,
        "kernel_pairs": kernel_pairs,
        "kernel_lanes": sorted(ran),
        "ops_per_cell": ops,
        "fraction_of_ceiling": kernel_cells / kernel_seconds * ops / CEILING["s16x2"],
        "tcups_end_to_end": cells / seconds / 1e12,
        "seconds_end_to_end": seconds,
        "equal_to_int32_kernel": equal,
        "checked_against_cpu": len(q),
        "equal_to_cpu": int(np.sum(cpu[:, 0] == scores[q, t])),
    }


def measure_protein(
    queries: SequenceBatch, db: SequenceBatch, repeats: int, check: int
) -> tuple[dict, np.ndarray]:
    """Every query against the database: the kernels alone (staged one query at a time, so
    the device holds one query's chunks) and the public ``score_matrix``; returns the row
    and the ``(queries, database)`` scores of the int32 kernel."""
    s = Scoring.blosum62(11, 1)
    nq, nd = len(queries), len(db)
    targets = np.arange(nd, dtype=np.int64)
    exact = np.empty((nq, nd), dtype=np.int64)
    per_query: list[float] = []
    equal, lanes, registers = 0, 0, 0
    for k in range(nq):
        index = np.full(nd, k, dtype=np.int64)
        args = (queries, db, index, targets, s.matrix, "local", s.gap_open, s.gap_extend)
        wide = _results(_gpu_backend.stage(*args, lanes="s32"), nd)
        staged = _gpu_backend.stage(*args, lanes="s16x2", ends=False)  # as score_matrix runs
        per_query.append(_time_kernels(staged, repeats))
        equal += _equal_rows(_results(staged, nd)[:, 0], wide[:, 0])
        lanes += sum(len(x.pairs) for x in staged if x.lane == "s16x2")
        registers = max(registers, *(x.kernel.num_regs for x in staged))
        exact[k] = wide[:, 0]
        del staged
    aligner = Aligner("local", s, device="gpu")
    whole, scores = median_seconds(partial(aligner.score_matrix, queries, db), repeats)
    equal = min(equal, int(np.sum(scores == exact)))
    sampled = min(nd, max(1, check // nq))
    q_sample = np.repeat(np.arange(nq, dtype=np.int64), sampled)
    t_sample = np.tile(np.arange(sampled, dtype=np.int64), nq)
    cpu = _cpu_backend.score(queries, db, q_sample, t_sample, s.matrix, "local", 11, 1)
    cells = int(queries.lengths.sum()) * db.total_length
    seconds = sum(per_query)
    tcups = cells / seconds / 1e12
    row = {
        "workload": f"protein-{nd}-local-affine",
        "family": "protein",
        "length": 0,
        "mode": "local",
        "gap": "affine",
        "output": "score",
        "lane": "s16x2",
        "tile": "default",
        "queries": [int(x) for x in queries.lengths],
        "tcups_kernel_by_query": [
            int(m) * db.total_length / t / 1e12
            for m, t in zip(queries.lengths, per_query, strict=True)
        ],
        "database_sequences": nd,
        "database_residues": db.total_length,
        "pairs": nq * nd,
        "cells": cells,
        "kernel_seconds": seconds,
        "tcups_kernel": tcups,
        "tcups_end_to_end": cells / whole / 1e12,
        "fraction_of_ceiling": tcups * 1e12 * _OPS_PER_CELL[("affine", "s16x2")] / CEILING["s16x2"],
        "pairs_in_lane": lanes,
        "registers": registers,
        "equal_to_int32_kernel": equal,
        "checked_against_cpu": len(q_sample),
        "equal_to_cpu": int(np.sum(cpu[:, 0] == exact[q_sample, t_sample])),
    }
    return row, exact


# --- instruction rates ------------------------------------------------------------------------


def instruction_rates() -> dict[str, float]:
    """Lane ops per second of the DP instructions, from kernels/microbench.cu."""
    import cupy as cp

    from .. import cuda

    names = {
        "dpx_s16x2_addmax": "seqwarp::op_rate<0>",
        "half2_add_then_max": "seqwarp::op_rate<1>",
        "s32_addmax": "seqwarp::op_rate<2>",
        "s16x2_vadd2": "seqwarp::op_rate<3>",
    }
    module = cuda.compile_module("seqwarp.align", "microbench.cu", list(names.values()))
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    blocks, threads, steps = sms * 16, 256, 1 << 14
    out = cp.zeros(blocks * threads, dtype=np.uint32)
    rates = {}
    for label, name in names.items():
        kernel = module.function(name)
        kernel((blocks,), (threads,), (out, np.int32(steps)))
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((blocks,), (threads,), (out, np.int32(steps)))
        stop.record()
        stop.synchronize()
        seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
        # 8 chains x steps x instructions per step; two lanes per instruction, int32 one
        per_step = 2 if label.startswith("half2") else 1
        lanes = 1 if label.startswith("s32") else 2
        rates[label] = blocks * threads * 8 * steps * per_step * lanes / seconds
    return rates
