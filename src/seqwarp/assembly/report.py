"""Write extended contigs (FASTA) and the per-end table (TSV), atomically.

:func:`staged_outputs` serves the command line: it checks and opens every output before any
work and puts them in place together, so a failed run leaves none behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import TextIO

from ..errors import OutputFileError
from ..io import atomic_output, check_output
from .api import ExtendResult

__all__ = [
    "END_COLUMNS",
    "print_ends",
    "print_fasta",
    "staged_outputs",
    "write_ends",
    "write_fasta",
]

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


def print_fasta(result: ExtendResult, handle: TextIO) -> None:
    """Every contig, extended or not, as given plus its new bases, one line per sequence."""
    for name, sequence in zip(result.contigs.names, result.sequences, strict=True):
        handle.write(f">{name}\n{sequence}\n")


def print_ends(result: ExtendResult, handle: TextIO) -> None:
    """One TSV row per end with reads (dead_ends counts X and limit outcomes over all k)."""
    ends = result.ends
    names = result.contigs.names
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


def write_fasta(result: ExtendResult, path: str | os.PathLike[str] | None) -> None:
    """:func:`print_fasta` into ``path`` (``None`` or ``-``: stdout), replaced atomically."""
    with atomic_output(path) as handle:
        print_fasta(result, handle)


def write_ends(result: ExtendResult, path: str | os.PathLike[str] | None) -> None:
    """:func:`print_ends` into ``path`` (``None`` or ``-``: stdout), replaced atomically."""
    with atomic_output(path) as handle:
        print_ends(result, handle)


@contextlib.contextmanager
def staged_outputs(
    paths: dict[str, str | None], stdout: TextIO
) -> Iterator[dict[str, TextIO | None]]:
    """Open every output up front; put all of them in place only when the block completes.

    ``paths`` maps an option name to a path (``-``: ``stdout``; ``None``: not asked for). Each
    file is written to a temporary file beside it and renamed once every file is complete; a
    path that cannot be created, or two options naming one file, fail before the block runs.
    A device such as ``/dev/null`` is written in place.
    """
    _refuse_shared(paths)
    staged: list[tuple[str | None, str, TextIO]] = []  # (temporary or None, target, handle)
    handles: dict[str, TextIO | None] = {}
    try:
        for option, path in paths.items():
            if path is None or path == "-":
                handles[option] = None if path is None else stdout
                continue
            temporary, handle = _open_beside(path)
            staged.append((temporary, path, handle))
            handles[option] = handle
        yield handles
        for temporary, path, handle in staged:
            _finish(path, handle, sync=temporary is not None)
        for temporary, path, _ in staged:
            if temporary is not None:
                os.replace(temporary, path)
    finally:
        for temporary, _, handle in staged:
            with contextlib.suppress(OSError):
                handle.close()
            if temporary is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)


def _refuse_shared(paths: dict[str, str | None]) -> None:
    """Two options may not name one file (nor both send their output to stdout)."""
    seen: dict[str, str] = {}
    for option, path in paths.items():
        if path is None:
            continue
        key = path if path == "-" else os.path.realpath(path)
        if key in seen:
            raise OutputFileError(path, f"--{seen[key]} and --{option} name the same file")
        seen[key] = option


def _open_beside(path: str) -> tuple[str | None, TextIO]:
    """A new temporary file beside ``path`` (umask permissions) and its name; a device itself.

    Errors name ``path``, not the temporary file.
    """
    check_output(path)
    try:
        if _is_device(path):
            return None, open(path, "w")
        fd, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.",
            suffix=".tmp",
            dir=os.path.dirname(os.path.abspath(path)),
        )
    except OSError as error:
        raise OutputFileError(path, error.strerror or str(error)) from None
    os.fchmod(fd, 0o666 & ~_umask())
    return temporary, os.fdopen(fd, "w")


def _finish(path: str, handle: TextIO, sync: bool) -> None:
    """Flush ``handle`` (to disk when ``sync``) and close it; a failure names ``path``."""
    try:
        handle.flush()
        if sync:
            os.fsync(handle.fileno())
        handle.close()
    except OSError as error:
        raise OutputFileError(path, error.strerror or str(error)) from None


def _is_device(path: str) -> bool:
    """Whether ``path`` exists as something other than a file or folder (``/dev/null``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
