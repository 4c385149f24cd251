"""Backend choice: ``"auto" | "cpu" | "gpu" | "cuda:N"`` resolved once, refusing clearly.

GPU modules are imported only after resolution, so ``import seqwarp`` works without CuPy.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from .errors import DeviceUnavailable, InvalidParameter

__all__ = ["Backend", "Device", "gpu_count", "resolve"]

Device = Literal["auto", "cpu", "gpu"] | str


@dataclass(frozen=True)
class Backend:
    """A resolved backend: ``kind`` is ``"cpu"`` or ``"gpu"``; ``ordinals`` lists CUDA devices."""

    kind: Literal["cpu", "gpu"]
    ordinals: tuple[int, ...] = ()
    reason: str = ""

    def describe(self) -> str:
        if self.kind == "cpu":
            return f"cpu{f' ({self.reason})' if self.reason else ''}"
        names = ", ".join(f"cuda:{i} {_device_name(i)}" for i in self.ordinals)
        return f"gpu ({names})"


@functools.cache
def _cupy_status() -> tuple[int, str]:
    """(number of usable CUDA devices, reason when zero)."""
    try:
        import cupy
    except ImportError:
        return 0, "CuPy is not installed (pip install 'seqwarp[cuda12]' or 'seqwarp[cuda13]')"
    except Exception as error:  # a broken CuPy install
        return 0, f"CuPy failed to import: {error}"
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:
        return 0, f"CuPy sees no CUDA device ({error})"
    if count == 0:
        return 0, "CuPy sees no CUDA device"
    return count, ""


def gpu_count() -> int:
    """How many CUDA devices CuPy can use (0 without CuPy or a GPU)."""
    return _cupy_status()[0]


@functools.cache
def _device_name(ordinal: int) -> str:
    """The device's name (cached: reading a device's properties takes about a millisecond)."""
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(ordinal)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def resolve(device: Device = "auto", gpus: int | None = None) -> Backend:
    """Turn a device request into a backend, or raise ``DeviceUnavailable`` saying why.

    ``gpus`` (with ``"gpu"``/``"auto"``) asks for that many devices; ``None`` uses one.
    """
    if not isinstance(device, str):
        raise InvalidParameter("device", device, choices=["auto", "cpu", "gpu", "cuda:N"])
    request = device.lower()
    if request == "cpu":
        return Backend("cpu", reason="requested")
    count, reason = _cupy_status()
    if request == "auto":
        if count == 0:
            return Backend("cpu", reason=reason)
        return Backend("gpu", tuple(range(min(gpus or 1, count))))
    if request == "gpu":
        if count == 0:
            raise DeviceUnavailable(device, reason)
        wanted = gpus or 1
        if wanted > count:
            raise DeviceUnavailable(device, f"{wanted} GPUs requested, {count} visible")
        return Backend("gpu", tuple(range(wanted)))
    if request.startswith("cuda:"):
        try:
            ordinal = int(request.split(":", 1)[1])
        except ValueError:
            raise InvalidParameter(
                "device", device, choices=["auto", "cpu", "gpu", "cuda:N"]
            ) from None
        if count == 0:
            raise DeviceUnavailable(device, reason)
        if not 0 <= ordinal < count:
            raise DeviceUnavailable(device, f"only {count} CUDA device(s) visible")
        return Backend("gpu", (ordinal,))
    raise InvalidParameter("device", device, choices=["auto", "cpu", "gpu", "cuda:N"])
