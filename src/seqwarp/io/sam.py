"""SAM: queries as reads, targets as references; unaligned query flanks are soft-clipped.

What SAM requires of the inputs and how seqwarp meets it:

* Reference names must be unique: targets that share a name (after the cut at the first
  whitespace) are refused before aligning.
* Each read has one primary record: a query's best-scoring alignment (ties to the first in
  result order) is primary; its other alignments (``--top``, ``--all-vs-all``) are secondary
  (flag 0x100) with SEQ and QUAL ``*``, as the SAM specification recommends.
* A reference length must be at least 1: empty targets are left out of the header. A pair
  with an empty side (query or target), or with no aligned residue, is unmapped (flag 0x4).
  A query gets an unmapped record only when none of its pairs aligned; otherwise it is not
  repeated.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import IO

import numpy as np

from .. import __version__
from ..align.results import CigarResult, ScoreResult
from ..errors import SequenceFileError
from ..sequences import SequenceBatch
from .alignment_writer import AlignmentRecord, AlignmentWriter

UNMAPPED = 4
SECONDARY = 256


def _aligned(result: ScoreResult, queries: SequenceBatch, targets: SequenceBatch) -> np.ndarray:
    """Per pair, whether it has a CIGAR and both its sequences have residues."""
    if not isinstance(result, CigarResult):
        return np.zeros(len(result), dtype=bool)
    return (
        (np.diff(result.cigar.offsets) > 0)
        & (queries.lengths[result.query_index] > 0)
        & (targets.lengths[result.target_index] > 0)
    )


def _primary_records(
    result: ScoreResult, queries: SequenceBatch, targets: SequenceBatch
) -> np.ndarray:
    """Per pair, whether it is its query's primary record: the query's best-scoring aligned
    pair, ties to the first in result order; the query's first pair when none aligned."""
    n = len(result)
    aligned = _aligned(result, queries, targets)
    query = np.asarray(result.query_index)
    score = np.asarray(result.score, dtype=np.int64)
    order = np.lexsort((np.arange(n), -score, ~aligned, query))
    first = np.ones(n, dtype=bool)
    first[1:] = query[order[1:]] != query[order[:-1]]
    primary = np.zeros(n, dtype=bool)
    primary[order[first]] = True
    return primary


class Writer(AlignmentWriter):
    """SAM 1.6 with ``=``/``X`` CIGARs, ``AS:i`` (score) and ``NM:i`` (edit distance) tags."""

    needs_cigar = True

    def __init__(self, stream: IO[str], queries: SequenceBatch, targets: SequenceBatch) -> None:
        super().__init__(stream, queries, targets)
        # every query's letters and qualities decoded once, sliced per record (a decoding a
        # record took a third of a SAM run's time)
        self._letters = queries.alphabet.decode(queries.codes)
        self._qualities = (
            None
            if queries.qualities is None
            else np.asarray(queries.qualities).tobytes().decode("ascii")
        )
        self._bounds = queries.offsets.tolist()
        self._target_lengths = targets.lengths.tolist()
        # whether each record to come is its query's primary one (set per result by write_all)
        self._primary: Iterator[bool] = itertools.repeat(True)

    @classmethod
    def check_targets(cls, targets: SequenceBatch, source: str) -> None:
        """Refuse two targets of one name: SAM names each reference once."""
        first: dict[str, int] = {}
        for index, name in enumerate(targets.names):
            if name in first:
                raise SequenceFileError(
                    source,
                    f"target name {name!r} occurs twice (records #{first[name]} and #{index}); "
                    "SAM needs unique reference names",
                )
            first[name] = index

    def write_header(self) -> None:
        lines = ["@HD\tVN:1.6\tSO:unsorted"]
        lines += [
            f"@SQ\tSN:{name}\tLN:{length}"
            for name, length in zip(self.targets.names, self._target_lengths, strict=True)
            if length
        ]
        lines.append(f"@PG\tID:seqwarp\tPN:seqwarp\tVN:{__version__}")
        self.stream.write("\n".join(lines) + "\n")

    def write_all(self, result: ScoreResult) -> None:
        """The records of ``result``, each query's best alignment primary, the others secondary."""
        self._primary = iter(_primary_records(result, self.queries, self.targets).tolist())
        try:
            super().write_all(result)
        finally:
            self._primary = itertools.repeat(True)

    def format_record(self, r: AlignmentRecord) -> str:
        primary = next(self._primary)
        start, stop = self._bounds[r.query_index], self._bounds[r.query_index + 1]
        q_len = stop - start
        if primary:
            sequence = self._letters[start:stop] or "*"
            quality = "*" if self._qualities is None or not q_len else self._qualities[start:stop]
        else:
            sequence = quality = "*"
        if not r.cigar or not q_len or not self._target_lengths[r.target_index]:
            if not primary:
                return ""
            return f"{r.query}\t{UNMAPPED}\t*\t0\t0\t*\t*\t0\t0\t{sequence}\t{quality}\tAS:i:{r.score}\n"
        flag = 0 if primary else SECONDARY
        clip_left = f"{r.query_begin}S" if r.query_begin else ""
        clip_right = f"{q_len - r.query_end}S" if q_len - r.query_end else ""
        edits = r.alignment_length - r.matches
        return (
            f"{r.query}\t{flag}\t{r.target}\t{r.target_begin + 1}\t255\t{clip_left}{r.cigar}{clip_right}\t"
            f"*\t0\t0\t{sequence}\t{quality}\tAS:i:{r.score}\tNM:i:{edits}\n"
        )
