"""A stand-in for the part of CuPy that seqwarp's GPU backend uses, on the CPU: device arrays
are numpy arrays, streams and events run their work at once, and ``RawModule`` compiles the
CUDA sources with the host's C++ compiler against ``cuda_emulator.h`` (one fiber a CUDA
thread). The GPU tests run on it with ``SEQWARP_GPU_EMULATOR=1`` (``tests/conftest.py``):
slowly, and exact in what they check, but blind to timing and to the memory model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import cuda
from ._module import RawKernel, RawModule

__all__ = [
    "RawKernel",
    "RawModule",
    "arange",
    "asarray",
    "ascontiguousarray",
    "cuda",
    "cumsum",
    "empty",
    "empty_like",
    "get_default_memory_pool",
    "ndarray",
    "zeros",
]


class _Pointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class ndarray(np.ndarray):
    """A "device" array: a numpy array with CuPy's ``get``, ``set`` and ``data.ptr``."""

    @property
    def data(self) -> _Pointer:  # type: ignore[override]
        return _Pointer(self.ctypes.data)

    def get(self, stream: Any = None, out: np.ndarray | None = None, blocking: bool = True):
        if out is None:
            return np.array(self, copy=True).view(np.ndarray)
        np.copyto(out, self.view(np.ndarray))
        return out

    def set(self, arr: np.ndarray, stream: Any = None) -> None:
        np.copyto(self.view(np.ndarray), np.asarray(arr).reshape(self.shape))


def _device(array: np.ndarray) -> ndarray:
    return array.view(ndarray)


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    return _device(np.empty(shape, dtype, order=order))


def zeros(shape: Any, dtype: Any = float) -> ndarray:
    return _device(np.zeros(shape, dtype))


def empty_like(a: np.ndarray, dtype: Any = None) -> ndarray:
    return _device(np.empty_like(np.asarray(a), dtype=dtype))


def asarray(a: Any, dtype: Any = None) -> ndarray:
    if isinstance(a, ndarray) and (dtype is None or a.dtype == dtype):
        return a
    return _device(
        np.array(
            np.asarray(a).view(np.ndarray) if isinstance(a, np.ndarray) else a,
            dtype=dtype,
            copy=True,
        )
    )


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    return _device(np.ascontiguousarray(np.asarray(a), dtype=dtype))


def arange(*args: Any, **kwargs: Any) -> ndarray:
    return _device(np.arange(*args, **kwargs))


def cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> ndarray:
    if out is not None:
        np.cumsum(np.asarray(a), axis=axis, dtype=dtype, out=out.view(np.ndarray))
        return out
    return _device(np.cumsum(np.asarray(a), axis=axis, dtype=dtype))


class _MemoryPool:
    def free_all_blocks(self) -> None:
        pass

    def free_bytes(self) -> int:
        return 0

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        pass


_pool = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _pool
