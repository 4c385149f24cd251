"""Alignments from a SAM/BAM file the user already has (read with pysam)."""

from __future__ import annotations

import os

import numpy as np

from ..errors import SequenceFileError
from .select import Alignments

__all__ = ["read_alignments"]

_CLIP = (4, 5)  # S, H
_QUERY = (0, 1, 7, 8)  # M, I, =, X


def read_alignments(
    path: str | os.PathLike[str],
    contig_index: dict[str, int],
    contig_lengths: np.ndarray,
    read_index: dict[str, int],
    paired: bool,
) -> Alignments:
    """Every mapped record as an alignment in MHM2's convention, in file order.

    Reads are found by name (``/1`` and ``/2`` suffixes removed) and, for pairs, by the
    READ1/READ2 flags; the score is the ``AS`` tag, else aligned read bases minus ``NM``.
    """
    import pysam

    path_str = os.fspath(path)
    if not os.path.exists(path_str):
        raise SequenceFileError(path_str, "no such file")
    rows: list[tuple] = []
    try:
        with pysam.AlignmentFile(path_str, "r", check_sq=False) as handle:
            for rec in handle:
                if rec.is_unmapped or rec.cigartuples is None:
                    continue
                rows.append(_row(path_str, rec, contig_index, read_index, paired))
    except SequenceFileError:
        raise
    except (ValueError, OSError) as error:
        raise SequenceFileError(path_str, f"not a readable SAM/BAM file ({error})") from None
    if not rows:
        return Alignments.empty()
    cols = np.asarray(rows, dtype=np.int64)
    return Alignments(
        cols[:, 0],
        cols[:, 1],
        cols[:, 2].astype(bool),
        cols[:, 3],
        cols[:, 4],
        cols[:, 5],
        cols[:, 6],
        cols[:, 7],
        contig_lengths[cols[:, 1]],
        cols[:, 8],
    )


def _row(path: str, rec, contig_index: dict, read_index: dict, paired: bool) -> tuple:
    name = rec.query_name
    if name.endswith(("/1", "/2")):
        name = name[:-2]
    if name not in read_index:
        raise SequenceFileError(path, f"record {rec.query_name!r}: read not in the read files")
    if rec.reference_name not in contig_index:
        raise SequenceFileError(
            path, f"record {rec.query_name!r}: contig {rec.reference_name!r} not in the contigs"
        )
    read = read_index[name]
    if paired:
        read = 2 * read + (1 if rec.is_read2 else 0)
    cigar = rec.cigartuples
    lead = 0
    for op, n in cigar:
        if op not in _CLIP:
            break
        lead += n
    used = sum(n for op, n in cigar if op in _QUERY)
    rlen = rec.infer_read_length()
    qstart, qstop = lead, lead + used
    if rec.is_reverse:
        qstart, qstop = rlen - qstop, rlen - qstart
    score = (
        rec.get_tag("AS")
        if rec.has_tag("AS")
        else used - (rec.get_tag("NM") if rec.has_tag("NM") else 0)
    )
    return (
        read,
        contig_index[rec.reference_name],
        int(rec.is_reverse),
        qstart,
        qstop,
        rlen,
        rec.reference_start,
        rec.reference_end,
        int(score),
    )
