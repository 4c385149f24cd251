"""The CPU engine's score-only lane groups in int16 lanes against float32 lanes: whole
``Aligner.align`` calls on the benchmark's simulated reads (E. coli K-12, 2-5 % errors,
against their windows), both lane types taking turns in one process (int16 turned off by
setting ``cpu_lanes.LIMIT16`` to 0), best wall and CPU time of ``--repeats``; the outputs
must be equal.

    python tools/cpu_lane_types.py --read-length 512 --pairs 2000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from seqwarp.align import Aligner, cpu_lanes
from seqwarp.bench.workloads import load_genome, simulate_batches
from seqwarp.scoring import Scoring


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--read-length", type=int, default=512)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    args = parser.parse_args()

    _, genome = load_genome(None)
    queries, targets, _ = simulate_batches(genome, args.read_length, args.pairs, seed=1)
    limit = cpu_lanes.LIMIT16
    for mode in ("global", "semi-global", "local"):
        for gap_open, gap_extend in ((1, 1), (2, 1)):
            scoring = Scoring.dna(2, -1, gap_open, gap_extend)
            for threads in args.threads:
                aligner = Aligner(mode, scoring, device="cpu", threads=threads)
                best: dict[str, list[float]] = {}
                scores = {}
                for _ in range(args.repeats):
                    for lanes, bound in (("int16", limit), ("float32", 0)):
                        cpu_lanes.LIMIT16 = bound
                        aligner.align(queries, targets, output="score")  # compile, warm up
                        wall, cpu = time.perf_counter(), time.process_time()
                        result = aligner.align(queries, targets, output="score")
                        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                        old = best.get(lanes, [np.inf, np.inf])
                        best[lanes] = [min(old[0], wall), min(old[1], cpu)]
                        scores[lanes] = result.score
                cpu_lanes.LIMIT16 = limit
                assert np.array_equal(scores["int16"], scores["float32"])
                print(
                    f"{mode:11s} {gap_open}/{gap_extend} {threads} thread(s): "
                    + ", ".join(
                        f"{lanes} {1e3 * w:.1f} ms wall, {1e3 * c:.1f} ms CPU"
                        for lanes, (w, c) in best.items()
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
