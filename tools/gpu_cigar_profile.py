"""Where a GPU CIGAR call of many short pairs spends its time: the wall time of score and
CIGAR calls on the same pairs (after a warm-up), the device timeline of one CIGAR call's
chunks (CUDA events: each chunk's start and the end of its fill, walk and pack kernels), then
the host's share by cProfile (the calling thread only).

    python tools/gpu_cigar_profile.py --pairs 1000000 --length 125 --mode global
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import numpy as np

from seqwarp.align import _gpu_backend, _gpu_traceback
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch


def _pairs(count: int, length: int, mode: str) -> tuple:
    """Backend arguments of ``count`` reads of ``length`` with 3 % substitutions against their
    source windows of a random genome, +2/-1, linear gap 1."""
    rng = np.random.default_rng(1)
    genome = rng.integers(4, size=2_000_000, dtype=np.uint8)
    starts = rng.integers(0, len(genome) - length, size=count)
    target = genome[starts[:, None] + np.arange(length)]
    query = target.copy()
    changed = rng.random(query.shape) < 0.03
    shift = rng.integers(1, 4, size=int(changed.sum()), dtype=np.uint8)
    query[changed] = (query[changed] + shift) % 4
    offsets = np.arange(count + 1, dtype=np.int64) * length
    scoring = Scoring.dna(2, -1, 1, 1)
    names = tuple(map(str, range(count)))
    q = SequenceBatch(query.ravel(), offsets, names, scoring.alphabet)
    t = SequenceBatch(target.ravel(), offsets, names, scoring.alphabet)
    index = np.arange(count, dtype=np.int64)
    return (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--length", type=int, default=125)
    parser.add_argument("--mode", default="global", choices=("global", "semi-global", "local"))
    options = parser.parse_args()
    import cupy as cp

    args = _pairs(options.pairs, options.length, options.mode)
    for name, call in (("score", _gpu_backend.score), ("cigar", _gpu_traceback.align)):
        call(*args)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            call(*args)
            times.append(time.perf_counter() - start)
        print(f"{name} calls: {', '.join(f'{x * 1e3:.1f}' for x in times)} ms")
    marks = _gpu_traceback.PhaseMarks()
    start = time.perf_counter()
    _gpu_traceback.align(*args, marks=marks)
    cp.cuda.Device().synchronize()
    wall = time.perf_counter() - start
    first = marks.events[0][1]
    timeline = ", ".join(
        f"{phase} {cp.cuda.get_elapsed_time(first, e):.1f}" for phase, e in marks.events
    )
    print(f"one CIGAR call: {wall * 1e3:.1f} ms; device timeline (ms): {timeline}")
    profile = cProfile.Profile()
    profile.enable()
    _gpu_traceback.align(*args)
    profile.disable()
    for key in ("cumulative", "tottime"):
        text = io.StringIO()
        pstats.Stats(profile, stream=text).strip_dirs().sort_stats(key).print_stats(25)
        print(text.getvalue())


if __name__ == "__main__":
    main()
