"""Compile seqwarp's CUDA sources with NVRTC (through CuPy), specialised by template arguments.

This is the only module that calls NVRTC: AnySeq's partial-evaluation step, done by the C++
compiler. A kernel file is read from a package's ``kernels/`` folder, its local ``#include
"..."`` headers are inlined, and the module is compiled for the current device with the template
instantiations named in ``name_expressions``.

Caching: the key covers the source with its headers, the options, the name expressions, the
device's architecture, the NVRTC version and seqwarp's version. It is written into the source
as a comment, so CuPy's on-disk cache (keyed by source, options, architecture and NVRTC) sees
every part of it, and compiled modules are memoised per (key, device) in this process. A
repeated request (same file, instantiations, options and device) returns the module before
the sources are read again: they are package data, read once per process.

Errors: a failed compile raises :class:`seqwarp.errors.CompileError` with the kernel name, the
options and the compiler log. ``SEQWARP_DUMP_CUDA_SOURCE_ON_ERROR=1`` also prints the source
with line numbers to stderr; ``SEQWARP_CUDA_LINEINFO=1`` adds ``-lineinfo`` for profilers.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any

from . import __version__
from .errors import CompileError

__all__ = ["Module", "compile_module", "inline_headers", "kernel_source"]

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.MULTILINE)
_BASE_OPTIONS = ("-std=c++17",)
_lock = threading.Lock()
_memo: dict[tuple[str, int], Module] = {}
# (package, file, name expressions, options, device ordinal) -> module: a GPU call asks for
# its module once per stage, and reading and hashing the sources each time costs milliseconds
_requests: dict[tuple[str, str, tuple[str, ...], tuple[str, ...], int], Module] = {}


def kernel_source(package: str, filename: str) -> str:
    """The text of ``package/kernels/filename`` with its local headers inlined (each once)."""
    return inline_headers(resources.files(package).joinpath("kernels"), filename)


def inline_headers(folder: Any, filename: str) -> str:
    """The text of ``folder/filename`` (a path or a package resource) with the local headers
    it includes, from the same folder, inlined (each once)."""
    seen: set[str] = set()

    def expand(name: str) -> str:
        if name in seen:
            return ""
        seen.add(name)
        text = folder.joinpath(name).read_text(encoding="utf-8")
        return _INCLUDE.sub(lambda match: expand(match.group(1)), text)

    return expand(filename)


class Module:
    """A compiled module: ``module.function(name_expression)`` returns a launchable kernel."""

    def __init__(self, raw: Any, kernel: str, key: str) -> None:
        self._raw = raw
        self.kernel = kernel
        self.key = key

    def function(self, name_expression: str) -> Any:
        """The ``cupy.RawKernel`` of one template instantiation."""
        return self._raw.get_function(name_expression)


def _device_facts() -> tuple[int, str, str]:
    """(device ordinal, ``sm_XY`` architecture, NVRTC version) of CuPy's current device."""
    import cupy

    device = cupy.cuda.Device()
    major, minor = cupy.cuda.nvrtc.getVersion()
    return device.id, f"sm_{device.compute_capability}", f"{major}.{minor}"


def _cache_key(
    source: str, options: Sequence[str], names: Sequence[str], arch: str, nvrtc: str
) -> str:
    digest = hashlib.sha256()
    for part in (source, "\0".join(options), "\0".join(names), arch, nvrtc, __version__):
        digest.update(part.encode("utf-8"))
        digest.update(b"\1")
    return digest.hexdigest()


def _numbered(source: str) -> str:
    return "\n".join(f"{number:5d} {line}" for number, line in enumerate(source.splitlines(), 1))


def compile_module(
    package: str,
    filename: str,
    name_expressions: Sequence[str],
    options: Sequence[str] = (),
) -> Module:
    """Compile ``package/kernels/filename`` for the current device (memoised per device).

    ``name_expressions`` are the template instantiations to build, such as
    ``"seqwarp::align_score<0, true, seqwarp::LaneS16x2, 16, 32>"``.
    """
    import cupy

    all_options = (*_BASE_OPTIONS, *options)
    if os.environ.get("SEQWARP_CUDA_LINEINFO") == "1":
        all_options = (*all_options, "-lineinfo")
    names = tuple(name_expressions)
    request = (package, filename, names, all_options, cupy.cuda.runtime.getDevice())
    known = _requests.get(request)
    if known is not None:
        return known
    source = kernel_source(package, filename)
    ordinal, arch, nvrtc = _device_facts()
    key = _cache_key(source, all_options, names, arch, nvrtc)
    with _lock:
        module = _memo.get((key, ordinal))
        if module is not None:
            _requests[request] = module
            return module
        keyed_source = f"// seqwarp {__version__} cache key {key}\n{source}"
        raw = cupy.RawModule(
            code=keyed_source, options=all_options, name_expressions=names, backend="nvrtc"
        )
        try:
            raw.compile()
        except cupy.cuda.compiler.CompileException as error:
            if os.environ.get("SEQWARP_DUMP_CUDA_SOURCE_ON_ERROR") == "1":
                print(_numbered(keyed_source), file=sys.stderr)
            raise CompileError(filename, all_options, str(error)) from None
        module = Module(raw, filename, key)
        _memo[(key, ordinal)] = module
        _requests[request] = module
        return module
