"""``python -m seqwarp.bench align-tiles``: every GPU tile's kernel rate, by target length.

The GPU backend gives each 32-column bin of target lengths the tile (threads per group x
columns per thread) of least estimated work (``plan.tile_cost``). This benchmark measures
what each tile really does at a range of lengths, so that the estimate's constants can be
checked and refitted: DNA reads against windows 10 % longer (+2/-1, gaps 2/1, global) and
proteins against proteins of their length (BLOSUM62 11/1, local), random residues with 4 %
substitutions between the two sides, about ``--cells`` cells per length. Kernels alone (CUDA
events, median of ``--repeats`` after a warm-up); every tile's results must equal the int32
kernel's, and a sample the CPU's. Reports per length each tile's TCUPS, the fastest tile, the estimate's choice and its
loss (the fastest rate over the chosen tile's). Writes JSON and a PNG.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..align import _gpu_backend
from ..alphabets import DNA, PROTEIN, Alphabet
from ..devices import gpu_count
from ..scoring import Scoring
from ..sequences import SequenceBatch
from .align_gpu_measure import measure_score
from .align_gpu_plan import Workload
from .report import bar_chart, machine_info, print_table, result_stem, write_json
from .workloads import equal_length_batch

__all__ = ["TileCase", "cases", "estimated_tile", "main", "synthetic_pairs"]

DNA_LENGTHS = (96, 125, 180, 250, 300, 400, 512, 700, 1024, 1500)
PROTEIN_LENGTHS = (64, 100, 150, 200, 256, 300, 400, 512, 700, 1000)
# substitutions between a pair's two sides
_RATE = 0.04


@dataclass(frozen=True)
class TileCase:
    """One length of one alphabet: its scoring, mode, pair shape and the tiles to time."""

    alphabet: Alphabet
    mode: str
    scoring: Scoring
    tiles: tuple[tuple[int, int], ...]
    query: int
    target: int

    @property
    def letters(self) -> int:
        """Residue codes drawn for the sequences (the alphabet's unambiguous letters)."""
        return 4 if self.alphabet is DNA else 20


def cases(dna_lengths: Sequence[int], protein_lengths: Sequence[int]) -> list[TileCase]:
    """DNA reads against windows 10 % longer, proteins against proteins of their length."""
    dna = Scoring.dna(2, -1, 2, 1)
    protein = Scoring.from_matrix("BLOSUM62", 11, 1)
    return [
        TileCase(DNA, "global", dna, _gpu_backend._TILES_DNA, length, length + -(-length // 10))
        for length in dna_lengths
    ] + [
        TileCase(PROTEIN, "local", protein, _gpu_backend._TILES_TABLE, length, length)
        for length in protein_lengths
    ]


def synthetic_pairs(
    case: TileCase, cells: float, rng: np.random.Generator
) -> tuple[SequenceBatch, SequenceBatch]:
    """At least 4,096 pairs and about ``cells`` cells of ``case``'s shape: random targets, and
    queries cut from their middle with ``_RATE`` substitutions."""
    count = max(4096, int(cells // (case.query * case.target)))
    targets = rng.integers(0, case.letters, size=(count, case.target), dtype=np.uint8)
    start = (case.target - case.query) // 2
    queries = targets[:, start : start + case.query].copy()
    changed = rng.random(queries.shape) < _RATE
    queries[changed] = (queries[changed] + 1) % case.letters
    return equal_length_batch(queries, case.alphabet), equal_length_batch(targets, case.alphabet)


def estimated_tile(case: TileCase) -> tuple[int, int]:
    """The tile the GPU backend's plan gives ``case``'s pairs (``plan.tile_runs`` on the
    rows of the lane's profile) among ``case.tiles``."""
    s = case.scoring
    m, n = np.array([case.query]), np.array([case.target])
    offset = case.mode != "local"
    (launch,) = _gpu_backend._plan(
        m, n, s.matrix, s.gap_open, s.gap_extend, "auto", case.tiles, offset
    )
    return launch.group, launch.columns


def _label(tile: tuple[int, int]) -> str:
    return f"{tile[0]}x{tile[1]}"


def measure(
    case: TileCase, cells: float, repeats: int, check: int, rng: np.random.Generator
) -> dict:
    """Every tile's kernel TCUPS on one batch of ``case``'s pairs (``align-gpu``'s
    ``measure_score``: each tile's results checked against the int32 kernel, a sample
    against the CPU)."""
    queries, targets = synthetic_pairs(case, cells, rng)
    name = f"tiles-{case.alphabet.name}-{case.query}"
    work = Workload(name, "tiles", case.query, queries, targets, case.scoring, case.mode)
    rows, _ = measure_score(work, ("s16x2",), repeats, check, case.tiles)
    wrong = [
        row["tile"]
        for row in rows
        if row["equal_to_int32_kernel"] != len(queries)
        or row["equal_to_cpu"] != row["checked_against_cpu"]
    ]
    if wrong:
        raise AssertionError(f"{name}: tiles {wrong} differ from the int32 kernel or the CPU")
    tcups = {row["tile"]: row["tcups_kernel"] for row in rows if row["tile"] != "default"}
    fastest = max(tcups, key=tcups.__getitem__)
    chosen = _label(estimated_tile(case))
    return {
        "alphabet": case.alphabet.name,
        "mode": case.mode,
        "query": case.query,
        "target": case.target,
        "pairs": len(queries),
        "tcups": tcups,
        "fastest": fastest,
        "estimated": chosen,
        "loss": tcups[fastest] / tcups[chosen],
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seqwarp.bench align-tiles", description=__doc__
    )
    parser.add_argument("--dna-lengths", type=int, nargs="*", default=list(DNA_LENGTHS))
    parser.add_argument("--protein-lengths", type=int, nargs="*", default=list(PROTEIN_LENGTHS))
    parser.add_argument("--cells", type=float, default=2e10, help="cells per length")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check", type=int, default=500, help="pairs checked on the CPU")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="bench/results")
    parser.add_argument("--name", default="align-tiles")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Time every tile at every length; print a table, write JSON and a PNG."""
    args = _parser().parse_args(argv)
    if gpu_count() == 0:
        print("seqwarp.bench align-tiles: no CUDA device visible")
        return 2
    rng = np.random.default_rng(args.seed)
    rows = []
    for case in cases(args.dna_lengths, args.protein_lengths):
        rows.append(measure(case, args.cells, args.repeats, args.check, rng))
        row = rows[-1]
        rates = " ".join(f"{tile}={rate:.2f}" for tile, rate in row["tcups"].items())
        print(f"{row['alphabet']} {row['query']} x {row['target']}: {rates} TCUPS", flush=True)
    print_table(
        "GPU kernels by tile (TCUPS)",
        ["alphabet", "query", "target", "fastest", "estimated", "loss"],
        [
            [r["alphabet"], r["query"], r["target"], r["fastest"], r["estimated"], r["loss"]]
            for r in rows
        ],
    )
    stem = result_stem(args.out, args.name)
    write_json(
        stem + ".json",
        {
            "benchmark": "align-tiles",
            "machine": machine_info(),
            "timing": f"kernels by CUDA events, median of {args.repeats} after a warm-up",
            "cells_per_length": args.cells,
            "results": rows,
        },
    )
    panels = {}
    for alphabet in ("dna", "protein"):
        chosen = [r for r in rows if r["alphabet"] == alphabet]
        if chosen:
            labels = [f"{r['query']} x {r['target']}" for r in chosen]
            series = {tile: [r["tcups"][tile] for r in chosen] for tile in chosen[0]["tcups"]}
            panels[f"{alphabet}: kernel TCUPS by tile"] = (labels, series)
    bar_chart(stem + ".png", "seqwarp GPU tiles by length", panels, "TCUPS")
    return 0
