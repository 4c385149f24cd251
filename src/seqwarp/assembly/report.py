"""Write extended contigs (FASTA) and the per-end table (TSV), atomically."""

from __future__ import annotations

import os

from ..io import atomic_output
from .api import ExtendResult

__all__ = ["END_COLUMNS", "write_ends", "write_fasta"]

END_COLUMNS = (
    "contig",
    "side",
    "reads",
    "depth",
    "k",
    "extension",
    "outcome",
    "iterations",
    "dead_ends",
    "forks",
    "repeats",
)


def write_fasta(result: ExtendResult, path: str | os.PathLike[str] | None) -> None:
    """Every contig, extended or not, one sequence line per record, in input order."""
    contigs = result.contigs
    with atomic_output(path) as handle:
        for i, name in enumerate(contigs.names):
            handle.write(f">{name}\n{contigs.sequence(i)}\n")


def write_ends(result: ExtendResult, path: str | os.PathLike[str] | None) -> None:
    """One TSV row per walked end (dead_ends counts X and limit outcomes over all k)."""
    ends = result.ends
    names = result.contigs.names
    with atomic_output(path) as handle:
        handle.write("\t".join(END_COLUMNS) + "\n")
        for row in range(len(ends.side)):
            seen = ends.outcomes_seen[row]
            fields = (
                names[ends.contig[row]],
                ends.side[row],
                ends.reads[row],
                ends.depth[row],
                ends.k[row],
                ends.extension[row],
                ends.outcome[row],
                ends.iterations[row],
                seen[0] + seen[3],
                seen[1],
                seen[2],
            )
            handle.write("\t".join(str(f) for f in fields) + "\n")
