"""Which reads serve which contig end, and in which orientation (MetaHipMer2 §2).

Alignments come in as plain arrays (:class:`Alignments`) in MHM2's convention: read
coordinates on the forward read, contig coordinates on the forward contig, 0-based, end-exclusive;
``minus`` means the read aligns to the reverse complement of the contig. Reads of a pair are
``2 * pair`` and ``2 * pair + 1`` (a read's mate is ``read ^ 1``).

MHM2's behaviour is kept, quirks included: for ``-`` alignments the start test compares
``rstart - 1`` with ``clen - cstop`` (no ``- 1``) and the end test ``rlen - rstop`` with
``cstart - 1``, so a ``-`` read ending exactly at the contig start counts as overhanging it; a
read that is both a direct overhang and a projected mate of its mate serves the side twice; mates
are projected whether or not the read itself overhangs. MHM2's per-side read order is that of a
distributed hash table; here it is (contig, side, read index), which only matters for the cap.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .options import LocalAssemblyOptions

__all__ = ["LEFT", "RIGHT", "Alignments", "SideReads", "best_per_read", "select_reads"]

LEFT, RIGHT = 0, 1


class Alignments(NamedTuple):
    """One row per read-to-contig alignment, in input order."""

    read: np.ndarray
    contig: np.ndarray
    minus: np.ndarray
    rstart: np.ndarray
    rstop: np.ndarray
    rlen: np.ndarray
    cstart: np.ndarray
    cstop: np.ndarray
    clen: np.ndarray
    score: np.ndarray

    @classmethod
    def empty(cls) -> Alignments:
        """No alignments."""
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, np.zeros(0, dtype=bool), z, z, z, z, z, z, z)

    @classmethod
    def from_rows(cls, rows: list[tuple]) -> Alignments:
        """From tuples (read, contig, '+'|'-', rstart, rstop, rlen, cstart, cstop, clen, score)."""
        if not rows:
            return cls.empty()
        cols = list(zip(*rows, strict=True))
        ints = [np.asarray(c, dtype=np.int64) for c in cols[3:]]
        return cls(
            np.asarray(cols[0], dtype=np.int64),
            np.asarray(cols[1], dtype=np.int64),
            np.asarray(cols[2]) == "-",
            *ints,
        )

    def take(self, index: np.ndarray) -> Alignments:
        """The rows at ``index``."""
        return Alignments(*(column[index] for column in self))


class SideReads(NamedTuple):
    """Reads per contig side, sorted by (contig, side, read): ``flip`` = reverse-complement."""

    contig: np.ndarray
    side: np.ndarray
    read: np.ndarray
    flip: np.ndarray
    direct: int
    projected: int
    excess: int


def _within_unaligned(alns: Alignments, limit: int) -> np.ndarray:
    """MHM2's filter: at most ``limit`` unaligned bases past the read or contig end, each side."""
    cstart = np.where(alns.minus, alns.clen - alns.cstop, alns.cstart)
    cstop = np.where(alns.minus, alns.clen - alns.cstart, alns.cstop)
    left = np.minimum(alns.rstart, cstart)
    right = np.minimum(alns.rlen - alns.rstop, alns.clen - cstop)
    return (left <= limit) & (right <= limit)


def _identity_at_least(alns: Alignments, identity: float) -> np.ndarray:
    """Aligned part at least ``identity``: ``score >= (2 * identity - 1) * aligned read bases``.

    With +1/-1 scores an ungapped aligned part of ``n`` bases with ``m`` mismatches scores
    ``n - 2m``, so this keeps ``1 - m / n >= identity``.
    """
    return alns.score >= (2.0 * identity - 1.0) * (alns.rstop - alns.rstart)


def best_per_read(alns: Alignments, ties: str) -> Alignments:
    """The highest-scoring alignment of each read; ties: ``last`` in input order or ``lowest``."""
    n = len(alns.read)
    order_in = np.arange(n)
    if ties == "last":
        order = np.lexsort((order_in, alns.score, alns.read))
        keep = np.ones(n, dtype=bool)
        keep[:-1] = alns.read[order][1:] != alns.read[order][:-1]
    else:
        order = np.lexsort((order_in, alns.rstart, alns.cstart, -alns.score, alns.read))
        keep = np.ones(n, dtype=bool)
        keep[1:] = alns.read[order][1:] != alns.read[order][:-1]
    return alns.take(order[keep])


def select_reads(
    alns: Alignments,
    read_lengths: np.ndarray,
    options: LocalAssemblyOptions,
    min_pair_len: int | None,
) -> SideReads:
    """Direct overhangs and projected mates per contig side, capped per side.

    Alignments are first filtered (unaligned overhang, ``options.min_identity``), then each
    read keeps its best-scoring alignment.

    ``min_pair_len`` is ``insert_avg + 3 * insert_stddev`` for paired reads, ``None`` for
    single-end reads (no mates are projected).
    """
    passing = _within_unaligned(alns, options.max_unaligned)
    if options.min_identity > 0.0:
        passing &= _identity_at_least(alns, options.min_identity)
    alns = alns.take(np.flatnonzero(passing))
    best = best_per_read(alns, options.best_alignment_ties)
    plus = ~best.minus
    # classify(read_unaligned, contig_unaligned): EXTENDS if read_unaligned > contig_unaligned
    start_ext = np.where(
        plus, best.rstart - 1 > best.cstart - 1, best.rstart - 1 > best.clen - best.cstop
    )
    end_ext = np.where(
        plus,
        best.rlen - best.rstop > best.clen - best.cstop,
        best.rlen - best.rstop > best.cstart - 1,
    )
    second = end_ext if options.overhang_both_sides else end_ext & ~start_ext
    # (read, contig, read aligns '-', side is left)
    parts = [
        (
            best.read[start_ext],
            best.contig[start_ext],
            best.minus[start_ext],
            ~best.minus[start_ext],
        ),
        (best.read[second], best.contig[second], best.minus[second], best.minus[second]),
    ]
    direct = int(start_ext.sum() + second.sum())
    projected = 0
    if min_pair_len is not None:
        overlap = np.where(
            plus,
            min_pair_len - best.rlen - best.rstart + 1 <= best.clen - best.cstart,
            min_pair_len - 2 * best.rlen + best.rstart - 1 <= best.cstart,
        )
        mates = ~overlap
        projected = int(mates.sum())
        # the mate takes the flipped orientation; side R for a '+' read, L for a '-' read
        parts.append((best.read[mates] ^ 1, best.contig[mates], plus[mates], best.minus[mates]))
    read = np.concatenate([p[0] for p in parts])
    contig = np.concatenate([p[1] for p in parts])
    minus = np.concatenate([p[2] for p in parts])
    side = np.where(np.concatenate([p[3] for p in parts]), LEFT, RIGHT)
    flip = (minus & (side == RIGHT)) | (~minus & (side == LEFT))
    usable = read_lengths[read] >= options.min_read_length
    read, contig, side, flip = read[usable], contig[usable], side[usable], flip[usable]
    order = np.lexsort((np.arange(len(read)), read, side, contig))
    read, contig, side, flip = read[order], contig[order], side[order], flip[order]
    rank = _rank_within_groups(contig * 2 + side)
    kept = rank < options.max_reads_per_side
    return SideReads(
        contig[kept], side[kept], read[kept], flip[kept], direct, projected, int((~kept).sum())
    )


def _rank_within_groups(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... within each run of equal (sorted) keys."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.ones(len(keys), dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    first = np.maximum.accumulate(np.where(starts, np.arange(len(keys)), 0))
    return np.arange(len(keys)) - first
