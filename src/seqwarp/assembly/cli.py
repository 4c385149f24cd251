"""``seqwarp extend``: extend contig ends with overhanging reads (MetaHipMer2 local assembly).

Defaults reproduce MetaHipMer2; ``--accuracy strict`` trades length for accuracy (see
:mod:`seqwarp.assembly.options`), and each of its settings can be overridden by its own flag.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from .options import ACCURACY_OPTIONS, PRESETS, LocalAssemblyOptions

if TYPE_CHECKING:
    from .api import ExtendResult

__all__ = ["configure", "run"]


def _insert(text: str) -> tuple[int, int]:
    try:
        mean, stddev = text.split(":")
        return int(mean), int(stddev)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MEAN:STDDEV, got {text!r}") from None


def _describe(settings: dict) -> str:
    """``--flag value`` pairs of a preset, for the help text."""
    return " ".join(f"--{name.replace('_', '-')} {value}" for name, value in settings.items())


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
        help="a read overhanging both ends of a contig serves both (MHM2 v2.1 gives it one: "
        "the left end for a read on the contig's strand, the right for a reverse-strand read)",
    )
    parser.add_argument("--max-reads", type=int, default=3000, help="reads per contig end (3000)")
    parser.add_argument(
        "--keep-short", action="store_true", help="pass contigs shorter than k through unchanged"
    )
    parser.add_argument("-t", "--threads", type=int, help="threads (default: all cores)")
    strict = parser.add_argument_group(
        "accuracy",
        "stricter choices than MetaHipMer2's, trading length for accuracy; --accuracy strict "
        f"sets {_describe(PRESETS['strict'])}; each flag below overrides the preset",
    )
    strict.add_argument(
        "--accuracy",
        choices=list(PRESETS),
        default="mhm2",
        help="mhm2 (default: MetaHipMer2's rules) or strict",
    )
    strict.add_argument(
        "--min-votes",
        type=int,
        help="votes (Q >= 10) the next base needs, else a dead end (MHM2: 1)",
    )
    strict.add_argument(
        "--min-hiq-votes",
        type=int,
        help="high-quality votes (Q >= 20) the next base needs, else a dead end (MHM2: 0)",
    )
    strict.add_argument(
        "--min-rating",
        type=int,
        help="the next base must rate at least this (1..7; 3: votes >= 0.2 x depth, "
        "5: >= 0.3 x depth), else a dead end (MHM2: 1)",
    )
    strict.add_argument(
        "--fork-ratio",
        type=float,
        help="two bases rating 7 fork when the lesser has this fraction of the greater's "
        "votes (MHM2: 1.0, equal votes only; 0 forks on every two sevens)",
    )
    strict.add_argument(
        "--rival-ratio",
        type=float,
        help="fork when another base has this fraction of the chosen base's votes, "
        "whatever the ratings (MHM2: 0, off)",
    )
    strict.add_argument(
        "--min-identity",
        type=float,
        help="alignments used to pick candidate reads need this identity over their "
        "aligned part (MHM2: 0, off)",
    )


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Extend, write the contigs and the report, print a summary on stderr.

    Both outputs are checked before any work and appear together, only if the run succeeds.
    """
    from .api import extend_contigs
    from .report import print_ends, print_fasta, staged_outputs

    overrides = {
        name: getattr(args, name) for name in ACCURACY_OPTIONS if getattr(args, name) is not None
    }
    options = LocalAssemblyOptions.preset(
        args.accuracy,
        k=args.k,
        min_read_length=args.min_read_length,
        best_alignment_ties=args.ties,
        overhang_both_sides=args.both_sides,
        max_reads_per_side=args.max_reads,
        **overrides,
    )
    with staged_outputs({"output": args.output, "report": args.report}, stdout) as files:
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
        print_fasta(result, files["output"])
        if files["report"] is not None:
            print_ends(result, files["report"])
    _warn_short_reads(result, options.min_read_length, stderr)
    print(f"seqwarp extend: {result.describe()}", file=stderr)
    return 0


def _warn_short_reads(result: ExtendResult, min_length: int, stderr: TextIO) -> None:
    """Say so when --min-read-length skipped most reads (MHM2's rule drops reads < 121 bp)."""
    short, total = result.counts["short_reads"], result.counts["reads"]
    if 2 * short > total:
        print(
            f"seqwarp extend: warning: {short} of {total} reads are shorter than "
            f"--min-read-length {min_length} and were skipped; --min-read-length 0 uses them",
            file=stderr,
        )
