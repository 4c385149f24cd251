"""``seqwarp hmmsearch``: hmmsearch's command line (HMMER 3.4 options and meanings)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from .._jit import set_threads
from ..io._atomic import atomic_output
from . import files, tables
from .api import SearchOptions, hmmsearch

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """hmmsearch's options: output files, thresholds, cutoffs, Z, filters, threads, seed."""
    parser.add_argument("hmmfile", help="query profile HMM file (one or many models)")
    parser.add_argument("seqdb", help="target sequence database (FASTA, plain or gzip)")
    out = parser.add_argument_group("output")
    out.add_argument("-o", dest="output", metavar="FILE", help="hit lists to FILE, not stdout")
    out.add_argument("--tblout", metavar="FILE", help="per-sequence hit table (HMMER format)")
    out.add_argument("--domtblout", metavar="FILE", help="per-domain hit table (HMMER format)")
    out.add_argument("--noali", action="store_true", help="no alignments (none are printed)")
    report = parser.add_argument_group("reporting and inclusion thresholds")
    for flag, dest, default, help_text in (
        ("-E", "E", 10.0, "report sequences with E-value <= X (10)"),
        ("-T", "T", None, "report sequences with score >= X"),
        ("--domE", "domE", 10.0, "report domains with conditional E-value <= X (10)"),
        ("--domT", "domT", None, "report domains with score >= X"),
        ("--incE", "incE", 0.01, "include sequences with E-value <= X (0.01)"),
        ("--incT", "incT", None, "include sequences with score >= X"),
        ("--incdomE", "incdomE", 0.01, "include domains with conditional E-value <= X (0.01)"),
        ("--incdomT", "incdomT", None, "include domains with score >= X"),
    ):
        report.add_argument(
            flag, dest=dest, type=float, default=default, metavar="X", help=help_text
        )
    cut = report.add_mutually_exclusive_group()
    for flag, name, tag in (
        ("ga", "gathering", "GA"),
        ("nc", "noise", "NC"),
        ("tc", "trusted", "TC"),
    ):
        cut.add_argument(
            f"--cut_{flag}",
            dest="cutoffs",
            action="store_const",
            const=name,
            help=f"use each model's {tag} bit-score thresholds",
        )
    stats = parser.add_argument_group("E-values and filters")
    stats.add_argument("-Z", dest="Z", type=float, metavar="X", help="database size for E-values")
    stats.add_argument("--domZ", type=float, metavar="X", help="search space for domain E-values")
    stats.add_argument("--max", action="store_true", help="turn off all filters")
    stats.add_argument("--F1", type=float, default=0.02, metavar="X", help="MSV threshold (0.02)")
    stats.add_argument("--F2", type=float, default=1e-3, metavar="X", help="Vit threshold (1e-3)")
    stats.add_argument("--F3", type=float, default=1e-5, metavar="X", help="Fwd threshold (1e-5)")
    stats.add_argument("--nobias", action="store_true", help="turn off the bias filter")
    other = parser.add_argument_group("other")
    other.add_argument(
        "--cpu", type=int, metavar="N", help="threads (default: all cores; 0 means 1)"
    )
    other.add_argument("--seed", type=int, default=42, metavar="N", help="RNG seed (42)")
    other.add_argument(
        "--chunk-residues",
        type=int,
        default=50_000_000,
        metavar="N",
        help="read the database in chunks of about N residues (50,000,000)",
    )


def _options(args: argparse.Namespace) -> SearchOptions:
    return SearchOptions(
        E=args.E,
        T=args.T,
        domE=args.domE,
        domT=args.domT,
        incE=args.incE,
        incT=args.incT,
        incdomE=args.incdomE,
        incdomT=args.incdomT,
        cutoffs=args.cutoffs,
        Z=args.Z,
        domZ=args.domZ,
        max=args.max,
        F1=args.F1,
        F2=args.F2,
        F3=args.F3,
        bias_filter=not args.nobias,
        seed=args.seed,
    )


def _write(path: str, text: str, stdout: TextIO) -> None:
    """A whole output through ``atomic_output``; ``-`` goes to the given stdout."""
    if path == "-":
        stdout.write(text)
        return
    with atomic_output(path, "wb") as handle:
        handle.write(text.encode("ascii", "replace"))


def _progress(stderr: TextIO) -> tuple[Progress | None, Callable[[int], None] | None]:
    """A residue counter on stderr when it is a terminal, else nothing."""
    if not stderr.isatty():
        return None, None
    bar = Progress(
        TextColumn("hmmsearch: {task.completed:,.0f} residues searched"),
        TimeElapsedColumn(),
        console=Console(file=stderr),
        transient=True,
    )
    task = bar.add_task("search", total=None)
    bar.start()
    return bar, lambda done: bar.advance(task, done)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Search, then write the hit lists and the requested tables."""
    set_threads(None if args.cpu is None else max(1, args.cpu))
    options = _options(args)
    models = files.read_hmms(args.hmmfile)
    bar, advance = _progress(stderr)
    try:
        results = hmmsearch(
            models,
            args.seqdb,
            options,
            chunk_residues=args.chunk_residues,
            progress=advance,
        )
    finally:
        if bar is not None:
            bar.stop()
    footer = {"Program": "seqwarp hmmsearch", "Query file": args.hmmfile, "Target file": args.seqdb}
    if args.tblout:
        _write(args.tblout, tables.table(results, "targets", footer), stdout)
    if args.domtblout:
        _write(args.domtblout, tables.table(results, "domains", footer), stdout)
    if args.output:
        with atomic_output(args.output) as handle:
            tables.summary(handle, models, results)
    else:
        tables.summary(stdout, models, results)
    return 0
