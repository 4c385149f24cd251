"""Time of each alignment output format's writer on one result (best of 3, into memory):
simulated reads of 150 bp with 3 % substitutions against their source windows, semi-global
alignments with CIGARs from the CPU backend.

    python tools/writer_speed.py --pairs 100000
"""

from __future__ import annotations

import argparse
import io
import time

import numpy as np

from seqwarp.align import Aligner
from seqwarp.io.alignment_writer import FORMATS, get_writer
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch


def _reads(count: int, length: int = 150) -> tuple[SequenceBatch, SequenceBatch]:
    rng = np.random.default_rng(0)
    genome = rng.integers(4, size=1_000_000, dtype=np.uint8)
    starts = rng.integers(0, len(genome) - length, size=count)
    target = genome[starts[:, None] + np.arange(length)]
    query = target.copy()
    changed = rng.random(query.shape) < 0.03
    query[changed] = (query[changed] + 1) % 4
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    return tuple(
        SequenceBatch.from_strings([row.tobytes() for row in letters[codes]])
        for codes in (query, target)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    options = parser.parse_args()
    queries, targets = _reads(options.pairs)
    aligner = Aligner("semi-global", Scoring.dna(2, -1, 2, 1), device="cpu")
    result = aligner.align(queries, targets, output="cigar")
    for fmt in sorted(FORMATS):
        best = float("inf")
        for _ in range(3):
            stream = io.StringIO()
            writer = get_writer(fmt)(stream, queries, targets)
            start = time.perf_counter()
            writer.write_all(result)
            best = min(best, time.perf_counter() - start)
        print(f"{fmt}: {best * 1e3:.0f} ms, {best / len(result) * 1e6:.2f} us a record")


if __name__ == "__main__":
    main()
