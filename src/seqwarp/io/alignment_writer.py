"""One small interface for alignment output formats; a format's module is imported on first use."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, ClassVar

import numpy as np

from ..align.results import CigarResult, EndsResult, ScoreResult
from ..errors import InvalidParameter
from ..sequences import SequenceBatch

__all__ = ["FORMATS", "AlignmentRecord", "AlignmentWriter", "format_from_path", "get_writer"]

FORMATS = {"tsv": "tsv", "sam": "sam", "paf": "paf", "json": "json_lines"}
_EXTENSIONS = {
    ".tsv": "tsv",
    ".txt": "tsv",
    ".sam": "sam",
    ".paf": "paf",
    ".json": "json",
    ".jsonl": "json",
}


@dataclass(frozen=True)
class AlignmentRecord:
    """One aligned pair, as every writer sees it (begins are ``None`` without a traceback)."""

    query: str
    target: str
    query_index: int
    target_index: int
    score: int
    query_begin: int | None
    query_end: int | None
    target_begin: int | None
    target_end: int | None
    cigar: str | None
    matches: int | None
    alignment_length: int | None


def records(result: ScoreResult) -> Iterator[AlignmentRecord]:
    """The pairs of a result as records, in result order."""
    has_ends = isinstance(result, EndsResult)
    has_cigar = isinstance(result, CigarResult)
    for p in range(len(result)):
        qi, ti = int(result.query_index[p]), int(result.target_index[p])
        yield AlignmentRecord(
            query=result.query_names[qi],
            target=result.target_names[ti],
            query_index=qi,
            target_index=ti,
            score=int(result.score[p]),
            query_begin=int(result.query_begin[p]) if has_cigar else None,
            query_end=int(result.query_end[p]) if has_ends else None,
            target_begin=int(result.target_begin[p]) if has_cigar else None,
            target_end=int(result.target_end[p]) if has_ends else None,
            cigar=result.cigar[p] if has_cigar else None,
            matches=int(result.matches[p]) if has_cigar else None,
            alignment_length=int(result.alignment_length[p]) if has_cigar else None,
        )


class AlignmentWriter:
    """Base writer: subclasses MAY override ``write_header`` and ``write_footer`` and MUST
    implement ``format_record``. ``needs_cigar`` formats get full alignments."""

    needs_cigar: ClassVar[bool] = False

    def __init__(self, stream: IO[str], queries: SequenceBatch, targets: SequenceBatch) -> None:
        self.stream = stream
        self.queries = queries
        self.targets = targets

    def write_header(self) -> None:
        """Text before the first record (nothing by default)."""

    def format_record(self, record: AlignmentRecord) -> str:
        raise NotImplementedError

    def write_footer(self) -> None:
        """Text after the last record (nothing by default)."""

    def write_all(self, result: ScoreResult) -> None:
        """Header, every record of ``result``, footer."""
        self.write_header()
        write = self.stream.write
        for record in records(result):
            write(self.format_record(record))
        self.write_footer()


def format_from_path(path: str | None, fmt: str | None) -> str:
    """The format named by ``fmt``, else by the file extension, else TSV."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InvalidParameter("format", fmt, choices=sorted(FORMATS))
        return fmt
    if path and path != "-":
        suffix = path[path.rfind(".") :].lower() if "." in path else ""
        return _EXTENSIONS.get(suffix, "tsv")
    return "tsv"


def get_writer(fmt: str) -> type[AlignmentWriter]:
    """The writer class of a format, importing its module on first use."""
    module = importlib.import_module(f".{FORMATS[fmt]}", __package__)
    return module.Writer


def quality_string(batch: SequenceBatch, index: int) -> str:
    """Phred+33 qualities of a record, or ``*`` when the input had none."""
    if batch.qualities is None:
        return "*"
    start, stop = batch.offsets[index], batch.offsets[index + 1]
    return np.asarray(batch.qualities[start:stop]).tobytes().decode("ascii")
