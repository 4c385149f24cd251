"""tools/band_walk_traffic.py: the walk's path, its flags' places by layout, its loads."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from tool_modules import load_tool


def _tool() -> ModuleType:
    return load_tool("band_walk_traffic")


def test_the_path_runs_back_from_the_end_cell_to_row_or_column_zero() -> None:
    # 2=1I1D from (0, 0): (1, 1), (2, 2), then I to (3, 2), D to (3, 3); the walk reads each
    # cell before its step, from the end cell back
    cells = _tool().path_cells("2=1I1D", 3, 3)
    assert cells == [(3, 3), (3, 2), (2, 2), (1, 1)]
    assert _tool().path_cells("1=3D", 1, 4) == [(1, 4), (1, 3), (1, 2), (1, 1)]
    # a path that reaches column 0 stops there (the rest is column 0's insertions, no flags)
    assert _tool().path_cells("3I1=", 4, 1) == [(4, 1)]


def test_chunks_of_one_step_are_the_step_layout() -> None:
    # align_band.cuh's layout by step: thread cb % G's bytes of step s at s G B + (cb % G) B
    tool = _tool()
    rng = np.random.default_rng(5)
    for _ in range(50):
        columns, group, bits = (int(rng.choice(x)) for x in ([8, 16, 20], [4, 8, 16], [2, 4]))
        lo = int(rng.integers(-30, 30))
        cells = [(int(rng.integers(1, 200)), int(rng.integers(1, 200))) for _ in range(20)]
        row_bytes = 4 * -(-columns * bits // 32)
        first = max(0, lo) // columns
        expected = [
            (i + (j - 1) // columns - first - 1) * group * row_bytes
            + (j - 1) // columns % group * row_bytes
            + (j - 1) % columns * bits // 8
            for i, j in cells
        ]
        got = tool.flag_bytes_along(cells, columns, group, bits == 4, 1, lo)
        assert got.tolist() == expected


def test_chunks_keep_every_cell_apart_and_a_diagonal_walk_in_fewer_sectors() -> None:
    tool = _tool()
    columns, group = 16, 4  # linear gaps: 2 bits a cell
    window = [(i, j) for i in range(1, 130) for j in range(max(1, i - 24), i + 25)]
    diagonal = [(i, i) for i in range(125, 0, -1)]
    counts = []
    for chunk in (1, 2, 4, 8):
        places = tool.flag_bytes_along(window, columns, group, False, chunk, -24)
        # a cell's bits: 4 cells a byte with linear gaps
        bit = places * 4 + np.array([(j - 1) % 4 for _, j in window])
        assert np.unique(bit).size == len(window)
        counts.append(
            tool.walk_traffic(tool.flag_bytes_along(diagonal, columns, group, False, chunk, -24))
        )
    # by step: a load a cell, two steps (16 bytes each, four threads' flags) a sector; chunks
    # of 2: a load every 2 steps, the same sectors; of 4: one window and nearly one sector every
    # 4 steps; of 8: the same loads, a sector every 8 steps but where a block's 16 steps
    # straddle three chunks. Every layout spreads the 125 steps' 2,000 bytes over the same
    # 256-byte lines (9: the walk's wide fetch brings them all)
    assert counts == [(125, 66, 9), (66, 66, 9), (37, 35, 9), (37, 23, 9)]


def test_loads_count_each_window_left_and_sectors_and_lines_once() -> None:
    # windows 0 0 0 1 2 0 18: five loads; sectors 0 0 0 0 1 0 9; lines 0 0 0 0 0 0 1
    assert _tool().walk_traffic(np.array([0, 1, 15, 16, 40, 3, 300])) == (5, 3, 2)
