"""``seqwarp align QUERIES TARGETS``: pairs, all-vs-all or top-k, written as TSV/SAM/PAF/JSON."""

from __future__ import annotations

import argparse
import time
from typing import TextIO

import numpy as np

from .._progress import progress_bar
from ..errors import InvalidParameter, LengthMismatch
from ..io import atomic_output, check_output
from ..io.alignment_writer import FORMATS, format_from_path, get_writer, is_compressed
from ..scoring import Scoring
from ..sequences import as_batch
from .api import Aligner

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the options, grouped the way the help shows them."""
    parser.add_argument("queries", help="FASTA/FASTQ of queries (plain or gzip)")
    parser.add_argument("targets", help="FASTA/FASTQ of targets (plain or gzip)")
    algo = parser.add_argument_group("alignment")
    algo.add_argument(
        "--mode",
        choices=("global", "semi-global", "local"),
        default="global",
        help="global, semi-global (end gaps free) or local (default global)",
    )
    algo.add_argument("--match", type=int, default=2, help="DNA match score (default 2)")
    algo.add_argument("--mismatch", type=int, default=-1, help="DNA mismatch score (default -1)")
    algo.add_argument(
        "--matrix", help="substitution matrix by name (BLOSUM62, PAM250, NUC.4.4, ...)"
    )
    algo.add_argument(
        "--gap-open",
        type=int,
        default=None,
        help="cost of a gap's first position (default 2 for DNA, 11 with --matrix)",
    )
    algo.add_argument(
        "--gap-extend",
        type=int,
        default=None,
        help="cost of each further position (default 1); linear gaps when equal to --gap-open",
    )
    job = parser.add_argument_group("job shape")
    shape = job.add_mutually_exclusive_group()
    shape.add_argument(
        "--pairs",
        dest="shape",
        action="store_const",
        const="pairs",
        help="query i vs target i (default)",
    )
    shape.add_argument(
        "--all-vs-all",
        dest="shape",
        action="store_const",
        const="all",
        help="every query vs every target",
    )
    shape.add_argument("--top", type=int, metavar="K", help="the K best targets of each query")
    job.add_argument(
        "--traceback",
        action="store_true",
        help="compute begins and CIGARs (implied by SAM and PAF)",
    )
    run_group = parser.add_argument_group("execution and output")
    run_group.add_argument(
        "--device", default="auto", help="auto, cpu, gpu or cuda:N (default auto)"
    )
    run_group.add_argument(
        "--threads", type=int, default=None, help="CPU threads (default: all cores)"
    )
    run_group.add_argument(
        "--gpus", type=int, default=None, help="GPUs of this host to use (default 1)"
    )
    run_group.add_argument(
        "-o",
        "--output",
        default="-",
        help="output file (default stdout); format from its extension, gzip when it ends .gz",
    )
    run_group.add_argument(
        "--format",
        choices=sorted(FORMATS),
        help="output format (default: from -o's extension; tsv on stdout)",
    )
    run_group.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar and no summary line"
    )


def _scoring(args: argparse.Namespace) -> Scoring:
    if args.matrix:
        gap_open = 11 if args.gap_open is None else args.gap_open
        gap_extend = 1 if args.gap_extend is None else args.gap_extend
        return Scoring.from_matrix(args.matrix, gap_open, gap_extend)
    gap_open = 2 if args.gap_open is None else args.gap_open
    gap_extend = 1 if args.gap_extend is None else args.gap_extend
    return Scoring.dna(args.match, args.mismatch, gap_open, gap_extend)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Align, write atomically, print a summary line on stderr."""
    if args.top is not None and args.top < 1:
        raise InvalidParameter("--top", args.top, hint="must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise InvalidParameter("--threads", args.threads, hint="must be at least 1")
    scoring = _scoring(args)
    if args.gpus is not None and args.gpus < 1:
        raise InvalidParameter("--gpus", args.gpus, hint="must be at least 1")
    check_output(args.output)
    writer_class = get_writer(format_from_path(args.output, args.format))
    aligner = Aligner(args.mode, scoring, device=args.device, threads=args.threads, gpus=args.gpus)
    queries = _read(args.queries, scoring, "queries")
    targets = _read(args.targets, scoring, "targets")
    writer_class.check_targets(targets, args.targets)
    output = "cigar" if args.traceback or writer_class.needs_cigar else "ends"

    start = time.perf_counter()
    with progress_bar("aligning", stderr, enabled=not args.quiet) as update:
        q_index, t_index = _pairs(aligner, args, queries, targets, update)
        result = aligner.align_indexed(queries, targets, q_index, t_index, output, update)
    seconds = time.perf_counter() - start
    cells = int((queries.lengths[q_index] * targets.lengths[t_index]).sum())

    target = None if args.output == "-" else args.output
    if target is None:
        writer_class(stdout, queries, targets).write_all(result)
    else:
        with atomic_output(target, compress=is_compressed(target)) as handle:
            writer_class(handle, queries, targets).write_all(result)
    if not args.quiet:
        gcups = cells / seconds / 1e9 if seconds > 0 else float("inf")
        print(
            f"seqwarp align: {len(q_index)} pairs, {cells} cells, {seconds:.2f} s, {gcups:.2f} GCUPS, backend {aligner.backend.describe()}",
            file=stderr,
        )
    return 0


def _read(path: str, scoring: Scoring, what: str):
    return as_batch(path, scoring.alphabet, f"{what} file {path}")


def _pairs(
    aligner: Aligner, args: argparse.Namespace, queries, targets, update
) -> tuple[np.ndarray, np.ndarray]:
    """The (query, target) index pairs the job shape asks for."""
    if args.top is not None:
        hits = aligner.top_hits(queries, targets, args.top)
        rows, ranks = np.nonzero(hits.target_index >= 0)
        return rows.astype(np.int64), hits.target_index[rows, ranks]
    if args.shape == "all":
        q_index = np.repeat(np.arange(len(queries), dtype=np.int64), len(targets))
        t_index = np.tile(np.arange(len(targets), dtype=np.int64), len(queries))
        return q_index, t_index
    if len(queries) != len(targets):
        raise LengthMismatch(f"{args.queries} and {args.targets}", len(queries), len(targets))
    index = np.arange(len(queries), dtype=np.int64)
    return index, index
