"""Regenerate src/seqwarp/data/demo_*.fa: 200 simulated 150 bp reads and their source windows.

Source genome: pyhmmer's test contig ``1390.SAMEA104415756.OFHT01000022.fna`` (installed with
pyhmmer, under ``pyhmmer/tests/data/seqs``). Reads carry ~3% substitutions and ~0.5% indels
(seed 7); each target is the reference window the read came from, 20 bp wider on each side.
"""

from __future__ import annotations

import pathlib

import dnaio
import numpy as np
import pyhmmer

SOURCE = (
    pathlib.Path(pyhmmer.__file__).parent
    / "tests"
    / "data"
    / "seqs"
    / "1390.SAMEA104415756.OFHT01000022.fna"
)
OUT = pathlib.Path(__file__).resolve().parents[1] / "src" / "seqwarp" / "data"


def mutate(read: str, rng: np.random.Generator) -> str:
    out = []
    for base in read:
        roll = rng.random()
        if roll < 0.03:
            out.append("ACGT"[(("ACGT".index(base)) + rng.integers(1, 4)) % 4])
        elif roll < 0.0325:
            continue
        elif roll < 0.035:
            out.extend([base, "ACGT"[rng.integers(4)]])
        else:
            out.append(base)
    return "".join(out)


def main() -> None:
    with dnaio.open(SOURCE) as reader:
        genome = next(iter(reader)).sequence.upper()
    rng = np.random.default_rng(7)
    with open(OUT / "demo_reads.fa", "w") as reads, open(OUT / "demo_windows.fa", "w") as windows:
        for n in range(200):
            start = int(rng.integers(20, len(genome) - 200))
            read = genome[start : start + 150]
            if "N" in read:
                continue
            reads.write(f">read{n} pos={start}\n{mutate(read, rng)}\n")
            windows.write(f">window{n} pos={start - 20}\n{genome[start - 20 : start + 170]}\n")


if __name__ == "__main__":
    main()
