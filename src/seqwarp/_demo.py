"""``seqwarp demo``: semi-global alignment of the bundled reads against their source windows."""

from __future__ import annotations

import argparse
import time
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .align import Aligner
from .data import demo_reads, demo_windows
from .scoring import Scoring
from .sequences import read_sequences

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Options: the device and how many rows to show."""
    parser.add_argument("--device", default="auto", help="auto, cpu, gpu or cuda:N (default auto)")
    parser.add_argument("--rows", type=int, default=8, help="alignments to show (default 8)")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Align, print a short table and a summary line."""
    reads = read_sequences(demo_reads())
    windows = read_sequences(demo_windows())
    aligner = Aligner(
        "semi-global",
        Scoring.dna(match=2, mismatch=-1, gap_open=2, gap_extend=1),
        device=args.device,
    )
    start = time.perf_counter()
    result = aligner.align(reads, windows, output="cigar")
    seconds = time.perf_counter() - start
    table = Table(title=escape(f"seqwarp demo: {aligner.describe()}"))
    for column in ("read", "window", "score", "read span", "window span", "identity", "CIGAR"):
        table.add_column(column, justify="right" if column in {"score", "identity"} else "left")
    for p in range(min(args.rows, len(result))):
        table.add_row(
            reads.names[p],
            windows.names[p],
            str(result.score[p]),
            f"{result.query_begin[p]}-{result.query_end[p]}",
            f"{result.target_begin[p]}-{result.target_end[p]}",
            f"{result.identity[p]:.3f}",
            result.cigar[p],
        )
    console = Console(file=stdout, width=160)
    console.print(table)
    cells = int((reads.lengths * windows.lengths).sum())
    console.print(
        f"{len(result)} pairs, {cells} cells in {seconds:.2f} s (first run includes compilation); "
        f"mean identity {result.identity.mean():.3f}"
    )
    return 0
