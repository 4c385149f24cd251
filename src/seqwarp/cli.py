"""``seqwarp`` command line: a thin layer over the same API functions users call.

Each engine keeps its sub-command in ``<engine>/cli.py`` with two functions,
``configure(parser)`` and ``run(args, stdout, stderr) -> int``; this module only routes.
User mistakes print one line on stderr and exit 2; our own bugs exit 3 with a report request.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Sequence
from typing import TextIO

from . import __version__
from .errors import SeqwarpError, UnexpectedError

__all__ = ["main"]

# sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "align": ("seqwarp.align.cli", "batched pairwise alignment (pairs, all-vs-all, top-k)"),
    "extend": (
        "seqwarp.assembly.cli",
        "extend contig ends with overhanging reads (MetaHipMer2 local assembly)",
    ),
    "hmmsearch": (
        "seqwarp.hmm.cli",
        "search profile HMMs against a sequence database (HMMER 3.4 compatible)",
    ),
    "demo": ("seqwarp._demo", "align the bundled demo data and print a short table"),
    "info": ("seqwarp._info", "versions, backends and whether a GPU is usable"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="seqwarp",
        description="GPU-first sequence analysis with CPU-identical answers.",
    )
    parser.add_argument("--version", action="version", version=f"seqwarp {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(_module=module)
        importlib.import_module(module).configure(sub)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the CLI; returns the exit status instead of calling ``sys.exit``."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = _parser()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    module = importlib.import_module(args._module)
    try:
        return int(module.run(args, stdout, stderr) or 0)
    except UnexpectedError as error:
        print(f"seqwarp {args.command}: {error}", file=stderr)
        return 3
    except (SeqwarpError, FileNotFoundError, PermissionError, IsADirectoryError) as error:
        print(f"seqwarp {args.command}: error: {error}", file=stderr)
        return 2
    except KeyboardInterrupt:
        print(f"seqwarp {args.command}: interrupted", file=stderr)
        return 130
