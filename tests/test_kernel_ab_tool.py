"""tools/kernel_ab.py's two sides: a revision's kernel folder, and the sources each compiles."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

from seqwarp import cuda

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "kernel_ab.py"
KERNELS = ROOT / "src" / "seqwarp" / "align" / "kernels"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kernel_ab", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sources_come_from_the_folder_then_from_the_package(tmp_path: Path) -> None:
    tool = _tool()
    shutil.copytree(KERNELS, tmp_path, dirs_exist_ok=True)
    header = tmp_path / "align_band.cuh"
    header.write_text(header.read_text() + "// the other side\n")
    packaged = cuda.kernel_source("seqwarp.align", "align_trace.cu")
    try:
        tool._use_sources(tmp_path)
        other = cuda.kernel_source("seqwarp.align", "align_trace.cu")
        # the folder's header, inlined where the package's was
        assert "// the other side" in other and "// the other side" not in packaged
        assert other.replace("// the other side\n", "") == packaged
    finally:
        tool._use_sources(None)
    assert cuda.kernel_source("seqwarp.align", "align_trace.cu") == packaged


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_checkout_writes_a_revisions_kernel_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the tool asks git in the working directory
    inside = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True)
    if inside.returncode != 0:
        pytest.skip("not a git checkout")
    tool = _tool()
    tool._checkout("HEAD", tmp_path)
    committed = subprocess.run(
        ["git", "ls-tree", "--name-only", f"HEAD:{tool._KERNELS}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(committed)
    for name in committed:
        shown = subprocess.run(
            ["git", "show", f"HEAD:{tool._KERNELS}/{name}"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        assert (tmp_path / name).read_text(encoding="utf-8") == shown


def test_traceback_rows_only_of_the_named_workloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--only``: the traceback A/B stages, compares and times the named workloads alone, and
    each row holds both sides' phases (the device's calls stood in for by fixed answers)."""
    tool = _tool()
    timed: list[str] = []
    simulated: list[int] = []

    class Reads(SimpleNamespace):
        def __len__(self) -> int:
            return len(self.lengths)

    def simulate(genome, length, pairs, seed):
        simulated.append(length)
        return Reads(lengths=np.full(3, 1000)), Reads(lengths=np.full(3, 3000)), None

    def phases(work, index, repeats):
        timed.append(f"{work.length} {work.name}")
        return {"fill": 2e-3, "walk": 1e-3, "pack": 1e-3}

    answer = (np.zeros((3, 8), dtype=np.int32), SimpleNamespace(codes=b"3=", offsets=[0, 2]))
    monkeypatch.setattr(tool, "load_genome", lambda path: ("genome", None))
    monkeypatch.setattr(tool, "simulate_batches", simulate)
    monkeypatch.setattr(tool, "_use_sources", lambda folder: None)
    monkeypatch.setattr(tool._gpu_backend, "stage", lambda *args, **kw: None)
    monkeypatch.setattr(tool, "_time_kernels", lambda staged, repeats: 1e-3)
    monkeypatch.setattr(tool._gpu_traceback, "align", lambda *args: answer)
    monkeypatch.setattr(tool, "_traceback_kernel_seconds", phases)
    rows = tool._ab_traceback(tmp_path, {"base": tmp_path, "tree": None}, 2, 1, ["512 GL"])
    assert [row["workload"] for row in rows] == ["512 GL"]
    assert simulated == [512]  # the 125 bp reads, none of them named, are not made
    assert timed == ["512 GL"] * 4  # two rounds, two sides
    row = rows[0]
    assert row["equal"] and row["score_tcups"] == pytest.approx(9.0e-3)
    assert row["tree"] == {"fill": 2e-3, "walk": 1e-3, "pack": 1e-3}
    assert row["tree_tcups"] == pytest.approx(9.0e6 / 4e-3 / 1e12)
