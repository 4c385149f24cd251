"""Launch the score kernels (or, with ``--cigar``, the traceback's fill and walk) of one short-read
workload a few times, for a profiler to take one launch apart (Nsight Compute's warp stall
reasons, issue slots, occupancy and memory traffic), e.g.

    ncu --clock-control none -k regex:align_score --launch-skip 3 --launch-count 1 \\
        --section WarpStateStats --section SchedulerStats --section Occupancy \\
        python tools/gpu_one_launch.py --length 512 --mode global --gap linear

(it lists the score launches first, in the order a profiler counts them; ``--scores-only``:
local kernels without their end cells, as score-only calls run them).

The benchmark's reads (``seqwarp.bench.workloads.simulate_batches`` from ``--genome``, by
default E. coli K-12) against their source windows, +2/-1, gap 1 (linear) or 2/1 (affine);
the kernels are staged as the benchmark stages them (``_gpu_backend.stage``) and each pass
launches all of them and waits; with ``--cigar`` each pass is one full-alignment call
(``_gpu_traceback.align``, its chunks' fill, walk and packing kernels). With
``--protein DIR`` (the benchmark's ``--prepare-inputs`` folder) it runs the protein search
instead: one real query of ``--length`` residues against ``--pairs`` database sequences,
BLOSUM62 11/1, local.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from seqwarp.align import _gpu_backend, _gpu_traceback
from seqwarp.bench import proteins
from seqwarp.bench.workloads import load_genome, simulate_batches
from seqwarp.scoring import Scoring


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--length", type=int, default=512)
    parser.add_argument("--mode", default="global", choices=("global", "semi-global", "local"))
    parser.add_argument("--gap", default="linear", choices=("linear", "affine"))
    parser.add_argument("--lanes", default="auto")
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--genome", help="FASTA of the genome the reads come from")
    parser.add_argument("--cigar", action="store_true", help="the traceback's kernels")
    parser.add_argument("--protein", metavar="DIR", help="the protein search, inputs from DIR")
    parser.add_argument(
        "--scores-only",
        action="store_true",
        help="local kernels without their end cells, as score-only calls and the search run them",
    )
    options = parser.parse_args()
    import cupy as cp

    if options.protein:
        real = proteins.load(options.protein)
        q = proteins.pick_queries(real, [options.length])
        t = proteins.shuffled_database(real, options.pairs)
        scoring = Scoring.blosum62(11, 1)
        q_index = np.zeros(options.pairs, dtype=np.int64)
        mode = "local"
    else:
        _, genome = load_genome(options.genome)
        q, t, _ = simulate_batches(genome, options.length, options.pairs, seed=2)
        gap_open = 1 if options.gap == "linear" else 2
        scoring = Scoring.dna(2, -1, gap_open, 1)
        q_index = np.arange(options.pairs, dtype=np.int64)
        mode = options.mode
    t_index = np.arange(options.pairs, dtype=np.int64)
    args = (q, t, q_index, t_index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
    if options.cigar:
        what = "one traceback call"

        def one_pass() -> None:
            _gpu_traceback.align(*args)
    else:
        staged = _gpu_backend.stage(*args, lanes=options.lanes, ends=not options.scores_only)
        what = f"{len(staged)} launches"
        # which launch a profiler's --launch-skip picks (the first pass's, in this order)
        for k, launch in enumerate(staged):
            group, columns, split, cluster = launch.shape
            print(
                f"launch {k}: {launch.kernel_lane} {group}x{columns}, {split} warps x {cluster} "
                f"blocks a pair set, {len(launch.pairs)} pairs, {launch.kernel.num_regs} registers"
            )

        def one_pass() -> None:
            for launch in staged:
                launch.launch()

    cells = float(np.sum(q.lengths[q_index] * t.lengths[t_index]))
    for k in range(options.passes):
        start = time.perf_counter()
        one_pass()
        cp.cuda.runtime.deviceSynchronize()
        seconds = time.perf_counter() - start
        print(f"pass {k}: {what}, {seconds * 1e3:.2f} ms, {cells / seconds / 1e12:.2f} TCUPS")


if __name__ == "__main__":
    main()
