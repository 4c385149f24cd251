"""``cuda.compile_module`` compiles each module once per device and answers repeats from
memory without reading the sources again (checked with a stand-in for CuPy: no GPU needed)."""

from __future__ import annotations

import sys
import types

import pytest

from seqwarp import cuda

NAME = "seqwarp::align_score<0, true, seqwarp::LaneS16x2, 16, 32>"


def _fake_cupy(device: list[int], built: list[tuple]) -> types.ModuleType:
    """A module standing in for CuPy: the current device is ``device[0]``; every RawModule
    built is recorded in ``built``."""

    class RawModule:
        def __init__(self, code: str, options: tuple, name_expressions: tuple, backend: str):
            built.append((device[0], name_expressions, options))

        def compile(self) -> None:
            pass

        def get_function(self, name: str) -> str:
            return f"kernel {name}"

    class Device:
        def __init__(self) -> None:
            self.id = device[0]
            self.compute_capability = "90"

    fake = types.ModuleType("cupy")
    fake.RawModule = RawModule
    fake.cuda = types.SimpleNamespace(
        Device=Device,
        runtime=types.SimpleNamespace(getDevice=lambda: device[0]),
        nvrtc=types.SimpleNamespace(getVersion=lambda: (13, 0)),
        compiler=types.SimpleNamespace(CompileException=RuntimeError),
    )
    return fake


def test_repeated_requests_reuse_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    device, built = [0], []
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(device, built))
    monkeypatch.setattr(cuda, "_memo", {})
    monkeypatch.setattr(cuda, "_requests", {})
    reads = []
    source = cuda.kernel_source
    monkeypatch.setattr(cuda, "kernel_source", lambda *args: reads.append(args) or source(*args))

    first = cuda.compile_module("seqwarp.align", "align_score.cu", [NAME])
    again = cuda.compile_module("seqwarp.align", "align_score.cu", [NAME])
    assert again is first and len(built) == 1 and len(reads) == 1
    assert first.function(NAME) == f"kernel {NAME}"

    device[0] = 1  # another GPU compiles its own module
    other = cuda.compile_module("seqwarp.align", "align_score.cu", [NAME])
    assert other is not first and [b[0] for b in built] == [0, 1]

    device[0] = 0  # other instantiations or options are other modules
    cuda.compile_module("seqwarp.align", "align_score.cu", [NAME, NAME.replace("16, 32", "8, 16")])
    cuda.compile_module("seqwarp.align", "align_score.cu", [NAME], options=("-lineinfo",))
    assert len(built) == 4
    assert cuda.compile_module("seqwarp.align", "align_score.cu", [NAME]) is first
    assert len(built) == 4 and len(reads) == 4


def test_kernel_sources_are_ascii() -> None:
    """CuPy writes each NVRTC source to a file in the locale's encoding before compiling it:
    a character outside ASCII fails every compile under a C or POSIX locale."""
    from importlib import resources

    folder = resources.files("seqwarp.align").joinpath("kernels")
    sources = [p.name for p in folder.iterdir() if p.name.endswith(".cu")]
    assert "align_score.cu" in sources
    for name in sources:
        text = cuda.kernel_source("seqwarp.align", name)
        odd = [(n, line) for n, line in enumerate(text.splitlines(), 1) if not line.isascii()]
        assert not odd, f"{name}: non-ASCII characters in {odd[:3]}"
