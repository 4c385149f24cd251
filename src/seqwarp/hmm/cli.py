"""``seqwarp hmmsearch``: hmmsearch's command line (HMMER 3.4 options and meanings).

Output paths are checked before the search, so a mistyped one costs nothing; the outputs are
then written as a group: every file goes to a temporary file first, and they are renamed only
once all are complete, so a failure leaves none of them half-written or new.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Sequence
from typing import TextIO

from rich.console import Console
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from .._jit import set_threads
from ..errors import InvalidParameter, OutputFileError
from ..io._atomic import atomic_output, check_output
from . import files, tables
from .api import SearchOptions, hmmsearch

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """hmmsearch's options: output files, thresholds, cutoffs, Z, filters, threads, seed."""
    parser.add_argument(
        "hmmfile", help="query profile HMM file (one or many models; '-' reads stdin)"
    )
    parser.add_argument(
        "seqdb", help="target sequence database (FASTA, plain or gzip; '-' reads stdin)"
    )
    out = parser.add_argument_group("output")
    out.add_argument("-o", dest="output", metavar="FILE", help="hit lists to FILE, not stdout")
    out.add_argument("--tblout", metavar="FILE", help="per-sequence hit table (HMMER format)")
    out.add_argument("--domtblout", metavar="FILE", help="per-domain hit table (HMMER format)")
    out.add_argument(
        "--noali",
        action="store_true",
        help="accepted for compatibility: -o never prints alignments",
    )
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
        "--cpu", type=int, metavar="N", help="threads, >= 0 (default: all cores; 0 means 1)"
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


def _check(args: argparse.Namespace) -> None:
    """Refuse what HMMER refuses before any work: a negative ``--cpu``, stdin named for both
    inputs, and output paths that cannot be written."""
    if args.cpu is not None and args.cpu < 0:
        raise InvalidParameter("cpu", args.cpu, hint="must be >= 0")
    if args.hmmfile == files.STDIN and args.seqdb == files.STDIN:
        raise InvalidParameter(
            "seqdb", files.STDIN, hint="the HMM file and the database cannot both be stdin"
        )
    for path in (args.tblout, args.domtblout, args.output):
        check_output(path)


def _write_all(outputs: Sequence[tuple[str, bytes]], stdout: TextIO) -> None:
    """Write every output or none: files through ``atomic_output``, all complete before any
    is renamed into place; ``-`` goes to stdout afterwards, in the given order."""
    to_files = [(path, data) for path, data in outputs if path != "-"]
    with contextlib.ExitStack() as stack:
        handles = [stack.enter_context(atomic_output(path, "wb")) for path, _ in to_files]
        for handle, (path, data) in zip(handles, to_files, strict=True):
            try:
                handle.write(data)
            except OSError as error:
                raise OutputFileError(path, error.strerror or str(error)) from None
    for path, data in outputs:
        if path == "-":
            _to_stdout(data, stdout)


def _to_stdout(data: bytes, stdout: TextIO) -> None:
    """Bytes to ``stdout`` as they are (through its binary buffer where it has one)."""
    buffer = getattr(stdout, "buffer", None)
    if buffer is None:
        stdout.write(data.decode("utf-8", "replace"))
        return
    stdout.flush()
    buffer.write(data)
    buffer.flush()


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
    _check(args)
    options = _options(args)
    options.check()
    set_threads(None if args.cpu is None else max(1, args.cpu))
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
    texts = []
    if args.tblout:
        texts.append((args.tblout, tables.table(results, "targets", footer)))
    if args.domtblout:
        texts.append((args.domtblout, tables.table(results, "domains", footer)))
    texts.append((args.output or "-", tables.summary(models, results)))
    outputs = [
        (path, text.encode(tables.TEXT_ENCODING, tables.TEXT_ERRORS)) for path, text in texts
    ]
    _write_all(outputs, stdout)
    return 0
