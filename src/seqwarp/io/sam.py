"""SAM: queries as reads, targets as references; unaligned query flanks are soft-clipped."""

from __future__ import annotations

from .. import __version__
from .alignment_writer import AlignmentRecord, AlignmentWriter, quality_string

UNMAPPED = 4


class Writer(AlignmentWriter):
    """SAM 1.6 with ``=``/``X`` CIGARs, ``AS:i`` (score) and ``NM:i`` (edit distance) tags."""

    needs_cigar = True

    def write_header(self) -> None:
        lines = ["@HD\tVN:1.6\tSO:unsorted"]
        lines += [
            f"@SQ\tSN:{name}\tLN:{length}"
            for name, length in zip(self.targets.names, self.targets.lengths, strict=True)
        ]
        lines.append(f"@PG\tID:seqwarp\tPN:seqwarp\tVN:{__version__}")
        self.stream.write("\n".join(lines) + "\n")

    def format_record(self, r: AlignmentRecord) -> str:
        q_len = int(self.queries.lengths[r.query_index])
        sequence = self.queries.sequence(r.query_index) or "*"
        quality = quality_string(self.queries, r.query_index) if q_len else "*"
        if not r.cigar:
            return f"{r.query}\t{UNMAPPED}\t*\t0\t0\t*\t*\t0\t0\t{sequence}\t{quality}\tAS:i:{r.score}\n"
        clip_left = f"{r.query_begin}S" if r.query_begin else ""
        clip_right = f"{q_len - r.query_end}S" if q_len - r.query_end else ""
        edits = r.alignment_length - r.matches
        return (
            f"{r.query}\t0\t{r.target}\t{r.target_begin + 1}\t255\t{clip_left}{r.cigar}{clip_right}\t"
            f"*\t0\t0\t{sequence}\t{quality}\tAS:i:{r.score}\tNM:i:{edits}\n"
        )
