"""CUDAMPF++ data layout: targets packed into balanced, padded, striped blocks of S lanes.

Each block is a rectangle of ``rows x S`` residue codes stored row-major: lane ``s`` holds a
column of whole sequences, each followed by the ``END`` code, and the column is filled up to the
block's height with ``PAD``. A kernel (one warp per block on the GPU, one thread per block on the
CPU) walks the rows and advances all S lanes together; ``END`` closes a lane's sequence and
opens the next one. Balancing follows the seed's Algorithm 1 (fill containers up to the longest
one); here it is done without a Python loop: sequences sorted by length are dealt to the
containers in serpentine order, and containers of similar length are grouped into blocks so
that padding stays small. Pure numpy: the planner is independent of any device.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .profile import END, PAD

__all__ = ["StripedBlocks", "pack"]


@dataclass(frozen=True)
class StripedBlocks:
    """Targets in striped blocks; lane ``b * lanes + s`` is column ``s`` of block ``b``."""

    residues: np.ndarray  # uint8[rows_total, lanes]: all blocks, stacked row-major
    row_offsets: np.ndarray  # int64[blocks + 1]: rows of block b
    lane_offsets: np.ndarray  # int64[blocks * lanes + 1]: slice of lane_order per lane
    lane_order: np.ndarray  # int64[n]: sequence indices, in the order the lanes meet them
    lanes: int

    @property
    def blocks(self) -> int:
        return len(self.row_offsets) - 1

    @property
    def padding(self) -> int:
        """Number of ``PAD`` cells: work the kernels spend on nothing."""
        return int(np.count_nonzero(self.residues == PAD))


def pack(
    codes: np.ndarray, offsets: np.ndarray, *, lanes: int = 16, blocks: int = 64
) -> StripedBlocks:
    """Pack the CSR sequences ``codes[offsets[i]:offsets[i+1]]`` into ``blocks`` blocks."""
    lengths = np.diff(offsets).astype(np.int64)
    n = len(lengths)
    blocks = max(1, min(blocks, -(-n // lanes)))
    containers = blocks * lanes
    rank_order = np.argsort(-lengths, kind="stable")
    rank = np.arange(n, dtype=np.int64)
    turn, position = np.divmod(rank, containers)
    container_of_rank = np.where(turn % 2 == 0, position, containers - 1 - position)
    container = np.empty(n, dtype=np.int64)
    container[rank_order] = container_of_rank
    cells = lengths + 1  # residues plus the END code
    load = np.bincount(container, weights=cells, minlength=containers).astype(np.int64)

    by_load = np.argsort(-load, kind="stable")  # containers of similar load share a block
    lane_of_container = np.empty(containers, dtype=np.int64)
    lane_of_container[by_load] = np.arange(containers)
    heights = load[by_load].reshape(blocks, lanes).max(axis=1)
    row_offsets = np.zeros(blocks + 1, dtype=np.int64)
    np.cumsum(heights, out=row_offsets[1:])

    lane = lane_of_container[container]  # global lane of each sequence
    lane_order = np.lexsort((rank_order.argsort(kind="stable"), lane))  # by lane, then rank
    lane_counts = np.bincount(lane, minlength=containers)
    lane_offsets = np.zeros(containers + 1, dtype=np.int64)
    np.cumsum(lane_counts, out=lane_offsets[1:])

    before = np.cumsum(cells[lane_order]) - cells[lane_order]  # cells ahead, over all lanes
    used = lane_counts > 0
    lane_base = np.repeat(before[lane_offsets[:-1][used]], lane_counts[used])
    first = np.empty(n, dtype=np.int64)
    first[lane_order] = before - lane_base  # row of each sequence's first residue in its block

    residues = np.full((int(row_offsets[-1]), lanes), PAD, dtype=np.uint8)
    block_of = lane // lanes
    column = lane % lanes
    base_row = row_offsets[block_of] + first
    total = int(lengths.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1] - offsets[0], lengths)
    seq_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
    residues[base_row[seq_of] + within, column[seq_of]] = codes[offsets[0] : offsets[-1]]
    residues[base_row + lengths, column] = END
    return StripedBlocks(residues, row_offsets, lane_offsets, lane_order.astype(np.int64), lanes)
