"""The process-wide host thread pools of the GPU engine."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import ClassVar, TypeVar

from seqwarp.align._pools import pool, thread_streams

T = TypeVar("T")


def test_a_pool_is_kept_by_name_and_names_its_threads() -> None:
    """The same name gives the same pool, whose tasks run on threads named after it; another
    name gives another pool."""
    scans = pool("test-scan")
    assert pool("test-scan") is scans
    assert pool("test-copy") is not scans
    names = set(scans.map(lambda _: threading.current_thread().name, range(8)))
    assert names and all(name.startswith("seqwarp-test-scan") for name in names)


class _FakeCuda:
    """The part of CuPy that thread_streams uses: devices as context managers, streams."""

    class Device:
        def __init__(self, ordinal: int) -> None:
            self.ordinal = ordinal

        def __enter__(self) -> None:
            _FakeCuda.current.append(self.ordinal)

        def __exit__(self, *exc: object) -> None:
            _FakeCuda.current.pop()

    class Stream:
        def __init__(self, non_blocking: bool) -> None:
            assert non_blocking
            self.device = _FakeCuda.current[-1]

    current: ClassVar[list[int]] = []


class _FakeCupy:
    cuda = _FakeCuda


def _in_a_new_thread(task: Callable[[], T]) -> T:
    """``task()`` on a thread of its own (fake streams never reach a thread a GPU test uses)."""
    result: list[T] = []
    thread = threading.Thread(target=lambda: result.append(task()))
    thread.start()
    thread.join()
    return result[0]


def test_a_thread_keeps_its_streams_per_device() -> None:
    """A thread gets the same streams at every call (CuPy's pool keeps freed blocks per
    stream: new streams each call left the blocks of the earlier ones unused), made on the
    device asked for; another thread gets streams of its own."""

    def calls() -> list[list]:
        asked = ((0, 2), (0, 2), (0, 1), (0, 3), (1, 2))
        return [thread_streams(_FakeCupy, device, count) for device, count in asked]

    first, again, fewer, more, other_device = _in_a_new_thread(calls)
    assert len(first) == 2 and all(s.device == 0 for s in first)
    assert again == first and fewer == first[:1] and more[:2] == first
    assert all(s.device == 1 for s in other_device)
    assert not set(map(id, other_device)) & set(map(id, first))
    elsewhere = _in_a_new_thread(lambda: thread_streams(_FakeCupy, 0, 2))
    assert not set(map(id, elsewhere)) & set(map(id, first))
