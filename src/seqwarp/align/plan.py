"""Work planning for alignment jobs: pure numpy on lengths, no device, testable in microseconds."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["cross_product_blocks", "largest_first", "slices_by_cells", "traceback_block"]


def largest_first(cells: np.ndarray) -> np.ndarray:
    """Pairs in decreasing order of work (stable): with dynamic scheduling the long pairs
    start first and the short ones fill the gaps, so no worker is left with a long tail."""
    return np.argsort(-cells, kind="stable")


def slices_by_cells(cells: np.ndarray, max_cells: int) -> Iterator[slice]:
    """Consecutive slices of pairs, each holding at most ``max_cells`` cells (at least one pair)."""
    total = np.cumsum(cells, dtype=np.int64)
    start = 0
    n = len(cells)
    while start < n:
        base = total[start - 1] if start else 0
        stop = int(np.searchsorted(total, base + max_cells, side="right"))
        stop = max(stop, start + 1)
        yield slice(start, min(stop, n))
        start = stop


def cross_product_blocks(
    n_queries: int, n_targets: int, max_pairs: int
) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """Blocks of whole query rows of the cross product: (query slice, query index, target index)."""
    rows = max(1, max_pairs // max(1, n_targets))
    for start in range(0, n_queries, rows):
        stop = min(n_queries, start + rows)
        q_index = np.repeat(np.arange(start, stop, dtype=np.int64), n_targets)
        t_index = np.tile(np.arange(n_targets, dtype=np.int64), stop - start)
        yield slice(start, stop), q_index, t_index


def traceback_block(query_length: int, target_length: int, max_bits: int = 1 << 24) -> int:
    """Rows per traceback block: the whole matrix when its direction bits fit ``max_bits``
    bytes, else about ``sqrt(m)`` rows (checkpointed, linear-space-style traceback)."""
    if query_length * (target_length + 1) <= max_bits:
        return max(1, query_length)
    return max(64, int(np.sqrt(query_length)) + 1)
