"""Host thread pools kept for the life of the process, and each thread's CUDA streams.

A GPU call hands work to host threads (one per device, the stage planners, the residue
copiers, the result gatherers); starting them afresh at every call cost the device threads
10-25 ms of a 200 ms two-GPU call, each start waiting for the interpreter lock that the call's
other threads held (measured on a 2 x H200 host).

CuPy's memory pool keeps a freed block for the stream it was allocated on. With new streams
at every call, the blocks of earlier calls stayed cached under streams that no longer existed:
the pool grew call after call until the device was full, so that the traceback's flag budget
(a share of the free memory) shrank to tiny chunks (calls 10-50 times slower) and creating a
stream failed for want of memory. A thread now keeps its streams, and its next call reuses
its blocks."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["pool", "thread_streams"]

# threads per pool: one starts only when every other one is busy, then stays for later calls
_MOST_THREADS = 64
_pools: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()
_local = threading.local()


def pool(name: str) -> ThreadPoolExecutor:
    """The process's pool ``name`` (its threads are named ``seqwarp-<name>``). A task must
    never wait for another task of its own pool: a full pool would stop."""
    with _lock:
        found = _pools.get(name)
        if found is None:
            found = _pools[name] = ThreadPoolExecutor(
                _MOST_THREADS, thread_name_prefix=f"seqwarp-{name}"
            )
        return found


def thread_streams(cp: Any, device: int, count: int) -> list[Any]:
    """``count`` non-blocking CUDA streams on ``device`` that belong to the calling thread,
    made at its first call and the same at every later one (see the module's note)."""
    mine = _local.__dict__.setdefault("streams", {}).setdefault(device, [])
    while len(mine) < count:
        with cp.cuda.Device(device):
            mine.append(cp.cuda.Stream(non_blocking=True))
    return mine[:count]


# a forked child has none of its parent's threads: it starts pools of its own
os.register_at_fork(after_in_child=_pools.clear)
