"""Map reads to contig ends with seqwarp's own aligner: k-mer seeds, then local verification.

Only the ``window`` bases at each contig end are indexed (a whole contig when it is short), as
only reads near an end can overhang it or project a mate past it. Read k-mers every
``seed_step`` bases (both strands) are looked up; each (read strand, contig) keeps its most
seeded diagonal, a read at most ``max_per_read`` contigs; each candidate is aligned locally
against its diagonal's stretch of contig with MetaHipMer2's klign scores (+1/-1, gaps 1+1).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..sequences import SequenceBatch
from .seeds import packed_kmers
from .select import Alignments

__all__ = ["map_reads", "oriented_reads"]

SEED_K = 21
SEED_STEP = 8
MAX_SEED_HITS = 32
MAX_PER_READ = 20
PAD = 16
CHUNK_READS = 1 << 18


def oriented_reads(reads: SequenceBatch) -> SequenceBatch:
    """Reads ``0..n-1`` forward followed by the same reads reverse-complemented (``n..2n-1``)."""
    rc = reads.reverse_complement()
    fwd = reads.compact()
    offsets = np.concatenate([fwd.offsets, fwd.offsets[-1] + rc.offsets[1:]])
    quals = None
    if fwd.qualities is not None:
        quals = np.concatenate([fwd.qualities, rc.qualities])
    return SequenceBatch(
        np.concatenate([fwd.codes, rc.codes]), offsets, fwd.names + rc.names, fwd.alphabet, quals
    )


def _regions(contigs: SequenceBatch, window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(contig, start, stop) of the indexed stretches: both ends, or the whole short contig."""
    lengths = contigs.lengths
    short = lengths <= 2 * window
    ids = np.arange(len(contigs))
    contig = np.concatenate([ids[short], ids[~short], ids[~short]])
    start = np.concatenate(
        [
            np.zeros(short.sum(), np.int64),
            np.zeros((~short).sum(), np.int64),
            lengths[~short] - window,
        ]
    )
    stop = np.concatenate([lengths[short], np.full((~short).sum(), window), lengths[~short]])
    order = np.lexsort((start, contig))
    return contig[order], start[order], stop[order]


def _slices(batch: SequenceBatch, which: np.ndarray, start: np.ndarray, stop: np.ndarray):
    """A batch of ``batch[which[i]][start[i]:stop[i]]``."""
    lengths = stop - start
    offsets = np.zeros(len(which) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    first = batch.offsets[which] + start
    gather = np.repeat(first - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    names = tuple(str(i) for i in range(len(which)))
    return SequenceBatch(batch.codes[gather], offsets, names, batch.alphabet)


class SeedIndex(NamedTuple):
    """Sorted k-mers of the indexed contig stretches: value, region, position; region bounds."""

    value: np.ndarray
    region: np.ndarray
    position: np.ndarray
    contig: np.ndarray
    start: np.ndarray


def _index(contigs: SequenceBatch, window: int) -> SeedIndex:
    """Every k-mer of the contig ends, sorted by value (ties: region, then position)."""
    contig, start, stop = _regions(contigs, window)
    regions = _slices(contigs, contig, start, stop)
    value, region, position = packed_kmers(regions.codes, regions.offsets, SEED_K, 1)
    order = np.argsort(value, kind="stable")
    return SeedIndex(value[order], region[order], position[order], contig, start)


def _seed_hits(index: SeedIndex, both: SequenceBatch) -> tuple:
    """(query, contig, diagonal, votes) of the best-seeded diagonal per (query, contig)."""
    q_val, q_seq, q_pos = packed_kmers(
        both.codes, both.offsets - both.offsets[0], SEED_K, SEED_STEP
    )
    lo = np.searchsorted(index.value, q_val, side="left")
    count = np.searchsorted(index.value, q_val, side="right") - lo
    ok = (count > 0) & (count <= MAX_SEED_HITS)
    lo, count, q_seq, q_pos = lo[ok], count[ok], q_seq[ok], q_pos[ok]
    seed = np.repeat(np.arange(len(lo)), count)
    hit = np.repeat(lo - np.concatenate([[0], np.cumsum(count)[:-1]]), count) + np.arange(
        int(count.sum())
    )
    region = index.region[hit]
    query = q_seq[seed]
    ctg = index.contig[region]
    diagonal = index.start[region] + index.position[hit] - q_pos[seed]
    # votes per (query, contig, diagonal); keep the top diagonal per (query, contig)
    uniq, votes = np.unique(np.stack([query, ctg, diagonal]), axis=1, return_counts=True)
    order = np.lexsort((uniq[2], -votes, uniq[1], uniq[0]))
    uniq, votes = uniq[:, order], votes[order]
    first = np.ones(uniq.shape[1], dtype=bool)
    first[1:] = (uniq[0, 1:] != uniq[0, :-1]) | (uniq[1, 1:] != uniq[1, :-1])
    return uniq[0, first], uniq[1, first], uniq[2, first], votes[first]


def map_reads(
    contigs: SequenceBatch, reads: SequenceBatch, window: int, threads: int | None = None
) -> Alignments:
    """Alignments (MHM2 convention) of reads to the indexed contig ends, sorted by read."""
    from ..align import Aligner
    from ..scoring import Scoring

    index = _index(contigs, window)
    aligner = Aligner(
        "local",
        Scoring.dna(match=1, mismatch=-1, gap_open=1, gap_extend=1),
        device="cpu",
        threads=threads,
    )
    parts = [
        _map_chunk(contigs, reads[first : first + CHUNK_READS], first, index, aligner)
        for first in range(0, len(reads), CHUNK_READS)
    ]
    return Alignments(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def _map_chunk(
    contigs: SequenceBatch, reads: SequenceBatch, first: int, index: SeedIndex, aligner
) -> Alignments:
    """Seed and verify reads ``first..`` of one chunk."""
    n = len(reads)
    both = oriented_reads(reads)
    query, contig, diagonal, votes = _seed_hits(index, both)
    read = query % n
    # at most MAX_PER_READ contigs per read: most seed votes first, then lower contig index
    order = np.lexsort((contig, query >= n, -votes, read))
    starts = np.r_[True, read[order][1:] != read[order][:-1]]
    rank = np.arange(len(order)) - np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
    keep = np.sort(order[rank < MAX_PER_READ])
    query, contig, diagonal, read = query[keep], contig[keep], diagonal[keep], read[keep]
    rlen = both.lengths[query]
    clen = contigs.lengths[contig]
    t_start = np.clip(diagonal - PAD, 0, clen)
    t_stop = np.clip(diagonal + rlen + PAD, 0, clen)
    usable = t_stop > t_start
    if not usable.any():
        return Alignments.empty()
    query, contig, read, rlen, clen = (
        query[usable],
        contig[usable],
        read[usable],
        rlen[usable],
        clen[usable],
    )
    t_start, t_stop = t_start[usable], t_stop[usable]
    targets = _slices(contigs, contig, t_start, t_stop)
    result = aligner.align_indexed(
        both, targets, query, np.arange(len(query), dtype=np.int64), output="cigar"
    )
    minus = query >= n
    qb, qe = result.query_begin, result.query_end
    alns = Alignments(
        read + first,
        contig,
        minus,
        np.where(minus, rlen - qe, qb),
        np.where(minus, rlen - qb, qe),
        rlen,
        t_start + result.target_begin,
        t_start + result.target_end,
        clen,
        result.score,
    )
    order = np.lexsort((minus, contig, read))
    return alns.take(order[result.score[order] > 0])
