"""Mer-walks with k up/down-shifts for many contig ends at once (MetaHipMer2 §3, §5, §6).

For each contig end and each k the oriented reads are cut into k-mers whose successor bases
are voted on (:func:`count_mers`); the walk starts from the end's last k-mer and follows the
chosen bases (:func:`walk_mers`); :func:`iterate_k` shifts k by ``k_shift`` until a stop rule
fires and keeps the longest walk. Contig ends run in parallel and each writes only its own
output row, so the result does not depend on the number of threads.

This is MHM2's CPU variant: k-mers containing ``N`` are skipped, votes saturate at 65535, and
left ends are walked on the reverse complement of the right-extended contig.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, parallel_jit, prange
from .kmer_table import BASE, find, find_or_insert, hash_kmer, new_table
from .rules import DEAD_END, FORK, MHM2_RULE, ChoiceRule, choose_extension, depth_thresholds

__all__ = [
    "DEAD",
    "LIMIT",
    "NOT_WALKED",
    "REPEAT",
    "SPLIT",
    "EndsIn",
    "ReadsIn",
    "WalkOut",
    "WalkParams",
    "run_walks",
]

# walk outcomes: MHM2's X (dead end), F (fork), R (repeat); LIMIT is an X that ran out of steps
DEAD, SPLIT, REPEAT, LIMIT, NOT_WALKED = 0, 1, 2, 3, -1
N_CODE = 4
MAX_VOTES = 65535


class ReadsIn(NamedTuple):
    """Oriented reads of every end: read ``r`` is ``codes[offsets[r]:offsets[r + 1]]``."""

    codes: np.ndarray
    quals: np.ndarray
    offsets: np.ndarray


class EndsIn(NamedTuple):
    """Contig ends: the last ``<= max_k`` bases (``tails``), full length, depth, their reads."""

    tails: np.ndarray
    tail_offsets: np.ndarray
    lengths: np.ndarray
    depths: np.ndarray
    read_offsets: np.ndarray


class WalkParams(NamedTuple):
    """Scalars of the walk (see :class:`~seqwarp.assembly.options.LocalAssemblyOptions`)."""

    k_start: int
    min_k: int
    max_k: int
    k_shift: int
    walk_limit: int
    qual_offset: int
    min_qual: int
    hi_qual: int
    viable_factor: float
    expected_factor: float
    min_votes: int = MHM2_RULE.min_votes
    min_hiq_votes: int = MHM2_RULE.min_hiq_votes
    min_rating: int = MHM2_RULE.min_rating
    fork_ratio: float = MHM2_RULE.fork_ratio
    rival_ratio: float = MHM2_RULE.rival_ratio


class WalkOut(NamedTuple):
    """Per end ``e``: ``bases[e, :length[e]]`` is the longest walk, found at ``k[e]``."""

    bases: np.ndarray
    length: np.ndarray
    outcome: np.ndarray
    k: np.ndarray
    iterations: np.ndarray
    outcomes_seen: np.ndarray


# --- k-mer votes --------------------------------------------------------------------------


@jit
def count_mers(reads: ReadsIn, first: int, last: int, k: int, params: WalkParams) -> tuple:
    """Table and votes of every k-mer (with a successor) of reads ``first..last-1``."""
    # r = read, j = position in the read, s = table slot
    entries = 0
    for r in range(first, last):
        entries += max(0, reads.offsets[r + 1] - reads.offsets[r] - k)
    table = new_table(entries)
    votes = np.zeros((len(table.keys), 8), dtype=np.uint16)
    codes = reads.codes
    top = np.uint64(1)
    for _ in range(k):
        top = top * BASE
    for r in range(first, last):
        begin, end = reads.offsets[r], reads.offsets[r + 1]
        if k >= end - begin:
            continue
        h = np.uint64(0)
        last_n = begin - 1
        for j in range(begin, end - 1):
            h = h * BASE + np.uint64(codes[j])
            if j - begin >= k:
                h -= np.uint64(codes[j - k]) * top
            if codes[j] == N_CODE:
                last_n = j
            start = j - k + 1
            if start < begin or last_n >= start:
                continue
            s = find_or_insert(table, codes, start, k, h)
            ext = codes[j + 1]
            if ext == N_CODE:
                continue
            q = int(reads.quals[j + 1]) - params.qual_offset
            if q >= params.min_qual and votes[s, ext] < MAX_VOTES:
                votes[s, ext] += 1
            if q >= params.hi_qual and votes[s, 4 + ext] < MAX_VOTES:
                votes[s, 4 + ext] += 1
    return table, votes


# --- one walk -----------------------------------------------------------------------------


@jit
def walk_mers(
    reads: ReadsIn,
    table_votes: tuple,
    buffer: np.ndarray,
    k: int,
    thresholds: tuple,
    limit: int,
    rule: ChoiceRule,
) -> tuple:
    """Walk from ``buffer[0:k]``, appending bases to ``buffer``; returns (outcome, length)."""
    # n = step, the current k-mer is buffer[n:n + k]
    table, votes = table_votes
    visited = new_table(limit + 1)
    min_viable, min_expected = thresholds
    for n in range(limit):
        h = hash_kmer(buffer, n, k)
        if find(visited, buffer, buffer, n, k, h) >= 0:
            return REPEAT, n
        find_or_insert(visited, buffer, n, k, h)
        s = find(table, reads.codes, buffer, n, k, h)
        if s < 0:
            return DEAD, n
        ext = choose_extension(votes[s], min_viable, min_expected, rule)
        if ext == FORK:
            return SPLIT, n
        if ext == DEAD_END:
            return DEAD, n
        buffer[n + k] = ext
    return LIMIT, limit


# --- k shifting ---------------------------------------------------------------------------


@jit
def iterate_k(reads: ReadsIn, ends: EndsIn, e: int, params: WalkParams, out: WalkOut) -> None:
    """MHM2's iterative walks for end ``e``: shift k from ``k_start`` until a stop rule fires."""
    # e = contig end; the longest walk (earliest on ties) goes to out.bases[e]
    tail = ends.tails[ends.tail_offsets[e] : ends.tail_offsets[e + 1]]
    max_mer_len = min(params.max_k, ends.lengths[e])
    thresholds = depth_thresholds(ends.depths[e], params.viable_factor, params.expected_factor)
    rule = ChoiceRule(
        params.min_votes,
        params.min_hiq_votes,
        params.min_rating,
        params.fork_ratio,
        params.rival_ratio,
    )
    first, last = ends.read_offsets[e], ends.read_offsets[e + 1]
    buffer = np.empty(params.max_k + params.walk_limit, dtype=np.uint8)
    out.outcome[e] = NOT_WALKED
    out.length[e] = 0
    mer_len = params.k_start
    shift = 0
    iterations = 0
    while params.min_k <= mer_len <= max_mer_len:
        buffer[:mer_len] = tail[len(tail) - mer_len :]
        table_votes = count_mers(reads, first, last, mer_len, params)
        outcome, length = walk_mers(
            reads, table_votes, buffer, mer_len, thresholds, params.walk_limit, rule
        )
        out.outcomes_seen[e, outcome] += 1
        if iterations == 0 or length > out.length[e]:
            out.bases[e, :length] = buffer[mer_len : mer_len + length]
            out.length[e] = length
            out.outcome[e] = outcome
            out.k[e] = mer_len
        iterations += 1
        if outcome in (DEAD, LIMIT):
            if shift > 0:
                break
            shift = -params.k_shift
        else:
            if shift < 0:
                break
            shift = params.k_shift
        mer_len += shift
    out.iterations[e] = iterations


@parallel_jit
def _walk_all(reads: ReadsIn, ends: EndsIn, params: WalkParams, out: WalkOut) -> None:
    """Every contig end with reads, in parallel; each end writes only its own row."""
    # e = contig end
    for e in prange(len(ends.lengths)):
        if ends.read_offsets[e + 1] > ends.read_offsets[e]:
            iterate_k(reads, ends, e, params, out)
        else:
            out.outcome[e] = NOT_WALKED


def run_walks(reads: ReadsIn, ends: EndsIn, params: WalkParams) -> WalkOut:
    """Walk every end; ends without reads are not walked (outcome ``NOT_WALKED``)."""
    n = len(ends.lengths)
    out = WalkOut(
        bases=np.zeros((n, params.walk_limit), dtype=np.uint8),
        length=np.zeros(n, dtype=np.int64),
        outcome=np.full(n, NOT_WALKED, dtype=np.int64),
        k=np.zeros(n, dtype=np.int64),
        iterations=np.zeros(n, dtype=np.int64),
        outcomes_seen=np.zeros((n, 4), dtype=np.int64),
    )
    if n:
        _walk_all(reads, ends, params, out)
    return out
