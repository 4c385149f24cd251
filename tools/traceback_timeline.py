"""Wall-clock timeline of whole GPU traceback calls: where the host spends a call.

Times ``Aligner.align_indexed(..., output="cigar")`` beside the score-only call ("ends") on
simulated reads (median of 5 after a warm-up), then runs one more call with the host steps of
``seqwarp.align._gpu_traceback`` and ``_gpu_backend`` wrapped in timers and prints each
step's start, end and milliseconds: where ``tools/gpu_cigar_profile.py``'s cProfile, which
sees only the calling thread, puts each wait in whatever call it falls. Needs a GPU and the
benchmark's inputs (``python -m seqwarp.bench align-gpu --prepare-inputs``).

    python tools/traceback_timeline.py --data .benchdata/align-gpu
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
import time
from typing import Any

import numpy as np

from seqwarp import cuda
from seqwarp.align import Aligner, _cpu_backend, _gpu_backend, _gpu_traceback, api, results
from seqwarp.bench import gpu_inputs
from seqwarp.bench.align_gpu_plan import dna_scoring
from seqwarp.bench.workloads import load_genome, simulate_batches
from seqwarp.devices import resolve

# (read length, pairs, mode, gap model): the benchmark's traceback workloads
CASES = (
    (125, 1_000_000, "global", "affine"),
    (125, 1_000_000, "global", "linear"),
    (512, 168_605, "global", "affine"),
)
STEPS = {
    api: ("running_cells", "_call_shapes"),
    api.Aligner: ("_result",),
    cuda: ("compile_module",),
    _gpu_backend: (
        "firsts_and_shapes", "_spans", "_plan", "on_devices", "align", "score", "_score_part",
        "_run_device", "_queue_gather",
    ),
    _gpu_traceback: ("_align_share", "_align_on_device", "_collect", "_pinned_copy"),
    _gpu_traceback._ShareRun: ("__init__", "align", "_plan", "_queue_stage", "_queue_chunk"),
    _gpu_traceback._Texts: ("finish", "parts"),
    _gpu_backend._Pairs: ("__init__", "to_device"),
    _gpu_backend._Upload: ("__init__", "join"),
    results.Cigars: ("scatter", "_join"),
}  # fmt: skip


def _wrap(owner: Any, name: str, events: list, start: list[float]) -> None:
    """Replace ``owner.name`` by a version that records its (name, thread, start, end)."""
    inner = getattr(owner, name)

    @functools.wraps(inner)
    def timed(*args, **kwargs):
        began = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            thread = threading.current_thread().name
            events.append(
                (
                    f"{getattr(owner, '__name__', '')}.{name}",
                    thread,
                    began - start[0],
                    time.perf_counter() - start[0],
                )
            )

    setattr(owner, name, timed)


def main(argv: list[str] | None = None) -> int:
    """Print the medians and one timeline per case."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=".benchdata/align-gpu", help="the benchmark's inputs")
    parser.add_argument(
        "--outputs", nargs="+", default=["cigar"], choices=["cigar", "ends"],
        help="the calls whose timeline to print",
    )  # fmt: skip
    args = parser.parse_args(argv)
    _gpu_backend.use(resolve("gpu"))
    _cpu_backend.prepare(None)
    _, genome = load_genome(os.path.join(args.data, gpu_inputs.GENOME))
    events: list = []
    start = [0.0]
    for owner, names in STEPS.items():
        for name in names:
            _wrap(owner, name, events, start)
    for length, pairs, mode, gap in CASES:
        queries, targets, _ = simulate_batches(genome, length, pairs, seed=1 + length)
        index = np.arange(pairs, dtype=np.int64)
        aligner = Aligner(mode, dna_scoring(gap), device="gpu")
        for output in ("ends", "cigar", "ends", "cigar"):  # warm-up
            aligner.align_indexed(queries, targets, index, index, output)
        for output in ("ends", "cigar"):
            seconds = []
            for _ in range(5):
                began = time.perf_counter()
                aligner.align_indexed(queries, targets, index, index, output)
                seconds.append(time.perf_counter() - began)
            print(
                f"{length} bp {mode} {gap} {output}: whole call median "
                f"{np.median(seconds) * 1e3:.1f} ms, all {[round(x * 1e3, 1) for x in seconds]}"
            )
        for output in args.outputs:
            events.clear()
            start[0] = time.perf_counter()
            aligner.align_indexed(queries, targets, index, index, output)
            took = (time.perf_counter() - start[0]) * 1e3
            print(f"timeline ({length} bp {gap}, {output}), call {took:.1f} ms")
            for name, thread, began, ended in sorted(events, key=lambda e: e[2]):
                print(
                    f"  {began * 1e3:7.2f} {ended * 1e3:7.2f} {(ended - began) * 1e3:7.2f}  "
                    f"{thread[:16]:16s} {name}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
