"""JSON Lines: one object per pair, the TSV's fields plus statistics when a traceback ran."""

from __future__ import annotations

import json

from .alignment_writer import AlignmentRecord, AlignmentWriter


class Writer(AlignmentWriter):
    """One JSON object per line; fields that were not computed are ``null``."""

    def format_record(self, r: AlignmentRecord) -> str:
        return json.dumps(r._asdict(), separators=(",", ":")) + "\n"
