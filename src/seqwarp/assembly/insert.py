"""Insert size of read pairs from their alignments to one contig (mean and stddev)."""

from __future__ import annotations

import numpy as np

from ..errors import InvalidParameter
from .select import Alignments

__all__ = ["MIN_PAIRS", "estimate_insert_size"]

MIN_PAIRS = 10
MAX_MISSING_SCORE = 4


def estimate_insert_size(best: Alignments) -> tuple[int, int]:
    """(mean, stddev), both truncated to integers, of pairs facing each other on one contig.

    ``best`` holds one alignment per read. As in MetaHipMer2 a pair counts only when both
    alignments score at least ``read length - 4`` (with +1/-1 scores: at most two errors).
    The fragment runs from the ``+`` mate's projected start to the ``-`` mate's projected end.
    """
    good = best.score >= best.rlen - MAX_MISSING_SCORE
    alns = best.take(np.flatnonzero(good))
    pair = alns.read // 2
    order = np.lexsort((alns.read, pair))
    alns, pair = alns.take(order), pair[order]
    both = np.flatnonzero((pair[1:] == pair[:-1]) & (alns.contig[1:] == alns.contig[:-1]))
    a, b = both, both + 1
    opposite = alns.minus[a] != alns.minus[b]
    a, b = a[opposite], b[opposite]
    plus = np.where(alns.minus[a], b, a)
    minus = np.where(alns.minus[a], a, b)
    start = alns.cstart[plus] - alns.rstart[plus]
    stop = alns.cstop[minus] + alns.rstart[minus]
    sizes = (stop - start)[stop > start]
    if len(sizes) < MIN_PAIRS:
        raise InvalidParameter(
            "insert_size",
            "auto",
            hint=f"only {len(sizes)} read pairs align facing each other on one contig "
            f"(at least {MIN_PAIRS} needed); give the insert size as MEAN:STDDEV",
        )
    return int(sizes.mean()), int(sizes.std())
