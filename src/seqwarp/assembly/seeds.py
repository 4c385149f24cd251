"""k-mer seeds: 2-bit packed k-mers (k <= 31) of many sequences, skipping those with ``N``."""

from __future__ import annotations

import numpy as np

from .._jit import jit

__all__ = ["packed_kmers"]


@jit
def _count(offsets: np.ndarray, k: int, step: int) -> int:
    total = 0
    for i in range(len(offsets) - 1):
        n = offsets[i + 1] - offsets[i] - k + 1
        if n > 0:
            total += (n + step - 1) // step
    return total


@jit
def packed_kmers(codes: np.ndarray, offsets: np.ndarray, k: int, step: int) -> tuple:
    """(value, sequence, position) of the k-mers at positions 0, step, 2 * step, ... without N."""
    # i = sequence, p = position in it, j = base of the k-mer
    total = _count(offsets, k, step)
    values = np.empty(total, dtype=np.uint64)
    which = np.empty(total, dtype=np.int64)
    where = np.empty(total, dtype=np.int64)
    n = 0
    for i in range(len(offsets) - 1):
        begin, end = offsets[i], offsets[i + 1]
        for p in range(0, end - begin - k + 1, step):
            value = np.uint64(0)
            clean = True
            for j in range(begin + p, begin + p + k):
                c = codes[j]
                if c > 3:
                    clean = False
                    break
                value = (value << np.uint64(2)) | np.uint64(c)
            if clean:
                values[n] = value
                which[n] = i
                where[n] = p
                n += 1
    return values[:n], which[:n], where[:n]
