"""``python -m seqwarp.bench align-scaling``: one workload on 1, 2, ... N GPUs of a host.

Runs, through the public ``Aligner(device="gpu", gpus=k)`` for every ``k`` up to the GPUs
visible, in one run: the 512 bp global affine score-only workload (pairs of 512 x 512 bp) and
the protein workload of ``python -m seqwarp.bench align-gpu`` (real proteins of 100-1000
residues against a database of real proteins grown with shuffles, BLOSUM62 11/1, local,
``Aligner.score_matrix``; it needs ``--data``, the inputs that benchmark prepares). Reports
whole-call TCUPS (median after a warm-up), scaling efficiency against one GPU, and a hash of
the output, which must be the same for every GPU count; then one more call with every kernel
launch timed (``gpu_timeline``): how long each device's kernels were busy, when its first one
began and its last one ended, so the host work around them shows. With one GPU it also runs
two device slots on that GPU (ordinals ``(0, 0)``: the multi-device path, two host threads
and streams of work on one chip), whose ideal is the one-GPU rate. Writes JSON and a PNG of
measured against ideal TCUPS.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

import numpy as np

from ..align import Aligner
from ..alphabets import DNA, Alphabet
from ..devices import Backend, gpu_count
from ..scoring import Scoring
from ..sequences import SequenceBatch
from . import proteins
from .gpu_timeline import trace_call
from .report import (
    bar_chart,
    machine_info,
    print_table,
    repeat_seconds,
    result_stem,
    write_json,
)
from .workloads import equal_length_batch

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seqwarp.bench align-scaling", description=__doc__
    )
    parser.add_argument("--pairs-512", type=int, default=200_000, help="DNA pairs of 512 bp")
    parser.add_argument(
        "--data",
        default=".benchdata/align-gpu",
        help="inputs of align-gpu (--prepare-inputs); without its proteomes the protein "
        "workload is skipped (default: %(default)s)",
    )
    parser.add_argument(
        "--protein-database", type=int, default=1_000_000, help="database sequences"
    )
    parser.add_argument(
        "--max-gpus", type=int, default=None, help="largest GPU count (default: all visible)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1, help="seed of the database's shuffles")
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--name", default="align-scaling")
    return parser


@dataclass(frozen=True)
class _Workload:
    """One measured job: its aligner settings, size, the timed call and how its answer
    becomes the hashed output array (outside the timing)."""

    name: str
    mode: str
    scoring: Scoring
    pairs: int
    cells: int
    run: Callable[[Aligner], Any]
    output: Callable[[Any], np.ndarray] = np.asarray


def _pairs(
    count: int, length: int, alphabet: Alphabet, rate: float, seed: int
) -> tuple[SequenceBatch, SequenceBatch]:
    """``count`` targets of ``length`` residues (windows of one random genome) and a read of
    each with substitutions at ``rate``: every pair has ``length**2`` cells."""
    letters = 4 if alphabet is DNA else 20
    rng = np.random.default_rng(seed)
    genome = rng.integers(0, letters, size=max(1 << 20, 4 * length), dtype=np.uint8)
    starts = rng.integers(0, len(genome) - length, size=count)
    targets = np.lib.stride_tricks.sliding_window_view(genome, length)[starts]
    reads = targets.ravel().copy()
    changed = rng.integers(0, len(reads), size=int(rate * len(reads)))
    shift = rng.integers(1, letters, size=len(changed), dtype=np.uint8)
    reads[changed] = (reads[changed] + shift) % letters
    return (
        equal_length_batch(reads.reshape(count, length), alphabet),
        equal_length_batch(targets, alphabet),
    )


def _dna_workload(count: int) -> _Workload:
    """512 x 512 bp pairs, global affine (+2/-1, 2/1): scores and ends."""
    queries, targets = _pairs(count, 512, DNA, 0.05, seed=512)

    def fields(result: Any) -> np.ndarray:
        return np.stack([result.score, result.query_end, result.target_end])

    return _Workload(
        "dna512-global-affine",
        "global",
        Scoring.dna(2, -1, 2, 1),
        count,
        count * 512 * 512,
        lambda aligner: aligner.align(queries, targets, output="ends"),
        fields,
    )


def _protein_workload(data: str, size: int, seed: int) -> _Workload | None:
    """``align-gpu``'s protein search (None without its proteomes in ``data``)."""
    if not os.path.exists(os.path.join(data, proteins.PROTEOMES)):
        print(f"no {proteins.PROTEOMES} in {data}: the protein workload is skipped")
        return None
    real = proteins.load(data)
    queries = proteins.pick_queries(real, list(proteins.QUERY_LENGTHS))
    database = proteins.shuffled_database(real, size, seed=seed)
    cells = int(queries.lengths.sum()) * database.total_length
    return _Workload(
        f"protein-{size}-local-affine",
        "local",
        Scoring.from_matrix("BLOSUM62", 11, 1),
        len(queries) * len(database),
        cells,
        lambda aligner: aligner.score_matrix(queries, database),
    )


def _digest(output: np.ndarray) -> str:
    """SHA-256 (first 16 hex digits) of an output array's bytes."""
    return hashlib.sha256(np.ascontiguousarray(output).tobytes()).hexdigest()[:16]


def _timeline_row(timeline: dict[str, Any]) -> tuple[float, float, float, float]:
    """A traced call's wall time, its latest device's first kernel and last kernel end, and
    its busiest device's kernel time (ms)."""
    devices = timeline["devices"]
    return (
        timeline["wall_ms"],
        max(d["first_kernel_ms"] for d in devices),
        max(d["last_kernel_end_ms"] for d in devices),
        max(d["busy_ms"] for d in devices),
    )


def _configurations(top: int) -> list[tuple[str, tuple[int, ...]]]:
    """(label, device ordinals) to run: 1..``top`` GPUs, and two slots on one GPU when only
    one is used."""
    runs = [(f"{k} GPU{'s' if k > 1 else ''}", tuple(range(k))) for k in range(1, top + 1)]
    if top == 1:
        runs.append(("1 GPU x 2 slots", (0, 0)))
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every GPU count and workload; print a table, write JSON and a PNG."""
    args = _parser().parse_args(argv)
    visible = gpu_count()
    if visible == 0:
        print("seqwarp.bench align-scaling: no CUDA device visible")
        return 2
    top = min(visible, args.max_gpus or visible)
    workloads = [_dna_workload(args.pairs_512)]
    protein = _protein_workload(args.data, args.protein_database, args.seed)
    if protein is not None:
        workloads.append(protein)
    configurations = _configurations(top)
    results = []
    for work in workloads:
        one_gpu = None
        for label, ordinals in configurations:
            gpus = len(set(ordinals))
            aligner = Aligner(work.mode, work.scoring, device="gpu", gpus=gpus)
            # a repeated ordinal is not something resolve() hands out: set the slots directly
            aligner.backend = Backend("gpu", ordinals)
            each, answer = repeat_seconds(partial(work.run, aligner), args.repeats)
            traced_ms, devices = trace_call(partial(work.run, aligner))
            seconds = statistics.median(each)
            tcups = work.cells / seconds / 1e12
            one_gpu = one_gpu or tcups
            results.append(
                {
                    "workload": work.name,
                    "label": label,
                    "gpus": gpus,
                    "ordinals": list(ordinals),
                    "pairs": work.pairs,
                    "cells": work.cells,
                    "seconds": seconds,
                    "seconds_each": each,
                    "tcups": tcups,
                    "ideal_tcups": one_gpu * gpus,
                    "scaling_efficiency": tcups / (one_gpu * gpus),
                    "output_sha256": _digest(work.output(answer)),
                    "backend": aligner.backend.describe(),
                    "timeline": {
                        "wall_ms": traced_ms,
                        "devices": [asdict(device) for device in devices],
                    },
                }
            )
    same = {
        work.name: len({r["output_sha256"] for r in results if r["workload"] == work.name}) == 1
        for work in workloads
    }
    record = {
        "benchmark": "align-scaling",
        "machine": machine_info(),
        "gpus_visible": visible,
        "timing": f"whole Aligner.align calls, median of {args.repeats} after a warm-up",
        "results": results,
        "identical_output": same,
    }
    stem = result_stem(args.out, args.name)
    write_json(f"{stem}.json", record)
    labels = [label for label, _ in configurations]
    panels = {
        w: (
            labels,
            {
                "measured": [r["tcups"] for r in results if r["workload"] == w],
                "ideal (one GPU x GPUs)": [r["ideal_tcups"] for r in results if r["workload"] == w],
            },
        )
        for w in same
    }
    if panels:
        bar_chart(f"{stem}.png", "seqwarp align on 1..N GPUs (whole calls)", panels, "TCUPS")
    print_table(
        "seqwarp align on 1..N GPUs (whole Aligner calls)",
        ("workload", "devices", "TCUPS", "efficiency", "output sha256"),
        [
            (r["workload"], r["label"], r["tcups"], r["scaling_efficiency"], r["output_sha256"])
            for r in results
        ],
    )
    print_table(
        "one traced call each: kernels against host work (ms from the call's start)",
        ("workload", "devices", "wall", "first kernel", "last kernel end", "kernels busy"),
        [
            (r["workload"], r["label"], *_timeline_row(r["timeline"]))
            for r in results
            if r["timeline"]["devices"]
        ],
    )
    print(f"identical output for every GPU count: {same}")
    return 0 if all(same.values()) else 1
