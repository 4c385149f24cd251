"""Lay contig ends and their oriented reads out as the flat arrays the walk kernel reads."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import UnexpectedError
from ..sequences import SequenceBatch
from .walk import EndsIn, ReadsIn

__all__ = ["pack_ends"]


def pack_ends(
    sequences: Sequence[np.ndarray],
    depths: np.ndarray,
    reads: SequenceBatch,
    reads_per_end: np.ndarray,
    max_k: int,
) -> tuple[ReadsIn, EndsIn]:
    """Ends (codes of the sequence to walk from) with ``reads_per_end[e]`` reads each, in order.

    ``reads`` holds every end's reads already oriented, end after end; only the last ``max_k``
    bases of each sequence are kept (the walk never looks further back).
    """
    if reads.qualities is None:
        raise UnexpectedError("reads without qualities reached the walk")
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    tails = [s[max(0, len(s) - max_k) :] for s in sequences]
    tail_offsets = np.zeros(len(tails) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in tails], out=tail_offsets[1:])
    read_offsets = np.zeros(len(tails) + 1, dtype=np.int64)
    np.cumsum(reads_per_end, out=read_offsets[1:])
    compact = reads.compact()
    ends = EndsIn(
        tails=np.concatenate(tails).astype(np.uint8) if tails else np.zeros(0, np.uint8),
        tail_offsets=tail_offsets,
        lengths=lengths,
        depths=np.asarray(depths, dtype=np.int64),
        read_offsets=read_offsets,
    )
    reads_in = ReadsIn(compact.codes, compact.qualities, compact.offsets - compact.offsets[0])
    return reads_in, ends
