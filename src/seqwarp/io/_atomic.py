"""Atomic output: write to a temporary file beside the target, rename on success only.

``check_output`` refuses a path that cannot be written before any work starts, and every
failure names the path the user gave, never the hidden temporary file.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from typing import IO

from ..errors import OutputFileError

__all__ = ["atomic_output", "check_output"]


def _umask() -> int:
    """The process umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _is_special(path: str) -> bool:
    """Whether ``path`` exists as a device or a pipe (``/dev/null``, ``/dev/stdout``): there is
    nothing to replace, so it is written in place."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_output(path: str | os.PathLike[str] | None) -> None:
    """Refuse an output that could not be created: an empty path, a directory, a folder that
    is missing, not a folder or not writable. ``None`` and ``-`` (stdout) always pass.

    Call it before the work whose result the file will hold, so a mistyped path costs nothing.
    """
    if path is None:
        return
    name = os.fspath(path)
    if name == "-":
        return
    if not name:
        raise OutputFileError(name, "the path is empty")
    if os.path.isdir(name) or name.endswith(os.sep):
        raise OutputFileError(name, "it is a directory, not a file")
    if _is_special(name):
        return
    folder = os.path.dirname(name) or "."
    if not os.path.exists(folder):
        raise OutputFileError(name, f"folder {folder!r} does not exist")
    if not os.path.isdir(folder):
        raise OutputFileError(name, f"{folder!r} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputFileError(name, f"folder {folder!r} is not writable")


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """Report an operating-system failure as one about ``path`` (not the temporary file)."""
    try:
        yield
    except OSError as error:
        raise OutputFileError(path, error.strerror or str(error)) from None


@contextlib.contextmanager
def _compressed(raw: IO[bytes], mode: str) -> Iterator[IO]:
    """A gzip stream over ``raw``, text unless ``mode`` is binary; the gzip trailer is written
    on exit and ``raw`` stays open."""
    with gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as packed:
        if "b" in mode:
            yield packed
        else:
            with io.TextIOWrapper(packed, encoding="utf-8") as text:
                yield text


def _layer(raw: IO, mode: str, compress: bool) -> contextlib.AbstractContextManager[IO]:
    """``raw`` (opened binary when ``compress``) as the caller asked for it."""
    return _compressed(raw, mode) if compress else contextlib.nullcontext(raw)


@contextlib.contextmanager
def atomic_output(
    path: str | os.PathLike[str] | None, mode: str = "w", *, compress: bool = False
) -> Iterator[IO]:
    """Yield a file that replaces ``path`` only if the block completes; ``None`` or ``-``: stdout.

    A failed run never leaves a half-written result: on any exception the temporary file is
    removed and ``path`` keeps whatever it held before. ``compress`` writes gzip. A device or
    pipe such as ``/dev/null`` is written in place.
    """
    raw_mode = "wb" if compress else mode
    if path is None or os.fspath(path) == "-":
        stream = sys.stdout.buffer if "b" in raw_mode else sys.stdout
        with _layer(stream, mode, compress) as handle:
            yield handle
        stream.flush()
        return
    target = os.fspath(path)
    check_output(target)
    if _is_special(target):
        with contextlib.ExitStack() as stack:
            with _naming(target):
                raw = stack.enter_context(open(target, raw_mode))
            with _layer(raw, mode, compress) as handle:
                yield handle
        return
    directory = os.path.dirname(os.path.abspath(target))
    with _naming(target):
        fd, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory
        )
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, raw_mode) as raw:
            with _layer(raw, mode, compress) as handle:
                yield handle
            with _naming(target):
                raw.flush()
                os.fsync(raw.fileno())
        with _naming(target):
            os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
