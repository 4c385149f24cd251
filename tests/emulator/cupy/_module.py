"""``cupy.RawModule`` and ``cupy.RawKernel`` on the CPU: the CUDA source is compiled by the
host's C++ compiler against ``cuda_emulator.h``, with a launcher for each name expression,
into a shared library cached on disk by the hash of everything that goes into it."""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .cuda.compiler import CompileException

HERE = Path(__file__).resolve().parent.parent
HEADER = HERE / "cuda_emulator.h"
# without _FORTIFY_SOURCE (Ubuntu's g++ defines it): its longjmp check aborts on a switch
# between fiber stacks
FLAGS = ("-std=c++17", "-O1", "-fPIC", "-shared", "-w", "-U_FORTIFY_SOURCE")
_DYNAMIC_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+)?([\w ]+?)\s*(\w+)\s*\[\s*\]\s*;"
)
_lock = threading.Lock()
_libraries: dict[str, ctypes.CDLL] = {}


class _Launch(ctypes.Structure):
    _fields_ = [
        ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3),
        ("shared_bytes", ctypes.c_ulonglong),
    ]


def _cache_folder() -> Path:
    folder = os.environ.get("SEQWARP_GPU_EMULATOR_CACHE") or os.path.join(
        tempfile.gettempdir(), f"seqwarp-cuda-emulator-{os.getuid()}"
    )
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def translation_unit(code: str, names: Sequence[str]) -> str:
    """The C++ that the host compiler builds: the emulator, the kernels (their dynamic shared
    memory made the block's buffer) and an ``extern "C"`` launcher a name expression."""
    body = _DYNAMIC_SHARED.sub(r"\1* \2 = (\1*)seqwarp_emu::dynamic_shared();", code)
    launchers = "\n".join(
        f'extern "C" const char* seqwarp_launch_{i}(const seqwarp_emu::Launch* l, void** args) {{\n'
        f"    static thread_local std::string why;\n"
        f"    why = seqwarp_emu::launch(&{name}, *l, args);\n"
        f"    return why.c_str();\n}}"
        for i, name in enumerate(names)
    )
    return f'#include "cuda_emulator.h"\n{body}\n{launchers}\n'


def _compile(unit: str, defines: Sequence[str]) -> ctypes.CDLL:
    compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        raise CompileException("no C++ compiler (g++) for the CUDA emulator")
    digest = hashlib.sha256()
    for part in (unit, HEADER.read_text(), compiler, *FLAGS, *defines):
        digest.update(part.encode())
        digest.update(b"\0")
    key = digest.hexdigest()[:32]
    with _lock:
        known = _libraries.get(key)
        if known is not None:
            return known
        folder = _cache_folder()
        library = folder / f"{key}.so"
        if not library.exists():
            include = folder / "include"
            include.mkdir(exist_ok=True)
            (include / "cuda_fp16.h").write_text("// cuda_emulator.h defines the half types\n")
            source = folder / f"{key}.cpp"
            source.write_text(unit)
            partial = folder / f"{key}.{os.getpid()}.{threading.get_ident()}.so"
            done = subprocess.run(
                [
                    compiler,
                    *FLAGS,
                    *defines,
                    f"-I{HERE}",
                    f"-I{include}",
                    str(source),
                    "-o",
                    str(partial),
                ],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise CompileException(done.stderr[-20000:])
            os.replace(partial, library)
        loaded = ctypes.CDLL(str(library))
        _libraries[key] = loaded
        return loaded


class RawKernel:
    """One launchable instantiation (CuPy's call: ``kernel(grid, block, args, shared_mem=)``)."""

    num_regs = 64
    shared_size_bytes = 0
    local_size_bytes = 0
    max_threads_per_block = 1024

    def __init__(self, launcher: Any, name: str) -> None:
        self._launcher = launcher
        self._launcher.restype = ctypes.c_char_p
        self._launcher.argtypes = [ctypes.POINTER(_Launch), ctypes.c_void_p]
        self.name = name
        self.max_dynamic_shared_size_bytes = 48 * 1024
        self.preferred_shared_memory_carveout = -1

    def __call__(
        self,
        grid: Any,
        block: Any,
        args: Sequence[Any],
        *,
        shared_mem: int = 0,
        stream: Any = None,
        **_: Any,
    ) -> None:
        grid = tuple(int(x) for x in (grid if isinstance(grid, tuple | list) else (grid,)))
        block = tuple(int(x) for x in (block if isinstance(block, tuple | list) else (block,)))
        if shared_mem > max(48 * 1024, self.max_dynamic_shared_size_bytes):
            raise RuntimeError(f"{self.name}: {shared_mem} bytes of dynamic shared memory")
        launch = _Launch((*grid, 1, 1)[:3], (*block, 1, 1)[:3], shared_mem)
        kept, pointers = [], []
        for arg in args:
            if isinstance(arg, np.ndarray):
                value = np.array([arg.ctypes.data], dtype=np.uintp)
            elif isinstance(arg, np.generic):
                value = np.array([arg])
            elif isinstance(arg, bool):
                value = np.array([arg], dtype=np.bool_)
            elif isinstance(arg, int):
                value = np.array([arg], dtype=np.int64)
            elif isinstance(arg, float):
                value = np.array([arg], dtype=np.float64)
            else:
                raise TypeError(f"{self.name}: an argument of type {type(arg).__name__}")
            kept.append(value)
            pointers.append(value.ctypes.data)
        table = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)
        why = self._launcher(ctypes.byref(launch), table)
        if why:
            raise RuntimeError(f"{self.name}: {why.decode()}")


class RawModule:
    """CUDA source compiled for the emulator; ``get_function(name_expression)``."""

    def __init__(
        self,
        code: str,
        options: Sequence[str] = (),
        name_expressions: Sequence[str] = (),
        backend: str = "nvrtc",
        **_: Any,
    ) -> None:
        self._code = code
        self._names = tuple(name_expressions)
        self._defines = tuple(o for o in options if o.startswith("-D"))
        self._library: ctypes.CDLL | None = None

    def compile(self) -> None:
        if self._library is None:
            self._library = _compile(translation_unit(self._code, self._names), self._defines)

    def get_function(self, name: str) -> RawKernel:
        self.compile()
        index = self._names.index(name)
        return RawKernel(getattr(self._library, f"seqwarp_launch_{index}"), name)
