"""The striped-block layout: every lane decodes back to its sequences, blocks are balanced."""

from __future__ import annotations

import numpy as np
import pytest

from seqwarp.hmm.plan import pack
from seqwarp.hmm.profile import END, PAD


def _csr(lengths: list[int] | np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = np.random.default_rng(seed).integers(0, 29, size=offsets[-1]).astype(np.uint8)
    return codes, offsets


def _decode(blocks, codes, offsets) -> None:
    """Each lane holds its sequences, each closed by END, then only PAD."""
    for lane in range(blocks.blocks * blocks.lanes):
        b, s = divmod(lane, blocks.lanes)
        column = blocks.residues[blocks.row_offsets[b] : blocks.row_offsets[b + 1], s]
        members = blocks.lane_order[blocks.lane_offsets[lane] : blocks.lane_offsets[lane + 1]]
        expected = [np.append(codes[offsets[i] : offsets[i + 1]], END) for i in members]
        flat = np.concatenate(expected) if expected else np.zeros(0, dtype=np.uint8)
        assert np.array_equal(column[: len(flat)], flat)
        assert (column[len(flat) :] == PAD).all()


@pytest.mark.parametrize(
    ("lengths", "lanes", "blocks"),
    [
        ([5], 16, 64),  # one sequence
        ([1, 1, 1], 2, 1),  # L = 1
        ([0, 3, 0], 4, 2),  # empty sequences still get their END
        (list(range(1, 300)), 16, 8),
        (np.random.default_rng(3).integers(1, 3000, 1000), 8, 13),
    ],
)
def test_every_lane_decodes_to_its_sequences(lengths, lanes: int, blocks: int) -> None:
    codes, offsets = _csr(lengths)
    packed = pack(codes, offsets, lanes=lanes, blocks=blocks)
    _decode(packed, codes, offsets)
    assert sorted(packed.lane_order.tolist()) == list(range(len(lengths)))
    assert packed.residues.shape[1] == lanes


def test_blocks_are_balanced() -> None:
    lengths = np.random.default_rng(7).integers(50, 1500, 20000)
    codes, offsets = _csr(lengths)
    packed = pack(codes, offsets, lanes=16, blocks=32)
    heights = np.diff(packed.row_offsets)
    ideal = (lengths + 1).sum() / (16 * 32)
    assert heights.max() <= ideal + lengths.max() + 1
    assert packed.padding / packed.residues.size < 0.02  # PAD cells: under 2% of the work
