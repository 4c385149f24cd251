"""A tiny seeded read simulator for end-to-end tests: pairs from a genome, FR orientation."""

from __future__ import annotations

import io
import random
from pathlib import Path

COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def revcomp(seq: str) -> str:
    return seq.translate(COMPLEMENT)[::-1]


def random_dna(length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("ACGT") for _ in range(length))


def simulate_pairs(
    genome: str, pairs: int, seed: int, read_len: int = 150, insert: tuple[int, int] = (400, 20)
) -> list[tuple[str, str, str, str]]:
    """(read 1, quals 1, read 2, quals 2); read 1 forward or reverse at random, no errors."""
    rng = random.Random(seed)
    out = []
    for _ in range(pairs):
        size = max(read_len, int(rng.gauss(*insert)))
        start = rng.randrange(0, len(genome) - size + 1)
        fragment = genome[start : start + size]
        if rng.random() < 0.5:
            fragment = revcomp(fragment)
        r1, r2 = fragment[:read_len], revcomp(fragment)[:read_len]
        q1 = "".join(rng.choice("?I") for _ in r1)
        q2 = "".join(rng.choice("?I") for _ in r2)
        out.append((r1, q1, r2, q2))
    return out


def write_fastq(path: Path, names: list[str], rows: list[tuple[str, str]]) -> Path:
    with open(path, "w") as handle:
        for name, (seq, qual) in zip(names, rows, strict=True):
            handle.write(f"@{name}\n{seq}\n+\n{qual}\n")
    return path


def write_pairs(directory: Path, pairs: list[tuple[str, str, str, str]]) -> tuple[Path, Path]:
    names = [f"p{i}" for i in range(len(pairs))]
    one = write_fastq(
        directory / "r_1.fq", [n + "/1" for n in names], [(p[0], p[1]) for p in pairs]
    )
    two = write_fastq(
        directory / "r_2.fq", [n + "/2" for n in names], [(p[2], p[3]) for p in pairs]
    )
    return one, two


def cli_inputs(directory: Path, genome: str) -> tuple[Path, Path, Path, Path]:
    """Read pairs over ``genome`` and two of its contigs (the second reverse-complemented),
    written under ``directory``: (directory, contigs, reads 1, reads 2)."""
    r1, r2 = write_pairs(directory, simulate_pairs(genome, 400, 1))
    contigs = directory / "contigs.fa"
    contigs.write_text(f">c1\n{genome[1000:2000]}\n>c2\n{revcomp(genome[2200:2600])}\n")
    return directory, contigs, r1, r2


def run_extend(*args: object) -> tuple[int, str, str]:
    """``seqwarp extend ARGS`` in this process: (exit status, stdout, stderr)."""
    from seqwarp.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["extend", *map(str, args)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()
