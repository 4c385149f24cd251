"""tools/band_windows.py: the score's bound on a pair's diagonals, a warp's window and its misses."""

from __future__ import annotations

import re
from types import ModuleType

import numpy as np
import pytest

from seqwarp.align import Aligner
from seqwarp.bench.align_gpu_plan import dna_scoring
from seqwarp.bench.workloads import simulate_batches
from tool_modules import load_tool


def _tool() -> ModuleType:
    return load_tool("band_windows")


def _path_diagonals(cigar: str, query_begin: int, target_begin: int) -> tuple[int, int]:
    """The least and most diagonal j - i of the cells an alignment passes, from its CIGAR."""
    i, j = query_begin, target_begin
    seen = [j - i]
    for count, op in re.findall(r"(\d+)([=XID])", cigar):
        for _ in range(int(count)):
            i += op in "=XI"
            j += op in "=XD"
            seen.append(j - i)
    return min(seen), max(seen)


@pytest.mark.parametrize("mode", ["global", "semi-global", "local"])
@pytest.mark.parametrize("gap", ["linear", "affine"])
def test_the_bound_holds_the_optimal_path(mode: str, gap: str) -> None:
    # reads against their windows and against other reads' windows: the CPU engine's optimal
    # path stays on the diagonals the score allows
    rng = np.random.default_rng(7)
    genome = rng.choice(np.frombuffer(b"ACGT", dtype=np.uint8), 20_000)
    queries, targets, _ = simulate_batches(genome, 60, 150, seed=3)
    scoring = dna_scoring(gap)
    for t_index in (np.arange(150), np.roll(np.arange(150), 1)):
        result = Aligner(mode, scoring, device="cpu").align_indexed(
            queries, targets, np.arange(150), t_index, output="cigar"
        )
        m, n = queries.lengths, targets.lengths[t_index]
        lo, hi = _tool().score_bounds(mode, m, n, result.score, 2, 1)
        for p in range(150):
            if mode != "global" and result.score[p] <= 0:
                assert lo[p] > hi[p]  # the walk never takes the band's word for these
                continue
            least, most = _path_diagonals(
                result.cigar[p], int(result.query_begin[p]), int(result.target_begin[p])
            )
            assert lo[p] <= least and most <= hi[p], (p, lo[p], hi[p], least, most)


def test_global_bound_of_exact_and_gapped_pairs() -> None:
    tool = _tool()
    # identical sequences of 10: no gap residue to spare, only the main diagonal
    lo, hi = tool.score_bounds("global", [10], [10], [20], 2, 1)
    assert (lo[0], hi[0]) == (0, 0)
    # 10 against 13 with 10 matches and 3 deletions (score 17): diagonals 0 to 3 exactly
    lo, hi = tool.score_bounds("global", [10], [13], [17], 2, 1)
    assert (lo[0], hi[0]) == (0, 3)
    # a score of 11 allows (2 * 23 - 2 * 11) / 4 = 6 gap residues, 3 more than the lengths'
    # difference needs: a diagonal more on each side (3 / 2)
    lo, hi = tool.score_bounds("global", [10], [13], [11], 2, 1)
    assert (lo[0], hi[0]) == (-1, 4)


def test_warp_windows_are_centred_on_the_warps_differences() -> None:
    tool = _tool()
    # 4 threads a group: 8 groups of two pairs, 16 pairs a warp; the second warp is partial
    m = np.full(20, 100)
    n = np.concatenate([100 + np.arange(16), [103, 107, 0, 105]])
    lo = tool.warp_first_diagonals(m, n, width=49, group=4)
    # first warp: differences 0..15 centred in 49 diagonals
    assert np.all(lo[:16] == 0 - (48 - 15) // 2)
    # second warp: 3..7 (the empty pair left out), window from 0, as the kernel's min(0, n - m)
    assert np.all(lo[16:] == 0 - (48 - 7) // 2)
    # C++'s division: a window narrower than the differences starts past the least
    assert tool._c_div(np.array([-5]), 2)[0] == -2
    narrow = tool.warp_first_diagonals(m[:16], n[:16], width=11, group=4)
    assert narrow[0] == 0 - tool._c_div(10 - 15, 2) == 2


def test_missed_counts_pairs_outside_their_window() -> None:
    tool = _tool()
    m = np.full(16, 100)
    n = np.full(16, 104)
    score = np.full(16, 2 * 100 - 4)  # every residue matched, 4 deletions: diagonals 0..4
    score[3] = 2 * 100 - 4 - 40  # room for 20 more gap residues: 10 more diagonals each side
    out = tool.missed("global", m, n, score, 2, 1, columns=4, group=4)  # 13 diagonals: -4..8
    assert out.tolist() == [k == 3 for k in range(16)]
    assert not tool.missed("global", m, n, score, 2, 1, columns=8, group=4).any()  # 25


def test_local_bound_is_tight_at_a_corner() -> None:
    # the best local path, CCCC at the query's end against the target's start, lies on
    # diagonal -4, the first one with 4 cells (its score 8 over the best score 2)
    result = Aligner("local", dna_scoring("linear"), device="cpu").align(
        ["AAAACCCC"], ["CCCCGGGG"], output="cigar"
    )
    lo, hi = _tool().score_bounds("local", [8], [8], result.score, 2, 1)
    least, most = _path_diagonals(
        result.cigar[0], int(result.query_begin[0]), int(result.target_begin[0])
    )
    assert (lo[0], hi[0]) == (-4, 4)
    assert least == most == -4
