"""``cupy.cuda.runtime`` on the CPU: one device; copies are ``memmove``."""

from __future__ import annotations

import ctypes
from typing import Any

memcpyHostToDevice = 1
memcpyDeviceToHost = 2
memcpyDeviceToDevice = 3
memcpyDefault = 4


class CUDARuntimeError(RuntimeError):
    pass


def getDeviceCount() -> int:
    return 1


def getDevice() -> int:
    return 0


def runtimeGetVersion() -> int:
    return 13000


def driverGetVersion() -> int:
    return 13000


def getDeviceProperties(device: int) -> dict[str, Any]:
    from . import ATTRIBUTES, MEMORY_BYTES

    return {
        "name": b"CUDA emulator (CPU)",
        "totalGlobalMem": MEMORY_BYTES,
        "multiProcessorCount": ATTRIBUTES["MultiProcessorCount"],
        "major": 9,
        "minor": 0,
        "sharedMemPerBlockOptin": ATTRIBUTES["MaxSharedMemoryPerBlockOptin"],
    }


def memcpyAsync(dst: int, src: int, size: int, kind: int, stream: int) -> None:
    ctypes.memmove(dst, src, size)


def memcpy(dst: int, src: int, size: int, kind: int) -> None:
    ctypes.memmove(dst, src, size)
