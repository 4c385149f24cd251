"""The GPU cross path's launches (``_gpu_cross.cross_launches``), planned on the host: every
target once, the indexed path's tile and profile for each, pair sets of one query.

No GPU needed: the plan is host code; ``test_gpu.py`` runs the path against the CPU engine.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from seqwarp.align import _gpu_backend, _gpu_cross
from seqwarp.scoring import Scoring

_DNA = Scoring.dna(2, -1, 2, 1)
_PROTEIN = Scoring.blosum62(11, 1)


def _per_target(launches: list, count: int) -> list[tuple[str, int, int]]:
    """(lane, group, columns) of each sorted target, checking that launches cover each once."""
    seen: list[tuple[str, int, int] | None] = [None] * count
    for launch, first, width in launches:
        assert width > 0
        for j in range(first, first + width):
            assert seen[j] is None, f"target {j} in two launches"
            seen[j] = (launch.kernel_lane, launch.group, launch.columns)
    assert None not in seen
    return seen


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 3000), min_size=1, max_size=80),
    st.sampled_from(["global", "local"]),
)
def test_launches_take_the_indexed_paths_tiles_and_pair_targets_two_by_two(
    lengths: list[int], mode: str
) -> None:
    """Each target runs on the tile and profile that the indexed path gives a pair of one
    query against it (the paired profile spelt as the plain one: the indexed path pairs
    sets of one query too), and a paired launch holds an even number of targets."""
    n = np.sort(np.array(lengths, dtype=np.int64))
    offset = mode != "local"
    launches = _gpu_cross.cross_launches(n, _DNA.matrix, offset, _DNA.gap_extend)
    plain = _gpu_backend._kernel_lane("s16x2", offset, _DNA.matrix, _DNA.gap_extend)
    for launch, _, width in launches:
        if "paired" in launch.kernel_lane:
            assert width % 2 == 0
            assert launch.columns <= _gpu_backend._PAIRED_MOST_COLUMNS
    got = _per_target(launches, len(n))
    m = np.full(len(n), 100, dtype=np.int64)
    indexed = _gpu_backend._plan(m, n, _DNA.matrix, 2, 1, "auto", offset=offset)
    want: list[tuple[str, int, int] | None] = [None] * len(n)
    for launch in indexed:
        for pair in launch.pairs:
            want[pair] = (launch.kernel_lane, launch.group, launch.columns)
    assert [(plain if "paired" in lane else lane, g, k) for lane, g, k in got] == want


def test_protein_launches_read_the_class_table() -> None:
    """A protein block's targets run on the class table's lane, never the paired profile."""
    n = np.array([5, 60, 61, 300, 700, 1500], dtype=np.int64)
    launches = _gpu_cross.cross_launches(n, _PROTEIN.matrix, False, _PROTEIN.gap_extend)
    lanes = {lane for lane, _, _ in _per_target(launches, len(n))}
    assert lanes == {"s16x2-table"}


def test_targets_past_seven_of_the_widest_stripes_are_left_to_the_indexed_path() -> None:
    """The split warps' threshold: 7 stripes of 512 columns for DNA, of 256 for protein."""
    assert _gpu_cross._long_targets(_DNA.matrix) == 7 * 512
    assert _gpu_cross._long_targets(_PROTEIN.matrix) == 7 * 256
