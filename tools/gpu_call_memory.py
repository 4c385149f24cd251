"""Repeated GPU calls on simulated short reads (score and CIGAR outputs in turn, the three
modes in turn): each call's wall time, the device memory CuPy's pool holds and the device's
free memory after it. A pool that grows from call to call holds blocks it cannot reuse.

    python tools/gpu_call_memory.py --pairs 300000 --calls 10
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from seqwarp.align import Aligner
from seqwarp.alphabets import DNA
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch


def simulated_pairs(count: int, length: int, seed: int) -> tuple[SequenceBatch, SequenceBatch]:
    """Random reads of ``length`` with 4 % substitutions, each against its window, 10 % longer
    and centred on it."""
    rng = np.random.default_rng(seed)
    window = round(length * 1.1)
    flank = (window - length) // 2
    targets = rng.integers(4, size=(count, window), dtype=np.uint8)
    reads = targets[:, flank : flank + length].copy()
    errors = rng.random(reads.shape) < 0.04
    reads[errors] = rng.integers(4, size=int(errors.sum()), dtype=np.uint8)
    names = tuple(map(str, range(count)))
    return (
        SequenceBatch(reads.ravel(), np.arange(count + 1, dtype=np.int64) * length, names, DNA),
        SequenceBatch(targets.ravel(), np.arange(count + 1, dtype=np.int64) * window, names, DNA),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=300_000)
    parser.add_argument("--length", type=int, default=125)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import cupy as cp

    queries, targets = simulated_pairs(args.pairs, args.length, args.seed)
    index = np.arange(args.pairs)
    pool = cp.get_default_memory_pool()
    scoring = Scoring.dna(match=2, mismatch=-1, gap_open=2, gap_extend=1)
    for call in range(args.calls):
        mode = ("global", "local", "semi-global")[call % 3]
        output = "cigar" if call % 2 else "score"
        aligner = Aligner(mode, scoring, device="gpu")
        began = time.perf_counter()
        aligner.align_indexed(queries, targets, index, index, output)
        seconds = time.perf_counter() - began
        free = cp.cuda.Device().mem_info[0]
        print(
            f"call {call:2d} {mode:11s} {output:5s} {seconds * 1e3:7.1f} ms  "
            f"pool {pool.total_bytes() / 1e9:6.1f} GB (unused {pool.free_bytes() / 1e9:6.1f})  "
            f"device free {free / 1e9:6.1f} GB",
            flush=True,
        )


if __name__ == "__main__":
    main()
