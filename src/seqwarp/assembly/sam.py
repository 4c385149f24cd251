"""Alignments from a SAM/BAM file the user already has (read with pysam).

htslib's own messages on stderr are captured while the file is read and turned into one
:class:`~seqwarp.errors.SequenceFileError` naming the file, as are pysam's exceptions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import tempfile
from collections.abc import Callable, Iterator

import numpy as np

from ..errors import SequenceFileError
from .select import Alignments

__all__ = ["read_alignments"]

_CLIP = (4, 5)  # S, H
_QUERY = (0, 1, 7, 8)  # M, I, =, X
_OTHER_CONTIGS = "the alignments were made against other contigs"


def read_alignments(
    path: str | os.PathLike[str],
    contig_index: dict[str, int],
    contig_lengths: np.ndarray,
    read_index: dict[str, int],
    paired: bool,
) -> Alignments:
    """Every mapped record as an alignment in MHM2's convention, in file order.

    Reads are found by name (``/1`` and ``/2`` suffixes removed) and, for pairs, by the
    READ1/READ2 flags; the score is the ``AS`` tag, else aligned read bases minus ``NM``. The
    ``@SQ`` header lines must name contigs of ``contig_index`` with their lengths.
    """
    path_str = os.fspath(path)
    if not os.path.exists(path_str):
        raise SequenceFileError(path_str, "no such file")
    if os.path.isdir(path_str):
        raise SequenceFileError(path_str, "is a directory, not a SAM/BAM file")
    rows = _read_quietly(
        path_str,
        lambda: _read_rows(path_str, contig_index, contig_lengths, read_index, paired),
    )
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


def _read_quietly(path: str, read: Callable[[], list[tuple]]) -> list[tuple]:
    """``read()`` (the rows of ``path``) with htslib's messages and pysam's exceptions as one
    error naming ``path``."""
    failure = None
    with _htslib_messages() as messages:
        try:
            rows = read()
        except (ValueError, OSError) as error:
            if isinstance(error, SequenceFileError):
                raise
            rows, failure = [], error
    if failure is not None or messages:
        raise SequenceFileError(path, _describe(failure, messages))
    return rows


def _read_rows(
    path: str,
    contig_index: dict[str, int],
    contig_lengths: np.ndarray,
    read_index: dict[str, int],
    paired: bool,
) -> list[tuple]:
    """One row per mapped record, after checking the header against the contigs."""
    import pysam

    rows: list[tuple] = []
    with pysam.AlignmentFile(path, "r", check_sq=False) as handle:
        _check_header(path, handle, contig_index, contig_lengths)
        for rec in handle:
            if rec.is_unmapped or rec.cigartuples is None:
                continue
            rows.append(_row(path, rec, contig_index, read_index, paired))
    return rows


def _describe(error: Exception | None, messages: list[str]) -> str:
    """Why the file was refused: htslib's first messages, else pysam's exception.

    pysam's message for a bad header carries an unfilled ``(mode='%s')``, so it is replaced.
    """
    if isinstance(error, OSError) and error.errno == errno.ENOEXEC:
        return "not a SAM/BAM file (unknown format)"
    if messages:
        more = f"; {len(messages) - 2} more message(s)" if len(messages) > 2 else ""
        return f"malformed ({'; '.join(messages[:2])}{more})"
    text = str(error)
    if "valid header" in text:
        return "invalid SAM header (each @SQ line needs a unique SN: name and a numeric LN:)"
    return f"not a readable SAM/BAM file ({text})"


def _check_header(path: str, handle, contig_index: dict, contig_lengths: np.ndarray) -> None:
    """A SAM/BAM whose ``@SQ`` lines are the contigs (names and lengths), else why not."""
    if not (handle.is_sam or handle.is_bam or handle.is_cram):
        raise SequenceFileError(path, f"not a SAM/BAM file (htslib sees {handle.description})")
    if not handle.references:
        raise SequenceFileError(path, "has no @SQ header lines; keep the header (samtools view -h)")
    for name, length in zip(handle.references, handle.lengths, strict=True):
        if name not in contig_index:
            raise SequenceFileError(
                path, f"@SQ {name!r} is not among the contigs; {_OTHER_CONTIGS}"
            )
        expected = int(contig_lengths[contig_index[name]])
        if length != expected:
            raise SequenceFileError(
                path, f"@SQ {name!r} has LN:{length}, the contig {expected}; {_OTHER_CONTIGS}"
            )


@contextlib.contextmanager
def _htslib_messages() -> Iterator[list[str]]:
    """Collect htslib's warnings and errors instead of letting them reach stderr.

    htslib writes to the process's stderr, so file descriptor 2 points at a temporary file
    for the duration; the list is filled when the block ends.
    """
    messages: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            yield messages
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            messages.extend(_htslib_lines(captured.read()))


def _htslib_lines(raw: bytes) -> list[str]:
    """htslib's ``[W::function] text`` / ``[E::function] text`` lines, without the prefix."""
    return [
        line.split("] ", 1)[1]
        for line in raw.decode("utf-8", "replace").splitlines()
        if line.startswith(("[W::", "[E::")) and "] " in line
    ]


def _row(path: str, rec, contig_index: dict, read_index: dict, paired: bool) -> tuple:
    name = rec.query_name
    if name.endswith(("/1", "/2")):
        name = name[:-2]
    if name not in read_index:
        raise SequenceFileError(path, f"record {rec.query_name!r}: read not in the read files")
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
