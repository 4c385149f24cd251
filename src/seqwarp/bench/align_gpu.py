"""GPU alignment throughput: ``python -m seqwarp.bench align-gpu [options]``.

Workloads follow the AnySeq/GPU and GASAL2 evaluations: DNA pairs of one length (512 bp and
125 bp), each read simulated from a random genome with about 5 % mutations (substitutions,
insertions, deletions) and aligned with the genome window it came from; match +2, mismatch -1,
linear gaps (1) or affine gaps (open 2, extend 1: a gap of length k costs 2 + (k - 1));
global, semi-global and local; score and end cell only. Protein: random sequences over the 20
amino acids, about 20 % substituted, local BLOSUM62 with gaps 11/1.

Each workload is timed per lane type (DPX s16x2, half2, and int32 on request) with CUDA events
around the kernels alone, after a warm-up launch, as the median of ``--repeats`` runs; one
whole call is timed too (copies and planning included; median of ``--repeats`` after a
warm-up): ``engine`` is the backend's ``score``, ``e2e`` the public ``Aligner.align_indexed``
with ``output="ends"`` (default lanes only). Every run is checked: all
pairs against the int32 kernel, and ``--check`` pairs against the CPU backend.

Throughput is given in TCUPS (10^12 cell updates per second) and as a fraction of the lane's
ceiling on the H200 (seqwarp's DESIGN: half2 64 T half-lane ops/s, DPX s16x2 16 T instructions
/s = 32 T lane ops/s, int32 add+max 16 T/s), counting the DP operations per cell that the
kernel source performs (``_OPS_PER_CELL``). A small kernel also measures those instruction
rates directly (``kernels/microbench.cu``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from rich.console import Console

from .. import cuda
from ..align import Aligner, _cpu_backend, _gpu_backend
from ..alphabets import DNA, PROTEIN
from ..devices import resolve
from ..scoring import Scoring
from ..sequences import SequenceBatch
from .report import bar_chart, machine_info, print_table, result_stem, write_json

__all__ = ["main", "simulate"]

# lane ops per cell in align_score.cu, by (gap model, lane type), global/semi-global; local
# adds one (the relu is fused for DPX and int32, a separate max for half2)
_OPS_PER_CELL = {
    ("linear", "s16x2"): 3,
    ("affine", "s16x2"): 5,
    ("linear", "half2"): 4,
    ("affine", "half2"): 8,
    ("linear", "s32"): 3,
    ("affine", "s32"): 5,
}
# ceilings in lane ops per second on the H200 (DESIGN.md)
_CEILING = {"s16x2": 32e12, "half2": 64e12, "s32": 16e12}
_MODES = ("global", "semi-global", "local")


@dataclass(frozen=True)
class Workload:
    """A batch of pairs with its scoring."""

    name: str
    queries: SequenceBatch
    targets: SequenceBatch
    scoring: Scoring
    mode: str

    @property
    def cells(self) -> int:
        return int(np.sum(self.queries.lengths * self.targets.lengths))


def simulate(
    pairs: int, length: int, letters: int, rate: float, seed: int, alphabet=DNA
) -> tuple[SequenceBatch, SequenceBatch]:
    """Reads of ``length`` residues with mutations at ``rate`` (70 % substitutions, 15 %
    insertions, 15 % deletions) and the windows of a random genome they came from."""
    rng = np.random.default_rng(seed)
    genome = rng.integers(0, letters, size=max(1 << 20, 4 * length), dtype=np.uint8)
    starts = rng.integers(0, len(genome) - 2 * length, size=pairs)
    windows = np.lib.stride_tricks.sliding_window_view
    span = length + length // 8 + 16
    source = windows(genome, span)[starts]
    targets = source[:, :length].copy()
    r = rng.random(source.shape, dtype=np.float32)
    deleted = r < 0.15 * rate
    inserted = (r >= 0.15 * rate) & (r < 0.30 * rate)
    substituted = (r >= 0.30 * rate) & (r < rate)
    del r
    shift = rng.integers(1, letters, size=int(substituted.sum()), dtype=np.uint8)
    source[substituted] = (source[substituted] + shift) % letters
    counts = (1 + inserted.view(np.int8) - deleted.view(np.int8)).ravel()
    flat = np.repeat(source.ravel(), counts)
    second = np.cumsum(counts, dtype=np.int64)[inserted.ravel()] - 1
    flat[second] = rng.integers(0, letters, size=len(second), dtype=np.uint8)
    row_total = counts.reshape(pairs, span).sum(axis=1, dtype=np.int64)
    if int(row_total.min()) < length:
        raise ValueError("simulated source segment too short; raise the span")
    row_start = np.cumsum(row_total) - row_total
    reads = windows(flat, length)[row_start]
    offsets = np.arange(pairs + 1, dtype=np.int64) * length
    names = tuple(str(i) for i in range(pairs))
    return (
        SequenceBatch(np.ascontiguousarray(reads).ravel(), offsets, names, alphabet),
        SequenceBatch(np.ascontiguousarray(targets).ravel(), offsets.copy(), names, alphabet),
    )


def _workloads(args: argparse.Namespace) -> list[Workload]:
    dna = {
        "linear": Scoring.dna(match=2, mismatch=-1, gap_open=1, gap_extend=1),
        "affine": Scoring.dna(match=2, mismatch=-1, gap_open=2, gap_extend=1),
    }
    out = []
    for length, pairs in ((512, args.pairs_512), (125, args.pairs_125)):
        if pairs <= 0:
            continue
        queries, targets = simulate(pairs, length, 4, 0.05, seed=length)
        for mode in _MODES:
            for gap, scoring in dna.items():
                name = f"dna{length}-{mode}-{gap}"
                if args.only and not any(word in name for word in args.only):
                    continue
                out.append(Workload(name, queries, targets, scoring, mode))
    if args.pairs_protein > 0 and (not args.only or any("protein" in w for w in args.only)):
        queries, targets = simulate(args.pairs_protein, 512, 20, 0.2, seed=7, alphabet=PROTEIN)
        scoring = Scoring.from_matrix("BLOSUM62", gap_open=11, gap_extend=1)
        out.append(Workload("protein512-local-affine", queries, targets, scoring, "local"))
    return out


def _time_kernels(staged: list[_gpu_backend.Staged], repeats: int) -> float:
    """Median seconds of one pass over every staged launch (CUDA events, after a warm-up)."""
    import cupy as cp

    for launch in staged:
        launch.launch()
    cp.cuda.runtime.deviceSynchronize()
    times = []
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for launch in staged:
            launch.launch()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def _median_seconds(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall-clock seconds of ``call`` (after a warm-up call: compiles, pinned buffers)
    and its last answer."""
    answer = call()
    times = []
    for _ in range(max(1, repeats)):
        begin = time.perf_counter()
        answer = call()
        times.append(time.perf_counter() - begin)
    return statistics.median(times), answer


def _results(staged: list[_gpu_backend.Staged], pairs: int) -> np.ndarray:
    """Run every staged launch once and gather the results in pair order."""
    out = np.empty((pairs, 3), dtype=np.int64)
    for launch in staged:
        launch.launch()
    for launch in staged:
        out[launch.pairs] = launch.result()
    return out


def _measure(
    work: Workload,
    lanes: Sequence[str],
    repeats: int,
    check: int,
    tiles: Sequence[tuple[int, int]] = (),
) -> list[dict]:
    """Time every lane type (and, for the first lane, each of ``tiles`` in place of the
    default tile), checking each result against the int32 kernel and the CPU."""
    s = work.scoring
    index = np.arange(len(work.queries), dtype=np.int64)
    args = (work.queries, work.targets, index, index, s.matrix, work.mode, s.gap_open, s.gap_extend)
    aligner = Aligner(work.mode, s, device="gpu")
    exact = _results(_gpu_backend.stage(*args, lanes="s32"), len(index))
    sample = index[:check]
    cpu = _cpu_backend.score(
        work.queries, work.targets, sample, sample, s.matrix, work.mode, s.gap_open, s.gap_extend
    )
    cpu_equal = int(np.sum(np.all(cpu == exact[sample], axis=1)))
    rows = []
    variants = [(lane, None) for lane in lanes] + [(lanes[0], tile) for tile in tiles]
    for lane, tile in variants:
        staged = _gpu_backend.stage(*args, lanes=lane, tiles=None if tile is None else (tile,))
        seconds = _time_kernels(staged, repeats)
        values = _results(staged, len(index))
        if tile is None:
            engine, answer = _median_seconds(
                partial(_gpu_backend.score, *args, lanes=lane), repeats
            )
            equal = int(np.sum(np.all(answer == exact, axis=1)))
            whole = float("nan")
            if lane == "s16x2":  # the public call uses the default lanes
                whole, ends = _median_seconds(
                    partial(aligner.align_indexed, *args[:4], "ends"), repeats
                )
                equal = min(equal, int(np.sum(ends.score == exact[:, 0])))
        else:
            engine = whole = float("nan")
            equal = -1
        narrow = sum(len(x.pairs) for x in staged if x.lane == lane)
        ops = _OPS_PER_CELL[(s.gap_model, lane)] + (work.mode == "local" and lane == "half2")
        tcups = work.cells / seconds / 1e12
        rows.append(
            {
                "workload": work.name,
                "mode": work.mode,
                "gap": s.gap_model,
                "lane": lane,
                "tile": "default" if tile is None else f"{tile[0]}x{tile[1]}",
                "pairs": len(index),
                "cells": work.cells,
                "kernel_seconds": seconds,
                "tcups_kernel": tcups,
                "tcups_end_to_end": work.cells / whole / 1e12,
                "tcups_engine": work.cells / engine / 1e12,
                "end_to_end_of_kernel": seconds / whole,
                "ops_per_cell": ops,
                "fraction_of_ceiling": tcups * 1e12 * ops / _CEILING[lane],
                "pairs_in_lane": narrow,
                "registers": max(x.kernel.num_regs for x in staged),
                "warps_per_sm": min(x.blocks_per_sm() for x in staged) * 4,
                "equal_to_int32_kernel": int(np.sum(np.all(values == exact, axis=1))),
                "whole_call_equal_to_int32_kernel": equal,
                "checked_against_cpu": len(sample),
                "equal_to_cpu": cpu_equal,
            }
        )
    return rows


def _instruction_rates() -> dict[str, float]:
    """Lane ops per second of the DP instructions, from kernels/microbench.cu."""
    import cupy as cp

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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m seqwarp.bench align-gpu", description=__doc__)
    parser.add_argument("--pairs-512", type=int, default=200_000)
    parser.add_argument("--pairs-125", type=int, default=1_000_000)
    parser.add_argument("--pairs-protein", type=int, default=100_000)
    parser.add_argument(
        "--lanes", nargs="+", default=["s16x2", "half2"], choices=_gpu_backend.LANES[1:]
    )
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--tiles",
        nargs="*",
        default=[],
        help="extra tiles GxK (threads per group x columns per thread) to time on every workload",
    )
    parser.add_argument(
        "--check", type=int, default=2000, help="pairs per workload checked against the CPU"
    )
    parser.add_argument(
        "--only", nargs="*", default=[], help="run workloads whose name contains a word"
    )
    parser.add_argument("--out", default="bench/results", help="folder for the JSON and PNG")
    parser.add_argument("--name", default="align-gpu", help="file name stem")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the workloads, print a table, write ``<out>/<name>-<date>.json`` and ``.png``."""
    args = _parser().parse_args(argv)
    backend = resolve("gpu")
    _gpu_backend.use(backend)
    _cpu_backend.prepare(None)
    rows = []
    for work in _workloads(args):
        lanes = args.lanes if work.scoring.alphabet.name == "dna" else ["s16x2"]
        tiles = [tuple(int(x) for x in t.split("x")) for t in args.tiles]
        rows += _measure(work, lanes, args.repeats, args.check, tiles)
    rates = _instruction_rates()
    stem = result_stem(args.out, args.name)
    record = {
        "benchmark": "align-gpu",
        "device": backend.describe(),
        "machine": machine_info(),
        "timing": f"CUDA events around the kernels, median of {args.repeats} after a warm-up",
        "ceilings_lane_ops_per_second": _CEILING,
        "measured_lane_ops_per_second": rates,
        "results": rows,
    }
    write_json(stem + ".json", record)
    labels = sorted({row["workload"] for row in rows})
    series = {
        lane: [
            next(
                (
                    r["tcups_kernel"]
                    for r in rows
                    if r["workload"] == w and r["lane"] == lane and r["tile"] == "default"
                ),
                0.0,
            )
            for w in labels
        ]
        for lane in sorted({row["lane"] for row in rows})
    }
    bar_chart(
        stem + ".png",
        f"seqwarp align, {backend.describe()}",
        {"score only": (labels, series)},
        "TCUPS",
    )
    console = Console(width=150)
    print_table(
        "instruction rates (T lane ops/s)",
        ["instruction", "rate"],
        [[k, v / 1e12] for k, v in rates.items()],
        console,
    )
    print_table(
        f"seqwarp align on {backend.describe()} (TCUPS, kernels alone)",
        [
            "workload",
            "lane",
            "tile",
            "warps",
            "TCUPS",
            "engine",
            "e2e",
            "e2e/kernel",
            "of ceiling",
            "==int32",
            "==cpu",
        ],
        [
            [
                r["workload"],
                r["lane"],
                r["tile"],
                r["warps_per_sm"],
                r["tcups_kernel"],
                r["tcups_engine"],
                r["tcups_end_to_end"],
                r["end_to_end_of_kernel"],
                r["fraction_of_ceiling"],
                f"{min(r['equal_to_int32_kernel'], r['whole_call_equal_to_int32_kernel'])}"
                f"/{r['pairs']}",
                f"{r['equal_to_cpu']}/{r['checked_against_cpu']}",
            ]
            for r in rows
        ],
        console,
    )
    return 0
