"""Host thread pools kept for the life of the process. A GPU call hands work to host threads
(one per device, the stage planners, the residue copiers, the result gatherers); starting
them afresh at every call cost the device threads 10-25 ms of a 200 ms two-GPU call, each
start waiting for the interpreter lock that the call's other threads held (measured on a
2 x H200 host)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["pool"]

# threads per pool: one starts only when every other one is busy, then stays for later calls
_MOST_THREADS = 64
_pools: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()


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


# a forked child has none of its parent's threads: it starts pools of its own
os.register_at_fork(after_in_child=_pools.clear)
