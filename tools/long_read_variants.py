"""Long reads on one GPU under variants of the split-pair-set settings: whole ``Aligner.align``
calls of the benchmark's PBSIM reads against their regions (global and semi-global, affine),
the median of ``--repeats`` after a warm-up, and a hash of every variant's output (they must
all be equal). The settings are ``seqwarp.align._gpu_backend``'s ``_SPLIT`` (warps of a
block), ``_CLUSTERS`` (blocks of a cluster, largest first; none: one block a pair set),
``_CLUSTER_ROUNDS`` and ``_SPLIT_SCRATCH_BYTES``.

    python tools/long_read_variants.py --data .benchdata/align-gpu --out bench/results
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

import numpy as np

from seqwarp.align import Aligner
from seqwarp.align import _gpu_backend as backend
from seqwarp.bench import long_reads
from seqwarp.bench.align_gpu_plan import dna_scoring
from seqwarp.bench.report import write_json

# name: (warps of a block, blocks of a cluster, rounds, scratch bytes)
VARIANTS = {
    "block8": (8, (), 1, 1 << 32),
    "block8-scratch1G": (8, (), 1, 1 << 30),
    "cl42-r2": (8, (4, 2), 2, 1 << 32),
    "cl42-r1": (8, (4, 2), 1, 1 << 32),
    "cl2-r2": (8, (2,), 2, 1 << 32),
    "cl842-r1": (8, (8, 4, 2), 1, 1 << 32),
    "cl42-r1-split4": (4, (4, 2), 1, 1 << 32),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=".benchdata/align-gpu")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    data = long_reads.load(args.data)
    cells = int(np.sum(data.reads.lengths * data.regions.lengths))
    rows = []
    for mode in ("global", "semi-global"):
        aligner = Aligner(mode, dna_scoring("affine"), device="gpu")
        for name in args.variants:
            split, clusters, rounds, scratch = VARIANTS[name]
            backend._SPLIT, backend._CLUSTERS = split, clusters
            backend._CLUSTER_ROUNDS, backend._SPLIT_SCRATCH_BYTES = rounds, scratch
            result = aligner.align(data.reads, data.regions, output="ends")
            fields = np.stack([result.score, result.query_end, result.target_end])
            digest = hashlib.sha256(fields.tobytes()).hexdigest()[:16]
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                aligner.align(data.reads, data.regions, output="ends")
                times.append(time.perf_counter() - start)
            seconds = statistics.median(times)
            rows.append(
                {
                    "mode": mode,
                    "variant": name,
                    "seconds": seconds,
                    "tcups": cells / seconds / 1e12,
                    "sha256": digest,
                    "each": [round(t, 4) for t in times],
                }
            )
            print(f"{mode:12s} {name:16s} {seconds * 1e3:8.1f} ms {rows[-1]['tcups']:6.3f} TCUPS")
    modes = ("global", "semi-global")
    same = {mode: len({r["sha256"] for r in rows if r["mode"] == mode}) == 1 for mode in modes}
    print("identical output for every variant:", same)
    args.out.mkdir(parents=True, exist_ok=True)
    record = {"benchmark": "long-read variants", "pairs": len(data.reads), "cells": cells}
    write_json(args.out / "long-read-variants.json", {**record, "identical": same, "rows": rows})


if __name__ == "__main__":
    main()
