"""The project's numba defaults in one place: every CPU kernel is compiled through these."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numba

__all__ = ["jit", "parallel_jit", "prange", "set_threads"]

F = TypeVar("F", bound=Callable)

_DEFAULTS = {"cache": True, "nogil": True, "nopython": True, "error_model": "numpy"}

prange = numba.prange


def jit(function: F) -> F:
    """Compile a serial kernel with the project defaults."""
    return numba.jit(**_DEFAULTS)(function)


def parallel_jit(function: F) -> F:
    """Compile a kernel whose outer ``prange`` loop runs on all numba threads."""
    return numba.jit(parallel=True, **_DEFAULTS)(function)


def set_threads(threads: int | None) -> int:
    """Use ``threads`` numba threads (``None`` or 0: all cores); returns the number in use."""
    limit = numba.config.NUMBA_NUM_THREADS
    count = limit if not threads else max(1, min(int(threads), limit))
    numba.set_num_threads(count)
    return count
