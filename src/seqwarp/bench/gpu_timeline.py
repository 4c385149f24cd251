"""Where a whole GPU score call's time goes, device by device: CUDA events around every kernel
launch of the GPU engine during one call give when each device's host thread started, when its
first kernel began, when its last one ended and how long its kernels were busy (the union of
their intervals), against the call's wall time. The rest is host work: what a whole call loses
to its kernels, and what bounds scaling over GPUs.

For benchmarks only: the engine's share function and kernel launch are wrapped for the
duration of the traced call (score calls; the CIGAR path is not traced).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["DeviceTimeline", "busy_time", "trace_call"]


@dataclass(frozen=True)
class DeviceTimeline:
    """One device's part of a traced call, in milliseconds from the call's start."""

    device: int
    thread_start_ms: float
    first_kernel_ms: float
    last_kernel_end_ms: float
    busy_ms: float  # the union of its kernels' intervals
    kernels: int


def busy_time(intervals: Iterable[tuple[float, float]]) -> float:
    """The length of the union of ``(begin, end)`` intervals (overlapping kernels of two
    streams count once)."""
    total = 0.0
    begin = end = None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            if end is not None:
                total += end - begin
            begin, end = start, stop
        else:
            end = max(end, stop)
    return total if end is None else total + end - begin


def trace_call(call: Callable[[], Any]) -> tuple[float, list[DeviceTimeline]]:
    """Run ``call`` (one or more GPU score calls) with every kernel launch timed; returns the
    wall time in ms and each device's timeline (devices in order)."""
    import cupy as cp

    from ..align import _gpu_backend as engine

    lock = threading.Lock()
    starts: dict[int, tuple[Any, float]] = {}  # device: (event, host time) of its first share
    launches: list[tuple[int, Any, Any]] = []
    score_part, launch = engine._score_part, engine.Staged.launch

    def traced_part(cp_: Any, device: int, *args: Any, **kwargs: Any) -> Any:
        with cp.cuda.Device(device):
            event = cp.cuda.Event()
            event.record()
        with lock:
            starts.setdefault(device, (event, time.perf_counter()))
        return score_part(cp_, device, *args, **kwargs)

    def traced_launch(staged: Any) -> None:
        stream = cp.cuda.get_current_stream()
        begin = cp.cuda.Event()
        begin.record(stream)
        launch(staged)
        end = cp.cuda.Event()
        end.record(stream)
        with lock:
            launches.append((cp.cuda.Device().id, begin, end))

    engine._score_part, engine.Staged.launch = traced_part, traced_launch
    try:
        start = time.perf_counter()
        call()
        wall = time.perf_counter() - start
    finally:
        engine._score_part, engine.Staged.launch = score_part, launch
    timelines = []
    for device in sorted(starts):
        reference, host = starts[device]
        offset = 1e3 * (host - start)

        def at(event: Any, reference: Any = reference, offset: float = offset) -> float:
            event.synchronize()
            return offset + cp.cuda.get_elapsed_time(reference, event)

        spans = [(at(begin), at(end)) for where, begin, end in launches if where == device]
        if not spans:
            continue
        timelines.append(
            DeviceTimeline(
                device,
                offset,
                min(begin for begin, _ in spans),
                max(end for _, end in spans),
                busy_time(spans),
                len(spans),
            )
        )
    return 1e3 * wall, timelines
