"""``python -m seqwarp.bench align-scaling``: one workload on 1, 2, ... N GPUs of a host.

Runs the 512 bp global affine score-only workload and the protein workload (BLOSUM62, 11/1,
local) through the public ``Aligner(device="gpu", gpus=k)`` for every ``k`` up to the GPUs
visible, in one run: whole-call TCUPS (median after a warm-up), scaling efficiency against one
GPU, and a hash of the scores and ends, which must be the same for every GPU count.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence

import numpy as np

from ..align import Aligner
from ..alphabets import PROTEIN
from ..devices import gpu_count
from ..scoring import Scoring
from .align_gpu import _median_seconds, simulate
from .report import machine_info, print_table, result_stem, write_json

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seqwarp.bench align-scaling", description=__doc__
    )
    parser.add_argument("--pairs-512", type=int, default=200_000, help="DNA pairs of 512 bp")
    parser.add_argument(
        "--pairs-protein", type=int, default=100_000, help="protein pairs of 512 residues"
    )
    parser.add_argument(
        "--max-gpus", type=int, default=None, help="largest GPU count (default: all visible)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--name", default="align-scaling")
    return parser


def _digest(ends: np.ndarray, scores: np.ndarray) -> str:
    """SHA-256 (first 16 hex digits) of the scores and ends, in pair order."""
    return hashlib.sha256(scores.tobytes() + ends.tobytes()).hexdigest()[:16]


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every GPU count and workload; print a table, write JSON."""
    args = _parser().parse_args(argv)
    visible = gpu_count()
    if visible == 0:
        print("seqwarp.bench align-scaling: no CUDA device visible")
        return 2
    top = min(visible, args.max_gpus or visible)
    dna_q, dna_t = simulate(args.pairs_512, 512, 4, 0.05, seed=512)
    prot_q, prot_t = simulate(args.pairs_protein, 512, 20, 0.2, seed=7, alphabet=PROTEIN)
    workloads = [
        ("dna512-global-affine", "global", Scoring.dna(2, -1, 2, 1), dna_q, dna_t),
        (
            "protein512-local-affine",
            "local",
            Scoring.from_matrix("BLOSUM62", 11, 1),
            prot_q,
            prot_t,
        ),
    ]
    results = []
    for name, mode, scoring, queries, targets in workloads:
        if len(queries) == 0:
            continue
        cells = int(np.sum(queries.lengths * targets.lengths))
        one_gpu = None
        for gpus in range(1, top + 1):
            aligner = Aligner(mode, scoring, device="gpu", gpus=gpus)
            seconds, result = _median_seconds(
                lambda a=aligner, q=queries, t=targets: a.align(q, t, output="ends"), args.repeats
            )
            tcups = cells / seconds / 1e12
            one_gpu = one_gpu or tcups
            ends = np.stack([result.query_end, result.target_end])
            results.append(
                {
                    "workload": name,
                    "gpus": gpus,
                    "pairs": len(queries),
                    "cells": cells,
                    "seconds": seconds,
                    "tcups": tcups,
                    "scaling_efficiency": tcups / (one_gpu * gpus),
                    "output_sha256": _digest(ends, result.score),
                    "backend": aligner.backend.describe(),
                }
            )
    same = {
        w: len({r["output_sha256"] for r in results if r["workload"] == w}) == 1
        for w, *_ in workloads
    }
    record = {
        "benchmark": "align-scaling",
        "machine": machine_info(),
        "gpus_visible": visible,
        "results": results,
        "identical_output": same,
    }
    stem = result_stem(args.out, args.name)
    write_json(f"{stem}.json", record)
    print_table(
        "seqwarp align on 1..N GPUs (whole Aligner calls)",
        ("workload", "GPUs", "TCUPS", "efficiency", "output sha256"),
        [
            (r["workload"], r["gpus"], r["tcups"], r["scaling_efficiency"], r["output_sha256"])
            for r in results
        ],
    )
    print(f"identical output for every GPU count: {same}")
    return 0 if all(same.values()) else 1
