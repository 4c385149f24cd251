"""One small interface for alignment output formats; a format's module is imported on first use."""

from __future__ import annotations

import importlib
import itertools
import os
from collections.abc import Iterator
from typing import IO, ClassVar, NamedTuple

from ..align.results import CigarResult, EndsResult, ScoreResult
from ..errors import InvalidParameter
from ..sequences import SequenceBatch

__all__ = [
    "FORMATS",
    "AlignmentRecord",
    "AlignmentWriter",
    "format_from_path",
    "get_writer",
    "is_compressed",
]

FORMATS = {"tsv": "tsv", "sam": "sam", "paf": "paf", "json": "json_lines"}
_EXTENSIONS = {
    ".tsv": "tsv",
    ".txt": "tsv",
    ".sam": "sam",
    ".paf": "paf",
    ".json": "json",
    ".jsonl": "json",
}
_GZIP = ".gz"


class AlignmentRecord(NamedTuple):
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


# records are made and written this many at a time: a column becomes a list of Python values
# in one call (an int() a value and a record at a time took most of a SAM run's time)
_CHUNK = 1 << 16


def records(result: ScoreResult) -> Iterator[AlignmentRecord]:
    """The pairs of a result as records, in result order."""
    for a in range(0, len(result), _CHUNK):
        columns = _columns(result, a, min(a + _CHUNK, len(result)))
        yield from map(AlignmentRecord._make, zip(*columns, strict=True))


def _columns(result: ScoreResult, a: int, b: int) -> list[list]:
    """Pairs ``a:b`` of ``result`` as one list a record field, in ``AlignmentRecord`` order
    (``None`` for the fields the result's output did not compute)."""
    has_ends = isinstance(result, EndsResult)
    has_cigar = isinstance(result, CigarResult)

    def column(name: str, present: bool) -> list:
        return getattr(result, name)[a:b].tolist() if present else [None] * (b - a)

    q_index, t_index = column("query_index", True), column("target_index", True)
    return [
        [result.query_names[i] for i in q_index],
        [result.target_names[i] for i in t_index],
        q_index,
        t_index,
        column("score", True),
        column("query_begin", has_cigar),
        column("query_end", has_ends),
        column("target_begin", has_cigar),
        column("target_end", has_ends),
        result.cigar[a:b] if has_cigar else [None] * (b - a),
        column("matches", has_cigar),
        column("alignment_length", has_cigar),
    ]


class AlignmentWriter:
    """Base writer: subclasses MAY override ``write_header`` and ``write_footer`` and MUST
    implement ``format_record``. ``needs_cigar`` formats get full alignments."""

    needs_cigar: ClassVar[bool] = False

    def __init__(self, stream: IO[str], queries: SequenceBatch, targets: SequenceBatch) -> None:
        self.check_targets(targets, "targets")
        self.stream = stream
        self.queries = queries
        self.targets = targets

    @classmethod
    def check_targets(cls, targets: SequenceBatch, source: str) -> None:
        """Refuse targets the format cannot represent (none by default); ``source`` names
        where they came from. Callers run it before aligning, so a refusal costs no work."""

    def write_header(self) -> None:
        """Text before the first record (nothing by default)."""

    def format_record(self, record: AlignmentRecord) -> str:
        raise NotImplementedError

    def write_footer(self) -> None:
        """Text after the last record (nothing by default)."""

    def write_all(self, result: ScoreResult) -> None:
        """Header, every record of ``result``, footer (records written ``_CHUNK`` at a time)."""
        self.write_header()
        lines = map(self.format_record, records(result))
        while chunk := "".join(itertools.islice(lines, _CHUNK)):
            self.stream.write(chunk)
        self.write_footer()


def is_compressed(path: str | None) -> bool:
    """Whether ``path`` asks for gzip-compressed output (its name ends with ``.gz``)."""
    return bool(path) and path != "-" and path.lower().endswith(_GZIP)


def format_from_path(path: str | None, fmt: str | None) -> str:
    """The format named by ``fmt``, else by the extension of ``path`` (the one before a
    ``.gz``), TSV on stdout. An unknown extension is refused rather than written as TSV."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InvalidParameter("format", fmt, choices=sorted(FORMATS))
        return fmt
    if not path or path == "-":
        return "tsv"
    name = os.path.basename(path)
    suffix = os.path.splitext(name[: -len(_GZIP)] if is_compressed(name) else name)[1].lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    what = f"unknown extension {suffix!r}" if suffix else "no extension"
    known = ", ".join(sorted(_EXTENSIONS))
    raise InvalidParameter(
        "output",
        path,
        hint=f"{what} (known: {known}, each optionally followed by {_GZIP}); "
        f"choose a format with --format ({', '.join(sorted(FORMATS))})",
    )


def get_writer(fmt: str) -> type[AlignmentWriter]:
    """The writer class of a format, importing its module on first use."""
    module = importlib.import_module(f".{FORMATS[fmt]}", __package__)
    return module.Writer
