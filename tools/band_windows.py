"""How many of the benchmark's traceback pairs a band fill's window would miss, by tile.

The band fill (``kernels/align_band.cuh``) fills a window of ``G K - K + 1`` diagonals, one
first diagonal for all the pairs of a warp (``warp_band_low``: centred on the diagonals
between 0 and ``n - m`` of its ``32 / G`` groups' two pairs each); the walk then checks each
pair's window against the diagonals its score allows an optimal path (``band_holds``), and a
pair it misses runs again on the whole matrix. This tool takes the benchmark's traceback pairs
(reads against their windows, ``simulate_batches(genome, L, pairs, seed=1 + L)``), scores
them with the CPU engine, and counts, for each tile, the pairs whose bound falls outside
their warp's window: what a narrower window would cost in pairs run again, without a GPU.

    python tools/band_windows.py --data .benchdata/align-gpu --length 125 --mode global \\
        --gap linear --tiles 16x4 12x4 8x8 --pairs 100000
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from seqwarp.align import Aligner
from seqwarp.bench.align_gpu_plan import dna_scoring
from seqwarp.bench.workloads import load_genome, simulate_batches

_WARP = 32
_PAIRS = 2  # pairs a group: the band fill's 16-bit lanes


def _c_div(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """Integer division rounding toward zero, as C++'s ``/``."""
    q = np.abs(a) // np.abs(b)
    return np.where((np.asarray(a) < 0) != (np.asarray(b) < 0), -q, q)


def score_bounds(
    mode: str, m: np.ndarray, n: np.ndarray, score: np.ndarray, best: int, gap: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the first and last diagonal ``j - i`` an optimal path may use given its score
    (``band_holds``'s bound; ``best`` the highest substitution score, ``gap`` the least a gap
    residue costs); a local or semi-global pair of score 0 or less gets an empty range."""
    m, n, score = (np.asarray(x, dtype=np.int64) for x in (m, n, score))
    if mode == "global":
        most = _c_div(best * (m + n) - 2 * score, best + 2 * gap)
        spare = _c_div(most - np.abs(n - m), 2)
        return np.minimum(0, n - m) - spare, np.maximum(0, n - m) + spare
    fewest = _c_div(score + best - 1, best)
    empty = score <= 0
    return np.where(empty, 1, fewest - m), np.where(empty, 0, n - fewest)


def warp_first_diagonals(m: np.ndarray, n: np.ndarray, width: int, group: int) -> np.ndarray:
    """Per pair, its warp's first diagonal (``warp_band_low``) for a window of ``width``
    diagonals, the pairs in launch order, ``32 / group`` groups of two pairs a warp."""
    per_warp = _WARP // group * _PAIRS
    m, n = np.asarray(m, dtype=np.int64), np.asarray(n, dtype=np.int64)
    warps = -(-len(m) // per_warp)
    pad = warps * per_warp - len(m)
    diff = np.pad(n - m, (0, pad)).reshape(warps, per_warp)
    real = np.pad((m > 0) & (n > 0), (0, pad)).reshape(warps, per_warp)
    least = np.where(real, np.minimum(0, diff), 1 << 30).min(axis=1)
    most = np.where(real, np.maximum(0, diff), -(1 << 30)).max(axis=1)
    lo = np.where(least > most, 1 << 30, least - _c_div(width - 1 - (most - least), 2))
    return np.repeat(lo, per_warp)[: len(m)]


def missed(
    mode: str, m: np.ndarray, n: np.ndarray, score: np.ndarray, best: int, gap: int,
    columns: int, group: int,
) -> np.ndarray:  # fmt: skip
    """Whether each pair's bound leaves the window of a ``columns`` x ``group`` band tile."""
    width = group * columns - columns + 1
    lo = warp_first_diagonals(m, n, width, group)
    need_lo, need_hi = score_bounds(mode, m, n, score, best, gap)
    return ~((need_lo >= lo) & (need_hi <= lo + width - 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="align-gpu --prepare-inputs (its genome)")
    parser.add_argument("--length", type=int, default=125)
    parser.add_argument("--mode", choices=("global", "semi-global", "local"), default="global")
    parser.add_argument("--gap", choices=("linear", "affine"), default="linear")
    parser.add_argument("--pairs", type=int, default=100_000, help="the benchmark's first pairs")
    parser.add_argument("--tiles", nargs="+", default=["16x4", "12x4", "8x4", "8x8", "20x4"])
    args = parser.parse_args()
    _, genome = load_genome(args.data / "genome.fa.gz" if args.data else None)
    queries, targets, _ = simulate_batches(genome, args.length, args.pairs, seed=1 + args.length)
    scoring = dna_scoring(args.gap)
    score = Aligner(args.mode, scoring, device="cpu").align(queries, targets, "score").score
    m, n = queries.lengths, targets.lengths
    best, gap = int(scoring.matrix.max()), min(scoring.gap_open, scoring.gap_extend)
    need_lo, need_hi = score_bounds(args.mode, m, n, score, best, gap)
    widths = need_hi - need_lo + 1
    print(
        f"{args.pairs} pairs of {args.length} bp, {args.mode} {args.gap}: n - m from "
        f"{int((n - m).min())} to {int((n - m).max())}; diagonals a pair's bound spans: median "
        f"{int(np.median(widths))}, 99th percentile {int(np.percentile(widths, 99))}, "
        f"most {int(widths.max())}"
    )
    for tile in args.tiles:
        columns, group = (int(x) for x in tile.split("x"))
        out = missed(args.mode, m, n, score, best, gap, columns, group)
        print(
            f"  {columns:2d} x {group:2d}: window of {group * columns - columns + 1:3d} "
            f"diagonals, {group * columns:3d} columns a row; misses {int(out.sum())} pairs "
            f"({100 * out.mean():.3f} %)"
        )


if __name__ == "__main__":
    main()
