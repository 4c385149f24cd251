"""PAF (minimap2's pairwise format) with ``AS:i`` score and ``cg:Z`` CIGAR tags."""

from __future__ import annotations

from .alignment_writer import AlignmentRecord, AlignmentWriter


class Writer(AlignmentWriter):
    """One line per pair: the 12 mandatory PAF columns, then tags."""

    needs_cigar = True

    def format_record(self, r: AlignmentRecord) -> str:
        q_len = int(self.queries.lengths[r.query_index])
        t_len = int(self.targets.lengths[r.target_index])
        return (
            f"{r.query}\t{q_len}\t{r.query_begin}\t{r.query_end}\t+\t"
            f"{r.target}\t{t_len}\t{r.target_begin}\t{r.target_end}\t"
            f"{r.matches}\t{r.alignment_length}\t255\tAS:i:{r.score}\tcg:Z:{r.cigar}\n"
        )
