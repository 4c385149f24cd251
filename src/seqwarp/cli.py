"""``seqwarp`` command line: a thin layer over the same API functions users call.

Each engine keeps its sub-command in ``<engine>/cli.py`` with two functions,
``configure(parser)`` and ``run(args, stdout, stderr) -> int``; this module only routes.
User mistakes print one line on stderr and exit 2; our own bugs exit 3 with a report request.
A closed output pipe (``seqwarp align ... | head``) ends the run quietly with status 141, as a
process killed by SIGPIPE would.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from . import __version__
from .errors import SeqwarpError, UnexpectedError

__all__ = ["main"]

# the status a shell reports for a process that SIGPIPE ended (128 + 13)
BROKEN_PIPE = 141

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
    try:
        status = _run(argv, stdout, stderr)
        stdout.flush()  # here, not at exit, so that a closed pipe is caught below
        return status
    except BrokenPipeError:
        _discard(stdout)
        return BROKEN_PIPE


def _run(argv: Sequence[str] | None, stdout: TextIO, stderr: TextIO) -> int:
    """Parse, route to the sub-command, turn its errors into one line and an exit status."""
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
    except BrokenPipeError:
        raise
    except (SeqwarpError, OSError) as error:
        print(f"seqwarp {args.command}: error: {error}", file=stderr)
        return 2
    except KeyboardInterrupt:
        print(f"seqwarp {args.command}: interrupted", file=stderr)
        return 130


def _discard(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at /dev/null, so that the interpreter's last flush of what
    it still buffers cannot fail on the closed pipe again (the recipe of Python's ``signal``
    documentation); a stream without a descriptor is left alone."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, descriptor)
    os.close(devnull)
