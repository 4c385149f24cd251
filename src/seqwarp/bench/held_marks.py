"""Phase marks of a CIGAR call whose chunks' kernels run back to back, for timing them.

A CUDA event times its stream, not the kernel after it: recorded on an idle stream, it starts
the clock before the host has launched the kernel, and any wait of the host's in between (its
interpreter lock held by another of the call's threads, a millisecond or more) counts as
kernel time. :class:`HeldPhaseMarks` holds a chunk's stream (``kernels/hold.cu``) from before
its ``"start"`` event until its last mark (``"pack"``) has been queued, so that its kernels
and events run one after another as the device reaches them. For benchmarks only.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import cuda
from ..align._gpu_traceback import PhaseMarks

__all__ = ["HeldPhaseMarks"]

_HOLD = "seqwarp::hold_stream"
# a hold the host has not let go of by then ends by itself (and says so)
_LIMIT_NS = 2_000_000_000


class HeldPhaseMarks(PhaseMarks):
    """:class:`PhaseMarks` with each chunk's stream held until its phases are queued (a call on
    one device, whose chunks are queued one after another)."""

    def __init__(self) -> None:
        import cupy as cp

        super().__init__()
        self._cp = cp
        self._hold = cuda.compile_module("seqwarp.align", "hold.cu", [_HOLD]).function(_HOLD)
        # each hold's two words in pinned memory (let go, timed out), kept while it may run
        self._gates: list[tuple[Any, np.ndarray]] = []

    def mark(self, phase: str, stream: Any) -> None:
        """Hold ``stream`` before a chunk's ``"start"``; let it go after its ``"pack"``."""
        if phase == "start":
            memory = self._cp.cuda.alloc_pinned_memory(8)
            gate = np.frombuffer(memory, dtype=np.uint32, count=2)
            gate[:] = 0
            self._gates.append((memory, gate))
            with stream:
                # pinned memory is the device's at the same address (unified addressing)
                self._hold((1,), (1,), (np.uint64(memory.ptr), np.uint64(_LIMIT_NS)))
        super().mark(phase, stream)
        if phase == "pack":
            self._gates[-1][1][0] = 1

    def seconds(self) -> dict[str, float]:
        """Seconds of each phase summed over the chunks (each span from the event before it);
        raises if a hold ran out before the host let it go (the spans may hold host time)."""
        totals = dict.fromkeys(("fill", "walk", "pack"), 0.0)
        for (_, before), (phase, after) in itertools.pairwise(self.events):
            if phase != "start":
                after.synchronize()
                totals[phase] += self._cp.cuda.get_elapsed_time(before, after) / 1e3
        if any(gate[1] for _, gate in self._gates):
            raise RuntimeError("a held chunk's stream ran out of its hold before it was queued")
        return totals
