"""How much of the DP matrix a global traceback needs, given the pair's score: a check that
the traceback restricted to a band of diagonals bounded by the score equals the full one.

A global path that reaches diagonal ``d = j - i`` has at least ``g = |d| + |n - m - d|`` gap
residues, so it scores at most ``M (m + n - g) / 2 - ge g`` (``M`` the best substitution
score, every gap residue costing at least ``ge``). Once the score kernel has the pair's score
``S``, only the diagonals where that bound reaches ``S`` can hold an optimal path; a cell on
the path next to the band's edge cannot tie with a path through the outside (that path would
score ``S`` too), so its direction flags equal the full matrix's. This tool aligns the
benchmark's simulated reads (E. coli K-12, 2-5 % errors, against their windows with 5 %
flanks) and unrelated pairs both ways, with a reference DP that keeps the CPU engine's tie
rules, walks both with ``cpu.trace`` and asserts the same score and operations, equal to the
CPU engine's CIGAR; it prints the band's share of the cells.

    python tools/traceback_band.py --pairs 300
"""

from __future__ import annotations

import argparse

import numba
import numpy as np
from band_windows import score_bounds  # tools/, beside this script

from seqwarp.align import Aligner, _cpu_backend, cpu
from seqwarp.alphabets import DNA
from seqwarp.bench.align_gpu_plan import dna_scoring
from seqwarp.bench.workloads import load_genome, simulate_batches


def band(m: int, n: int, score: int, best: int, gap_extend: int) -> tuple[int, int]:
    """The diagonals ``lo <= j - i <= hi`` of the matrix where a global path may score
    ``score``: ``band_windows.score_bounds``'s (the kernels' bound), within the matrix."""
    lo, hi = score_bounds("global", [m], [n], [score], best, gap_extend)
    return max(-m, int(lo[0])), min(n, int(hi[0]))


@numba.njit(cache=True)
def _banded_flags(q, t, matrix, gap_open, gap_extend, lo, hi):
    """Global score and direction flags (``cpu``'s bits) of the cells on diagonals ``lo..hi``,
    the others minus infinity: the CPU engine's recurrence and tie rules, whole matrices."""
    m, n = len(q), len(t)
    neg = cpu.NEG_INF
    flags = np.zeros((m + 1, n + 1), dtype=np.uint8)
    h = np.full((m + 1, n + 1), neg, dtype=np.int64)
    e = np.full((m + 1, n + 1), neg, dtype=np.int64)
    f = np.full((m + 1, n + 1), neg, dtype=np.int64)
    for j in range(max(0, lo), min(n, hi) + 1):
        h[0, j] = 0 if j == 0 else -(gap_open + (j - 1) * gap_extend)
    for i in range(1, m + 1):
        if lo <= -i <= hi:
            h[i, 0] = -(gap_open + (i - 1) * gap_extend)
        for j in range(max(1, i + lo), min(n, i + hi) + 1):
            e_open, e_ext = h[i - 1, j] - gap_open, e[i - 1, j] - gap_extend
            f_open, f_ext = h[i, j - 1] - gap_open, f[i, j - 1] - gap_extend
            e[i, j] = max(e_open, e_ext)
            f[i, j] = max(f_open, f_ext)
            best, source = h[i - 1, j - 1] + matrix[q[i - 1], t[j - 1]], cpu.FROM_DIAG
            if e[i, j] > best:
                best, source = e[i, j], cpu.FROM_E
            if f[i, j] > best:
                best, source = f[i, j], cpu.FROM_F
            h[i, j] = best
            flags[i, j] = (
                source
                | (cpu.E_OPENED if e_open >= e_ext else 0)
                | (cpu.F_OPENED if f_open >= f_ext else 0)
            )
    return h[m, n], flags


def _walk(q: np.ndarray, t: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``cpu.trace``'s walk from cell (m, n): its final state and operations (in order)."""
    m, n = len(q), len(t)
    ops = np.zeros(m + n + 1, dtype=np.uint8)
    walk = np.array([m, n, 0, 0, 0, 0], dtype=np.int64)
    cpu.trace(q, t, cpu.GLOBAL, DNA.unknown, flags.ravel(), 0, n + 1, 1, 0, walk, ops)
    return walk, ops[: walk[3]][::-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=300, help="pairs of each length")
    parser.add_argument("--lengths", type=int, nargs="+", default=[125, 512])
    args = parser.parse_args()
    _, genome = load_genome(None)
    for gap in ("linear", "affine"):
        scoring = dna_scoring(gap)
        matrix = np.ascontiguousarray(scoring.matrix, dtype=np.int64)
        best = int(matrix.max())
        for length in args.lengths:
            queries, targets, _ = simulate_batches(genome, length, args.pairs, seed=length)
            index = np.arange(len(queries))
            shifted = np.roll(index, 1)[:50]  # each read against another read's window
            for kind, q_index, t_index in (
                ("reads vs windows", index, index),
                ("unrelated", index[:50], shifted),
            ):
                cells = inside = 0
                engine = Aligner("global", scoring, device="cpu").align_indexed(
                    queries, targets, q_index, t_index, output="cigar"
                )
                pairs = [(queries[a], targets[b]) for a, b in zip(q_index, t_index, strict=True)]
                for p, (q, t) in enumerate(pairs):
                    score, full = _banded_flags(
                        q, t, matrix, scoring.gap_open, scoring.gap_extend, -len(q), len(t)
                    )
                    lo, hi = band(len(q), len(t), int(score), best, scoring.gap_extend)
                    banded_score, banded = _banded_flags(
                        q, t, matrix, scoring.gap_open, scoring.gap_extend, lo, hi
                    )
                    (walk, ops), (banded_walk, banded_ops) = _walk(q, t, full), _walk(q, t, banded)
                    assert banded_score == score == engine.score[p], (gap, length, kind, p)
                    assert np.array_equal(walk, banded_walk) and np.array_equal(ops, banded_ops)
                    cigar = _cpu_backend.cigar_strings(
                        ops, np.zeros(1, np.int64), np.array([len(ops)])
                    )
                    assert cigar[0] == engine.cigar[p], (gap, length, kind, p)
                    rows = np.arange(1, len(q) + 1)
                    inside += int(
                        np.clip(
                            np.minimum(len(t), rows + hi) - np.maximum(1, rows + lo) + 1, 0, None
                        ).sum()
                    )
                    cells += len(q) * len(t)
                print(
                    f"{gap:6s} {length:4d} bp {kind:16s} {len(pairs):5d} pairs equal, "
                    f"band {inside / cells:.3f} of the cells"
                )


if __name__ == "__main__":
    main()
