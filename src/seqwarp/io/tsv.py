"""TSV: ``query target score query_begin query_end target_begin target_end cigar``.

Positions are 0-based, end-exclusive; ``*`` marks what was not computed (begins and CIGAR
without a traceback, ends with score-only output).
"""

from __future__ import annotations

from .alignment_writer import AlignmentRecord, AlignmentWriter

COLUMNS = (
    "query",
    "target",
    "score",
    "query_begin",
    "query_end",
    "target_begin",
    "target_end",
    "cigar",
)


def _field(value: object) -> str:
    return "*" if value is None else str(value)


class Writer(AlignmentWriter):
    """Tab-separated table with one header line."""

    def write_header(self) -> None:
        self.stream.write("\t".join(COLUMNS) + "\n")

    def format_record(self, r: AlignmentRecord) -> str:
        fields = (
            r.query,
            r.target,
            r.score,
            r.query_begin,
            r.query_end,
            r.target_begin,
            r.target_end,
            r.cigar,
        )
        return "\t".join(map(_field, fields)) + "\n"
