"""Open-addressing k-mer tables whose keys are positions in a code buffer, never copies.

A key is the start of a k-mer inside some ``uint8`` buffer (the reads, or a walk); the table
stores that position and the k-mer's 64-bit polynomial hash, and probes linearly. Hashes are
``sum(code[j] * B**(k-1-j))`` modulo 2**64, so a read's k-mers are hashed by rolling and a walk's
k-mer from scratch with the same value. Tables are sized to at most half full.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit

__all__ = ["KmerTable", "find", "find_or_insert", "hash_kmer", "new_table", "table_size"]

BASE = np.uint64(0x9E3779B97F4A7C15)
EMPTY = -1


class KmerTable(NamedTuple):
    """``keys[s]``: k-mer start in the owner's buffer (or -1); ``hashes[s]``: its hash."""

    keys: np.ndarray
    hashes: np.ndarray


@jit
def table_size(entries: int) -> int:
    """The smallest power of two holding ``entries`` at load <= 1/2 (at least 16)."""
    size = 16
    while size < 2 * entries:
        size *= 2
    return size


@jit
def new_table(entries: int) -> KmerTable:
    """An empty table for up to ``entries`` k-mers."""
    size = table_size(entries)
    return KmerTable(np.full(size, EMPTY, dtype=np.int64), np.zeros(size, dtype=np.uint64))


@jit
def hash_kmer(codes: np.ndarray, start: int, k: int) -> np.uint64:
    """Polynomial hash of ``codes[start:start + k]`` (the value a rolling hash reaches)."""
    h = np.uint64(0)
    for j in range(start, start + k):
        h = h * BASE + np.uint64(codes[j])
    return h


@jit
def _slot(h: np.uint64, mask: int) -> int:
    """Mix the hash (splitmix64 finaliser) and reduce it to a slot."""
    x = h ^ (h >> np.uint64(31))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return np.int64(x & np.uint64(mask))


@jit
def _same(a: np.ndarray, a_start: int, b: np.ndarray, b_start: int, k: int) -> bool:
    for j in range(k):
        if a[a_start + j] != b[b_start + j]:
            return False
    return True


@jit
def find(
    table: KmerTable, owner: np.ndarray, codes: np.ndarray, start: int, k: int, h: np.uint64
) -> int:
    """Slot of ``codes[start:start+k]`` (hash ``h``) in a table keyed into ``owner``, or -1."""
    mask = len(table.keys) - 1
    s = _slot(h, mask)
    while table.keys[s] != EMPTY:
        if table.hashes[s] == h and _same(owner, table.keys[s], codes, start, k):
            return s
        s = (s + 1) & mask
    return -1


@jit
def find_or_insert(table: KmerTable, codes: np.ndarray, start: int, k: int, h: np.uint64) -> int:
    """Slot of ``codes[start:start+k]``, inserting it (keyed into ``codes``) when absent."""
    mask = len(table.keys) - 1
    s = _slot(h, mask)
    while table.keys[s] != EMPTY:
        if table.hashes[s] == h and _same(codes, table.keys[s], codes, start, k):
            return s
        s = (s + 1) & mask
    table.keys[s] = start
    table.hashes[s] = h
    return s
