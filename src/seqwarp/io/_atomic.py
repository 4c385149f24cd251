"""Atomic output: write to a temporary file beside the target, rename on success only."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import IO

__all__ = ["atomic_output"]


def _umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str] | None, mode: str = "w") -> Iterator[IO]:
    """Yield a file that replaces ``path`` only if the block completes; ``None`` or ``-``: stdout.

    A failed run never leaves a half-written result: on any exception the temporary file is
    removed and ``path`` keeps whatever it held before.
    """
    if path is None or os.fspath(path) == "-":
        stream = sys.stdout.buffer if "b" in mode else sys.stdout
        yield stream
        stream.flush()
        return
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    fd, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory
    )
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
