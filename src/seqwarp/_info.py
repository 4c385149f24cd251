"""``seqwarp info``: build- and run-time facts, probe by probe; a failing probe prints its error."""

from __future__ import annotations

import argparse
import platform
from collections.abc import Callable
from typing import TextIO

from . import __version__

__all__ = ["configure", "run"]


def _version(module: str) -> Callable[[], str]:
    def probe() -> str:
        from importlib.metadata import version

        return version(module)

    return probe


def _backend() -> str:
    from .devices import resolve

    return resolve("auto").describe()


def _cuda() -> str:
    import cupy

    runtime = cupy.cuda.runtime.runtimeGetVersion()
    driver = cupy.cuda.runtime.driverGetVersion()
    return f"runtime {runtime}, driver {driver}, {cupy.cuda.runtime.getDeviceCount()} device(s)"


def _threads() -> str:
    import numba

    return f"{numba.config.NUMBA_NUM_THREADS} numba threads"


PROBES: dict[str, Callable[[], str]] = {
    "seqwarp": lambda: __version__,
    "python": platform.python_version,
    "platform": platform.platform,
    "numpy": _version("numpy"),
    "numba": _version("numba"),
    "dnaio": _version("dnaio"),
    "pyhmmer": _version("pyhmmer"),
    "scoring-matrices": _version("scoring-matrices"),
    "cupy": lambda: __import__("cupy").__version__,
    "cuda": _cuda,
    "cpu threads": _threads,
    "backend (auto)": _backend,
}


def configure(parser: argparse.ArgumentParser) -> None:
    """``seqwarp info`` takes no options."""


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    width = max(map(len, PROBES))
    for name, probe in PROBES.items():
        try:
            value = probe()
        except Exception as error:
            value = f"unavailable ({type(error).__name__}: {error})"
        print(f"{name:<{width}}  {value}", file=stdout)
    return 0
