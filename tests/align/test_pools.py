"""The process-wide host thread pools of the GPU engine."""

from __future__ import annotations

import threading

from seqwarp.align._pools import pool


def test_a_pool_is_kept_by_name_and_names_its_threads() -> None:
    """The same name gives the same pool, whose tasks run on threads named after it; another
    name gives another pool."""
    scans = pool("test-scan")
    assert pool("test-scan") is scans
    assert pool("test-copy") is not scans
    names = set(scans.map(lambda _: threading.current_thread().name, range(8)))
    assert names and all(name.startswith("seqwarp-test-scan") for name in names)
