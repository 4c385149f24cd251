"""GPU-side code that runs without a GPU: planning helpers, kernel sources, and a compile of
every kernel file with nvcc for Hopper (skipped, with the reason, where nvcc is missing)."""

from __future__ import annotations

import itertools
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from seqwarp.align import _gpu_backend
from seqwarp.align.plan import score_bound, tile_bins
from seqwarp.cuda import kernel_source

KERNELS = resources.files("seqwarp.align").joinpath("kernels")
CU_FILES = sorted(p.name for p in KERNELS.iterdir() if p.name.endswith(".cu"))

# instantiations each file must build: every mode x gap model x lane on one tile, plus the
# other tiles on one configuration
INSTANCES = {
    "align_score.cu": [
        _gpu_backend.kernel_name(mode, affine, lane, 16, 32)
        for mode, affine, lane in itertools.product(
            ("global", "semi-global", "local"),
            (False, True),
            ("s32", "s16x2", "s16x2-bytes", "half2"),
        )
    ]
    + [_gpu_backend.kernel_name("local", True, "s16x2", k, g) for g, k in ((8, 8), (16, 16))]
    + [_gpu_backend.kernel_name("local", True, "s16x2-bytes", 8, 32)]
    + [_gpu_backend.kernel_name("semi-global", True, "s16x2-bytes", 32, 16)],
    "microbench.cu": [f"seqwarp::op_rate<{op}>" for op in range(4)],
}


def test_every_kernel_file_has_instances_and_a_readme_row() -> None:
    readme = KERNELS.joinpath("README.md").read_text(encoding="utf-8")
    for name in CU_FILES:
        assert name in INSTANCES
        assert f"`{name}`" in readme


def test_kernel_source_inlines_local_headers_once() -> None:
    source = kernel_source("seqwarp.align", "align_score.cu")
    assert '#include "lanes.cuh"' not in source
    assert source.count("struct LaneS16x2 {") == 1
    assert "#include <cuda_fp16.h>" in source


@pytest.mark.parametrize("name", CU_FILES)
def test_kernels_compile_for_hopper(name: str, tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    unit = tmp_path / "unit.cu"
    pointers = ", ".join(f"(void*)&{expr}" for expr in INSTANCES[name])
    unit.write_text(
        kernel_source("seqwarp.align", name) + f"\nvoid* instances[] = {{{pointers}}};\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [nvcc, "-arch=sm_90", "-std=c++17", "-c", str(unit), "-o", str(tmp_path / "unit.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_score_bound_covers_cells_and_gaps() -> None:
    bound = score_bound(np.array([512, 4000, 1]), np.array([512, 4000, 2000]), 2, -1, 2, 1)
    assert bound[0] >= 1024 and bound[1] >= 8000
    assert bound[2] >= 2000  # a 1-residue query against 2000: a long gap
    assert bound[0] <= 2048  # 512 bp DNA stays in the half2 lane


def test_tile_bins_partition_pairs_by_target_length() -> None:
    n = np.array([300, 5, 128, 129, 1000, 512, 513])
    bins = tile_bins(n, (128, 256, 512))
    assert [sorted(b.tolist()) for b in bins] == [[1, 2], [3], [0, 4, 5, 6]]
    assert sorted(np.concatenate(bins).tolist()) == list(range(len(n)))


def test_chunks_are_dealt_to_devices_by_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_gpu_backend, "_devices", (0, 1))
    pairs = np.arange(10)
    launch = _gpu_backend._Launch("s16x2", "s16x2-bytes", 16, 32, pairs)
    m = np.full(10, 100, dtype=np.int64)
    chunks = _gpu_backend._chunks(launch, m, parts=2)
    assert [len(c) for c in chunks] == [5, 5]
    jobs = [(launch, c) for c in chunks] + [(launch, pairs[:1])]
    queues = _gpu_backend._deal(jobs, np.array([500, 500, 10]))
    assert sorted(len(q) for q in queues.values()) == [1, 2]
    assert sum(len(q) for q in queues.values()) == 3


def test_pairs_with_an_empty_side_follow_the_cpu_rules() -> None:
    m = np.array([0, 3, 0], dtype=np.int64)
    n = np.array([5, 0, 0], dtype=np.int64)
    score, qe, te = _gpu_backend._empty_pairs(m, n, "global", 2, 1)
    assert score.tolist() == [-6, -4, 0] and qe.tolist() == [0, 3, 0] and te.tolist() == [5, 0, 0]
    score, qe, te = _gpu_backend._empty_pairs(m, n, "local", 2, 1)
    assert score.tolist() == [0, 0, 0] and qe.tolist() == [0, 0, 0] and te.tolist() == [0, 0, 0]
