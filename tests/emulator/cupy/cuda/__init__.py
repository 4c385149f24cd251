"""``cupy.cuda`` on the CPU: one emulated device; streams and events do their work at once."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np

from . import compiler, memory, nvrtc, runtime

__all__ = [
    "Device",
    "Event",
    "Stream",
    "alloc_pinned_memory",
    "compiler",
    "get_current_stream",
    "get_elapsed_time",
    "memory",
    "nvrtc",
    "runtime",
]

MEMORY_BYTES = int(os.environ.get("SEQWARP_GPU_EMULATOR_MEMORY", str(4 << 30)))

# what an H200's multiprocessor holds, so that the planner's occupancy rules see a Hopper part
ATTRIBUTES = {
    "MaxRegistersPerMultiprocessor": 65536,
    "MaxThreadsPerMultiProcessor": 2048,
    "MaxBlocksPerMultiprocessor": 32,
    "MaxSharedMemoryPerMultiprocessor": 233472,
    "ReservedSharedMemoryPerBlock": 1024,
    "MaxSharedMemoryPerBlockOptin": 232448,
    "MultiProcessorCount": int(os.environ.get("SEQWARP_GPU_EMULATOR_SMS", "4")),
    "WarpSize": 32,
}


class Device:
    """The one emulated device (ordinal 0)."""

    def __init__(self, device: int | None = None) -> None:
        self.id = 0 if device is None else int(device)
        if self.id != 0:
            raise runtime.CUDARuntimeError(f"invalid device ordinal {self.id}")
        # 8.0: the emulator runs no thread block clusters (Hopper's are a 9.0 feature)
        self.compute_capability = "80"
        self.attributes = dict(ATTRIBUTES)

    @property
    def mem_info(self) -> tuple[int, int]:
        return MEMORY_BYTES, MEMORY_BYTES

    def synchronize(self) -> None:
        pass

    def use(self) -> None:
        pass

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class Event:
    """Recorded when made: the work before it on its stream has run already."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.time = time.perf_counter()
        self.done = True

    def record(self, stream: Any = None) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        pass


_local = threading.local()
_count = [0]


class Stream:
    """A stream whose work runs at once, in the calling thread."""

    def __init__(self, null: bool = False, non_blocking: bool = False, ptr: int = 0) -> None:
        _count[0] += 1
        self.ptr = 0 if null else ptr or _count[0]

    def record(self, event: Event | None = None) -> Event:
        event = event or Event()
        event.record(self)
        return event

    def synchronize(self) -> None:
        pass

    def wait_event(self, event: Event) -> None:
        pass

    def use(self) -> Stream:
        _local.current = self
        return self

    def __enter__(self) -> Stream:
        _local.__dict__.setdefault("stack", []).append(get_current_stream())
        _local.current = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.current = _local.stack.pop()


_null = Stream(null=True)
# CuPy's default streams as class attributes: the legacy one and the per-thread one
Stream.null = _null
Stream.ptds = Stream(ptr=2**62)


def get_current_stream() -> Stream:
    return getattr(_local, "current", _null)


def get_elapsed_time(start: Event, end: Event) -> float:
    return (end.time - start.time) * 1e3


class _Pinned(np.ndarray):
    @property
    def ptr(self) -> int:
        return self.ctypes.data


def alloc_pinned_memory(size: int) -> _Pinned:
    return np.empty(size, np.uint8).view(_Pinned)
