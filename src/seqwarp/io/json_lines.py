"""JSON Lines: one object per pair, the TSV's fields plus statistics when a traceback ran."""

from __future__ import annotations

import json
from typing import IO

from ..sequences import SequenceBatch
from .alignment_writer import AlignmentRecord, AlignmentWriter


def _number(x: int | None) -> str:
    """A field that may not have been computed, as JSON."""
    return "null" if x is None else str(x)


class Writer(AlignmentWriter):
    """One JSON object per line; fields that were not computed are ``null``. The text is
    ``json.dumps`` of the record's fields (compact separators), written directly: names are
    escaped once each, numbers and CIGARs (digits and ``=XID``) need no escaping."""

    def __init__(self, stream: IO[str], queries: SequenceBatch, targets: SequenceBatch) -> None:
        super().__init__(stream, queries, targets)
        self._names: dict[str, str] = {}

    def _name(self, name: str) -> str:
        escaped = self._names.get(name)
        if escaped is None:
            escaped = self._names[name] = json.dumps(name)
        return escaped

    def format_record(self, r: AlignmentRecord) -> str:
        cigar = "null" if r.cigar is None else f'"{r.cigar}"'
        return (
            f'{{"query":{self._name(r.query)},"target":{self._name(r.target)},'
            f'"query_index":{r.query_index},"target_index":{r.target_index},"score":{r.score},'
            f'"query_begin":{_number(r.query_begin)},"query_end":{_number(r.query_end)},'
            f'"target_begin":{_number(r.target_begin)},"target_end":{_number(r.target_end)},'
            f'"cigar":{cigar},"matches":{_number(r.matches)},'
            f'"alignment_length":{_number(r.alignment_length)}}}\n'
        )
