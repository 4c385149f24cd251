"""Benchmark reports: machine facts, a JSON record, a terminal table and a bar chart.

Every benchmark writes ``<name>-<date>.json`` (written atomically: a failed run never leaves a
half-written record) and ``<name>-<date>.png`` beside it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pathlib
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from matplotlib.figure import Figure
from rich.console import Console
from rich.table import Table

from .. import __version__
from ..io import atomic_output

__all__ = [
    "bar_chart",
    "load_average",
    "machine_info",
    "median_seconds",
    "print_table",
    "repeat_seconds",
    "result_stem",
    "source_digest",
    "usable_cores",
    "write_json",
]

_PACKAGES = ("numpy", "numba", "parasail", "pyhmmer", "cupy-cuda12x", "cupy-cuda13x")
_SIMD_FLAGS = ("sse4_1", "avx2", "avx512f", "avx512bw", "neon", "asimd")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cpu_flags() -> list[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(("flags", "Features")):
                    present = set(line.split(":", 1)[1].split())
                    return [flag for flag in _SIMD_FLAGS if flag in present]
    except OSError:
        pass
    return []


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages (empty where the OS has none): a loaded machine
    makes wall-clock speeds unreliable, and the record should say so."""
    if hasattr(os, "getloadavg"):
        return [round(x, 2) for x in os.getloadavg()]
    return []


def machine_info() -> dict[str, object]:
    """CPU model, core counts, SIMD flags, OS and the versions of the packages that matter."""
    versions: dict[str, str] = {"seqwarp": __version__, "python": platform.python_version()}
    for package in _PACKAGES:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            continue
    return {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "simd": _cpu_flags(),
        "platform": platform.platform(),
        "versions": versions,
    }


def source_digest(package: str) -> str:
    """A short SHA-256 of the ``.py`` files of ``package`` (not of its subpackages): which
    version of an engine a record measured, even between releases."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return "unknown"
    digest = hashlib.sha256()
    for folder in spec.submodule_search_locations:
        for path in sorted(pathlib.Path(folder).glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def repeat_seconds(call: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    """Wall-clock seconds of each of ``repeats`` runs of ``call`` after a warm-up run (which
    pays for compiles and first allocations), and the last run's answer."""
    answer = call()
    times = []
    for _ in range(max(1, repeats)):
        begin = time.perf_counter()
        answer = call()
        times.append(time.perf_counter() - begin)
    return times, answer


def median_seconds(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median of :func:`repeat_seconds`, and the last run's answer."""
    times, answer = repeat_seconds(call, repeats)
    return statistics.median(times), answer


def result_stem(directory: str | os.PathLike[str], name: str) -> str:
    """``<directory>/<name>-<UTC date>``, the directory created if needed; add the suffix."""
    os.makedirs(directory, exist_ok=True)
    return os.path.join(os.fspath(directory), f"{name}-{time.strftime('%Y-%m-%d', time.gmtime())}")


def write_json(path: str | os.PathLike[str], record: Mapping[str, object]) -> None:
    """Write ``record`` as indented JSON, atomically."""
    with atomic_output(path) as handle:
        json.dump(record, handle, indent=2)
        handle.write("\n")


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    console: Console | None = None,
) -> None:
    """Print rows under ``columns``; floats get two decimals, numbers align right."""
    table = Table(title=title)
    numeric = [all(isinstance(row[c], int | float) for row in rows) for c in range(len(columns))]
    for name, right in zip(columns, numeric, strict=True):
        table.add_column(name, justify="right" if right else "left")
    for row in rows:
        table.add_row(*(f"{cell:.2f}" if isinstance(cell, float) else str(cell) for cell in row))
    (console or Console()).print(table)


def bar_chart(
    path: str | os.PathLike[str],
    title: str,
    panels: Mapping[str, tuple[Sequence[str], Mapping[str, Sequence[float]]]],
    ylabel: str,
) -> None:
    """Grouped bars, one panel per key of ``panels``: ``(bar labels, {series: values})``.

    The PNG is written atomically.
    """
    figure = Figure(figsize=(12, 3.2 * len(panels)), layout="constrained")
    axes = figure.subplots(len(panels), 1, squeeze=False)[:, 0]
    for ax, (name, (labels, series)) in zip(axes, panels.items(), strict=True):
        width = 0.8 / max(1, len(series))
        for k, (label, values) in enumerate(series.items()):
            positions = [x + (k - (len(series) - 1) / 2) * width for x in range(len(labels))]
            ax.bar(positions, values, width, label=label)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_title(name)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        ax.legend()
    figure.suptitle(title)
    with atomic_output(path, "wb") as handle:
        figure.savefig(handle, format="png", dpi=110)
