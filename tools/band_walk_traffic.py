"""The walk's flag loads and DRAM sectors a pair after a band fill, by how the flags lie.

The band fill (``kernels/align_band.cuh``) stores each cell's direction flags by step of its
group's wavefront: thread ``cb % G`` writes block ``cb``'s row ``i`` at step
``s = i + cb - b(1) - 1``, ``B`` bytes a thread and step. Laid out step after step (a chunk
of one step), a thread's flags of step ``s - 1`` lie ``G B`` bytes before those of ``s``;
in chunks of ``C`` steps, a thread's flags of ``C`` consecutive steps lie side by side. The
walk (``kernels/align_trace.cu``) moves back from the end cell a cell at a time and reads a
cell's flags through a 16-byte window held in registers, loading the aligned 16 bytes that
hold them whenever it leaves the ones it holds. This tool follows the CPU engine's optimal
paths of the benchmark's traceback pairs (reads against their windows,
``simulate_batches(genome, L, pairs, seed=1 + L)``) through each layout and counts, a pair,
the window loads, the distinct 32-byte sectors they touch and the distinct 256-byte lines
those lie in: what the walk asks of L2 and, once the flags have left L2, of DRAM (a sector a
miss with plain loads, a line with the 256-byte fetch the walk takes on flags laid out by
step, if L2 kept each line until the walk's last read of it), without a GPU.

    python tools/band_walk_traffic.py --data .benchdata/align-gpu --length 125 --mode global \\
        --gap linear --tile 16x4 --chunks 1 4 8 --pairs 2000
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

from seqwarp.align import Aligner
from seqwarp.align._gpu_traceback import _thread_bytes
from seqwarp.bench.align_gpu_plan import dna_scoring
from seqwarp.bench.workloads import load_genome, simulate_batches

_WINDOW = 16  # bytes the walk holds (its Window)
_SECTOR = 32
_LINE = 256  # the walk's wide fetch (PTX's L2::256B)


def path_cells(cigar: str, query_end: int, target_end: int) -> list[tuple[int, int]]:
    """The cells (i, j) whose flags the walk reads, from the end cell back: each step's cell
    before the step, up to row or column 0."""
    i, j = query_end, target_end
    cells = []
    for count, op in reversed(re.findall(r"(\d+)([=XID])", cigar)):
        for _ in range(int(count)):
            if i == 0 or j == 0:
                return cells
            cells.append((i, j))
            i -= op in "=XI"
            j -= op in "=XD"
    return cells


def flag_bytes_along(
    cells: list[tuple[int, int]], columns: int, group: int, affine: bool, chunk: int, lo: int
) -> np.ndarray:
    """Each cell's byte of flags past its pair's first (4 bits a cell with affine gaps, 2 with
    linear ones), the band's flags in chunks of ``chunk`` steps a thread (``lo``: the warp's
    first diagonal)."""
    bits = 4 if affine else 2
    row_bytes = _thread_bytes(columns, affine)
    first_block = max(0, lo) // columns
    i = np.array([cell[0] for cell in cells], dtype=np.int64)
    j = np.array([cell[1] for cell in cells], dtype=np.int64)
    block, column = (j - 1) // columns, (j - 1) % columns
    step = i + block - first_block - 1
    return (
        (step // chunk * group + block % group) * chunk * row_bytes
        + step % chunk * row_bytes
        + column * bits // 8
    )


def walk_traffic(offsets: np.ndarray) -> tuple[int, int, int]:
    """The walk's 16-byte window loads along ``offsets`` (a load each time it leaves the
    window it holds), the distinct 32-byte sectors those touch and their distinct 256-byte
    lines."""
    windows = offsets // _WINDOW
    loads = int(np.count_nonzero(np.diff(windows, prepend=-1)))
    return loads, len(np.unique(offsets // _SECTOR)), len(np.unique(offsets // _LINE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the benchmark's inputs")
    parser.add_argument("--length", type=int, default=125)
    parser.add_argument("--mode", default="global", choices=["global", "semi-global", "local"])
    parser.add_argument("--gap", default="linear", choices=["linear", "affine"])
    parser.add_argument("--tile", default="16x4", help="band tile: columns x threads")
    parser.add_argument("--chunks", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--pairs", type=int, default=2000)
    args = parser.parse_args()
    from band_windows import warp_first_diagonals  # tools/, beside this script

    columns, group = (int(x) for x in args.tile.split("x"))
    affine = args.gap == "affine"

    _, genome = load_genome(args.data / "genome.fa.gz")
    reads, windows, _ = simulate_batches(genome, args.length, args.pairs, seed=1 + args.length)
    m, n = reads.lengths.astype(np.int64), windows.lengths.astype(np.int64)
    aligner = Aligner(args.mode, dna_scoring(args.gap), device="cpu")
    result = aligner.align(reads, windows, output="cigar")
    lo = warp_first_diagonals(m, n, group * columns - columns + 1, group)
    paths = [
        path_cells(result.cigar[p], int(result.query_end[p]), int(result.target_end[p]))
        for p in range(args.pairs)
    ]
    print(f"{args.pairs} pairs of {args.length} bp, {args.mode} {args.gap}, band {args.tile}:")
    for chunk in args.chunks:
        counts = [
            walk_traffic(flag_bytes_along(path, columns, group, affine, chunk, int(lo[p])))
            for p, path in enumerate(paths)
        ]
        loads, sectors, lines = np.mean(counts, axis=0)
        print(
            f"  chunks of {chunk} steps: {loads:6.1f} window loads, {sectors:6.1f} sectors "
            f"({32 * sectors:5.0f} bytes), {lines:5.1f} 256-byte lines ({256 * lines:5.0f} "
            "bytes) a pair"
        )


if __name__ == "__main__":
    main()
