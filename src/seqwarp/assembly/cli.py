"""``seqwarp extend``: extend contig ends with overhanging reads (MetaHipMer2 local assembly)."""

from __future__ import annotations

import argparse
from typing import TextIO

from ..errors import InvalidParameter
from .options import LocalAssemblyOptions

__all__ = ["configure", "run"]


def _insert(text: str) -> tuple[int, int]:
    try:
        mean, stddev = text.split(":")
        return int(mean), int(stddev)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MEAN:STDDEV, got {text!r}") from None


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``seqwarp extend``."""
    parser.add_argument("contigs", help="contigs (FASTA; MEGAHIT headers give the depth)")
    parser.add_argument("reads_1", help="reads (FASTQ with qualities), or the first of a pair")
    parser.add_argument("reads_2", nargs="?", help="second reads of the pairs (FASTQ)")
    parser.add_argument("-o", "--output", default="-", help="extended contigs, FASTA (- = stdout)")
    parser.add_argument("--report", help="per-end table (TSV)")
    parser.add_argument(
        "--alignments", help="use these read alignments (SAM/BAM) instead of mapping"
    )
    parser.add_argument("-i", "--insert-size", type=_insert, help="MEAN:STDDEV (default: estimate)")
    parser.add_argument(
        "--depth",
        choices=["auto", "headers", "coverage"],
        default="auto",
        help="contig depth from headers (multi=) or read coverage (default: auto)",
    )
    parser.add_argument("-k", type=int, default=21, help="the round's k, first walk (21)")
    parser.add_argument(
        "--min-read-length",
        type=int,
        default=121,
        help="skip shorter reads (121, as MetaHipMer2; 0 uses every read)",
    )
    parser.add_argument(
        "--ties",
        choices=["last", "lowest"],
        default="last",
        help="best alignment among equal scores: last (MHM2 v2.1) or lowest contig start",
    )
    parser.add_argument(
        "--both-sides",
        action="store_true",
        help="a read overhanging both ends of a contig serves both (MHM2 gives it the left)",
    )
    parser.add_argument("--max-reads", type=int, default=3000, help="reads per contig end (3000)")
    parser.add_argument(
        "--keep-short", action="store_true", help="pass contigs shorter than k through unchanged"
    )
    parser.add_argument("-t", "--threads", type=int, help="numba threads (default: all cores)")


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Extend, write the contigs and the report, print a summary on stderr."""
    from .api import extend_contigs
    from .report import write_ends, write_fasta

    if args.threads is not None and args.threads < 1:
        raise InvalidParameter("threads", args.threads, hint="expected a value >= 1")
    options = LocalAssemblyOptions(
        k=args.k,
        min_read_length=args.min_read_length,
        best_alignment_ties=args.ties,
        overhang_both_sides=args.both_sides,
        max_reads_per_side=args.max_reads,
    )
    result = extend_contigs(
        args.contigs,
        args.reads_1,
        args.reads_2,
        alignments=args.alignments,
        insert_size=args.insert_size,
        depth=args.depth,
        options=options,
        threads=args.threads,
        keep_short_contigs=args.keep_short,
    )
    if args.output == "-":
        contigs = result.contigs
        for i, name in enumerate(contigs.names):
            stdout.write(f">{name}\n{contigs.sequence(i)}\n")
    else:
        write_fasta(result, args.output)
    if args.report:
        write_ends(result, args.report)
    print(f"seqwarp extend: {result.describe()}", file=stderr)
    return 0
