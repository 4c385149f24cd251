"""GPU-side code that runs without a GPU: planning helpers, kernel sources, and a compile of
every kernel file for Hopper with nvcc and with NVRTC, the compiler that builds them at run
time (each skipped, with the reason, where it is missing)."""

from __future__ import annotations

import ctypes
import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
import types
from dataclasses import replace
from importlib import resources
from pathlib import Path

import numpy as np
import parasail
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqwarp.align import _cpu_backend, _gpu_backend, _gpu_traceback
from seqwarp.align._host_scan import one_query_sets, shape_sort
from seqwarp.align.plan import (
    SM_90,
    offset_bound,
    rebased_reach,
    rebased_step,
    resident_blocks,
    score_bound,
    shape_key,
    shared_carveout,
    tile_cost,
    tile_runs,
)
from seqwarp.align.results import Cigars
from seqwarp.alphabets import DNA
from seqwarp.cuda import kernel_source
from seqwarp.errors import InvalidParameter
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch

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
    # tiles of 20 and 24 columns a thread (a stripe not a power of two wide)
    + [
        _gpu_backend.kernel_name(mode, affine, lane, k, g)
        for mode, affine, lane, (g, k) in itertools.product(
            ("global", "semi-global", "local"),
            (False, True),
            ("s16x2-bytes", "s32"),
            ((8, 20), (8, 24), (16, 20), (16, 24)),
        )
    ]
    + [
        _gpu_backend.kernel_name(mode, affine, lane, k, 16)
        for mode, affine, lane, k in itertools.product(
            ("global", "semi-global"),
            (False, True),
            ("s16x2-bytes-offset", "s16x2-bytes-rebased", "s32-offset"),
            (20, 24),
        )
    ]
    + [_gpu_backend.kernel_name("local", True, "s16x2-bytes", 8, 32)]
    + [_gpu_backend.kernel_name("semi-global", True, "s16x2-bytes", 32, 16)]
    + [
        _gpu_backend.kernel_name(mode, affine, lane, 8, 32)
        for mode, affine, lane in itertools.product(
            ("global", "semi-global", "local"), (False, True), ("s16x2-table",)
        )
    ]
    + [_gpu_backend.kernel_name("global", True, "s16x2-table-offset", 16, 16)]
    + [_gpu_backend.kernel_name("local", True, "s16x2-table", 8, 32, split=8, cluster=2)]
    + [
        _gpu_backend.kernel_name(mode, True, lane, 16, 32, split=8)
        for mode, lane in itertools.product(("global", "semi-global", "local"), ("s32", "s16x2"))
    ]
    + [_gpu_backend.kernel_name("local", False, "s16x2-bytes", 8, 32, split=3)]
    + [
        _gpu_backend.kernel_name(mode, affine, "s16x2-bytes", 16, 32, split=8, cluster=c)
        for mode, affine, c in itertools.product(
            ("global", "semi-global", "local"), (False, True), (2, 4)
        )
    ]
    + [_gpu_backend.kernel_name("global", True, "s32", 8, 32, split=3, cluster=2)]
    + [
        _gpu_backend.kernel_name(mode, affine, lane, 16, 8)
        for mode, affine, lane in itertools.product(
            ("global", "semi-global"),
            (False, True),
            ("s32-offset", "s16x2-offset", "s16x2-bytes-offset"),
        )
    ]
    + [_gpu_backend.kernel_name("semi-global", True, "s16x2-bytes-offset", 16, 32, split=8)]
    + [_gpu_backend.kernel_name("global", False, "s32-offset", 16, 32, split=8, cluster=2)]
    + [
        _gpu_backend.kernel_name(mode, affine, lane, 16, 32)
        for mode, affine, lane in itertools.product(
            ("global", "semi-global"), (False, True), ("s16x2-rebased", "s16x2-bytes-rebased")
        )
    ]
    + [_gpu_backend.kernel_name("global", True, "s16x2-table-rebased", 8, 32)]
    # the paired profile (pair sets of one query), plain and in the offset form
    + [
        _gpu_backend.kernel_name(mode, affine, "s16x2-paired", k, g)
        for mode, affine, (g, k) in itertools.product(
            ("global", "semi-global", "local"), (False, True), ((8, 24), (16, 32))
        )
    ]
    + [
        _gpu_backend.kernel_name(mode, affine, "s16x2-paired-offset", 24, 8)
        for mode, affine in itertools.product(("global", "semi-global"), (False, True))
    ]
    + [_gpu_backend.kernel_name("global", True, "s16x2-paired-offset", 16, 32, split=8)]
    # the long reads' one-group tile, whose register bound (align_score.cu's min_blocks) differs
    + [_gpu_backend.kernel_name("global", True, "s16x2-bytes-rebased", 32, 16)]
    + [
        _gpu_backend.kernel_name(mode, True, "s16x2-bytes-rebased", 16, 32, split=8, cluster=c)
        for mode, c in itertools.product(("global", "semi-global"), (1, 8))
    ]
    # wide stripes on split warps (_split_columns)
    + [
        _gpu_backend.kernel_name(mode, affine, lane, 32, 32, split=8, cluster=8)
        for mode, affine, lane in itertools.product(
            ("global", "semi-global"),
            (False, True),
            ("s16x2-bytes-offset", "s16x2-bytes-rebased"),
        )
    ]
    + [_gpu_backend.kernel_name("global", True, "s16x2-bytes-offset", 32, 32, split=8)]
    + [
        _gpu_backend.kernel_name(mode, True, "s16x2-bytes-rebased", 32, 32, split=8, cluster=c)
        for mode, c in itertools.product(("global", "semi-global"), (1, 2))
    ]
    # local scores without their end cells, on every lane and launch shape that local takes
    + [
        _gpu_backend.kernel_name("local", affine, lane, k, g, ends=False)
        for affine in (False, True)
        for lane, k, g in (
            ("s16x2-table", 12, 32),
            ("s16x2-bytes", 24, 8),
            ("s16x2-paired", 24, 8),
            ("s16x2", 16, 32),
            ("s32", 8, 32),
            ("half2", 16, 32),
        )
    ]
    + [
        _gpu_backend.kernel_name("local", True, lane, 16, 32, split=8, cluster=c, ends=False)
        for lane, c in itertools.product(("s32", "s16x2-bytes"), (1, 2))
    ],
    "align_trace.cu": [
        _gpu_traceback.fill_name(mode, affine, lane, 32, 16)
        for mode, affine, lane in itertools.product(
            ("global", "semi-global", "local"), (False, True), ("s32", "s16x2", "s16x2-bytes")
        )
    ]
    + [_gpu_traceback.fill_name("local", True, "s16x2-bytes", 8, 8)]
    # tiles not a power of two wide: a thread's flags of a row in 3 words (affine) or 2
    + [
        _gpu_traceback.fill_name(mode, affine, lane, columns, 8)
        for mode, affine, lane, columns in itertools.product(
            ("global", "local"), (False, True), ("s32", "s16x2-bytes"), (20, 24)
        )
    ]
    + [
        _gpu_traceback.band_fill_name(mode, affine, lane, *tile)
        for mode, affine, lane, tile in itertools.product(
            ("global", "semi-global", "local"),
            (False, True),
            ("s16x2", "s16x2-bytes"),
            ((16, 4), (8, 32), (12, 8), (20, 4)),
        )
    ]
    + [
        _gpu_traceback.walk_name(mode, affine, banded)
        for mode, affine, banded in itertools.product(
            ("global", "semi-global", "local"), (False, True), (False, True)
        )
    ]
    + [_gpu_traceback._PACK, _gpu_traceback._GATHER, _gpu_traceback._SCATTER],
    "microbench.cu": [f"seqwarp::op_rate<{op}>" for op in range(4)],
    "hold.cu": ["seqwarp::hold_stream"],
}


def test_every_kernel_file_has_instances_and_a_readme_row() -> None:
    readme = KERNELS.joinpath("README.md").read_text(encoding="utf-8")
    for name in CU_FILES:
        assert name in INSTANCES
        assert f"`{name}`" in readme


def test_gap_extension_above_the_opening_is_refused() -> None:
    """The kernels' rows take F from u of the column before, the recurrence only while
    gap_open >= gap_extend: the GPU backend refuses the other case before any launch."""
    _gpu_backend.check_gaps(3, 3)
    _gpu_backend.check_gaps(11, 1)
    with pytest.raises(InvalidParameter, match=r"'gap_extend': 3; must not exceed gap_open \(2\)"):
        _gpu_backend.check_gaps(2, 3)


@pytest.mark.parametrize("shape", [(8, 32, 1, 1), (16, 32, 8, 1), (16, 32, 8, 2)])
def test_scores_without_ends_name_other_kernels_in_local_mode_only(shape) -> None:
    """``ends=False`` names the local kernels' ``ENDS = false`` instantiation (its template
    arguments all spelled, ``false`` last) and leaves every other name as it is."""
    columns, group, split, cluster = shape
    for mode, affine in itertools.product(("global", "semi-global", "local"), (False, True)):
        args = (mode, affine, "s16x2-bytes", columns, group, split, cluster)
        with_ends = _gpu_backend.kernel_name(*args)
        alone = _gpu_backend.kernel_name(*args, ends=False)
        if mode != "local":
            assert alone == with_ends
        else:
            assert alone != with_ends and alone.endswith(", false>")
            assert alone.count(",") == with_ends.count(",") + (2 if split == 1 else 1)


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


def _nvrtc() -> ctypes.CDLL | None:
    """NVRTC from the nvidia-cuda-nvrtc wheel (the library CuPy compiles with), or None."""
    spec = importlib.util.find_spec("nvidia")
    for root in spec.submodule_search_locations if spec else ():
        for library in sorted(Path(root).glob("*/lib/libnvrtc.so*")):
            return ctypes.CDLL(str(library))
    return None


@pytest.mark.parametrize("name", CU_FILES)
def test_kernels_compile_with_nvrtc(name: str) -> None:
    """The same instances through NVRTC with the options CuPy adds (device code by default,
    flush to zero): NVRTC rejects some code that nvcc builds, such as a host compiler's
    builtin in a constant expression."""
    nvrtc, nvcc = _nvrtc(), shutil.which("nvcc")
    if nvrtc is None or nvcc is None:
        pytest.skip("NVRTC (nvidia-cuda-nvrtc) or nvcc (for the CUDA headers) is missing")
    # the CUDA headers beside nvcc (its TOP: nvcc may be a wrapper script elsewhere)
    dry = subprocess.run([nvcc, "--dryrun", "-x", "cu", "-E", os.devnull], capture_output=True)
    top = next(line.split("=", 1)[1] for line in dry.stderr.decode().splitlines() if "TOP=" in line)
    include = Path(top.strip()) / "include"
    program = ctypes.c_void_p()
    source = kernel_source("seqwarp.align", name).encode()
    assert (
        nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, name.encode(), 0, None, None) == 0
    )
    for expression in INSTANCES[name]:
        assert nvrtc.nvrtcAddNameExpression(program, expression.encode()) == 0
    options = [
        b"-std=c++17",
        b"--device-as-default-execution-space",
        b"-ftz=true",
        b"--gpu-architecture=sm_90",
        b"-I" + str(include).encode(),
    ]
    result = nvrtc.nvrtcCompileProgram(
        program, len(options), (ctypes.c_char_p * len(options))(*options)
    )
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    assert result == 0, log.value.decode(errors="replace")


@pytest.mark.parametrize("affine", [False, True])
def test_flag_bytes_hold_every_cell_and_the_largest_bounds_them(affine: bool) -> None:
    # every cell's flags under align_dp.cuh's layout (stripe, anti-diagonal step, thread, a
    # thread's flags of a row in whole words, 4 bits a cell with affine gaps and 2 with
    # linear ones) lie inside the pair's flag bytes, no two cells share bits, and
    # _most_flag_bytes bounds every tile's
    rng = np.random.default_rng(7)
    m, n = rng.integers(1, 700, 40), rng.integers(1, 1500, 40)
    tiles = (*_gpu_backend._TILES_DNA, *_gpu_backend._TILES_PROTEIN)
    bound = _gpu_traceback._most_flag_bytes(m, n, tiles, affine)
    per_byte = 2 if affine else 4
    for group, columns in tiles:
        sizes = _gpu_traceback.flag_bytes(m, n, columns, group, affine)
        assert np.all(sizes <= bound) and np.all(sizes % 16 == 0)
        stripe, thread_bytes = columns * group, 4 * -(-columns // (4 * per_byte))
        for mi, ni, size in zip(m[:6], n[:6], sizes[:6], strict=True):
            i, j = np.meshgrid(np.arange(1, mi + 1), np.arange(1, ni + 1), indexing="ij")
            s, within = (j - 1) // stripe, (j - 1) % stripe
            t, c = within // columns, within % columns
            step = s * (mi + group - 1) + i - 1 + t
            byte = step * group * thread_bytes + t * thread_bytes + c // per_byte
            assert byte.max() < size
            assert np.unique(byte * per_byte + c % per_byte).size == mi * ni


def test_flag_bytes_of_the_longest_sides_bound_every_pair() -> None:
    # the share's check takes the longest sides as numpy scalars; a chunk takes its
    # launch's largest pair as the size of each of its pairs
    m, n = np.array([5, 700, 33], dtype=np.int32), np.array([1500, 2, 64], dtype=np.int32)
    tiles = _gpu_backend._TILES_DNA
    largest = _gpu_traceback._most_flag_bytes(m.max(), n.max(), tiles, True)
    assert np.all(_gpu_traceback._most_flag_bytes(m, n, tiles, True) <= largest)
    assert int(_gpu_traceback.flag_bytes(m.max(), n.max(), 24, 8, True)) == int(
        _gpu_traceback.flag_bytes(np.array([700]), np.array([1500]), 24, 8, True)[0]
    )
    # linear gaps' flags take 2 bits a cell: half the bytes where the words are whole
    assert 2 * int(_gpu_traceback.flag_bytes(m.max(), n.max(), 16, 8, False)) == int(
        _gpu_traceback.flag_bytes(m.max(), n.max(), 16, 8, True)
    )


def test_band_flag_bytes_hold_every_cell_of_the_window() -> None:
    # align_band.cuh's layout: row i's window holds blocks b(i) .. b(i) + G - 1 of K columns,
    # block cb's row i at step i + cb - b(1) - 1, thread cb % G; every cell of every row's
    # window lies inside the pair's flag bytes, for any first diagonal lo, and no two share
    # their bits (4 a cell with affine gaps, 2 with linear ones)
    rng = np.random.default_rng(11)
    for _ in range(60):
        m, n = int(rng.integers(1, 400)), int(rng.integers(1, 400))
        k = int(rng.choice([*_gpu_traceback._BAND_COLUMNS[False], 4, 12, 24]))
        group = int(rng.choice(_gpu_traceback._BAND_GROUPS))
        lo = int(rng.integers(-m, n + 1))
        affine = bool(rng.integers(2))
        per_byte = 2 if affine else 4
        size = int(_gpu_traceback.band_flag_bytes(np.array([m]), k, group, affine)[0])
        assert size % 16 == 0
        first = max(0, lo) // k
        thread_bytes = 4 * -(-k // (4 * per_byte))
        cells = []
        for i in range(1, m + 1):
            start = max(0, i + lo - 1) // k
            for cb in range(start, min(start + group, -(-n // k))):
                step = i + cb - first - 1
                c = np.arange(k)
                byte = step * group * thread_bytes + (cb % group) * thread_bytes + c // per_byte
                cells.append(per_byte * byte + c % per_byte)
        if not cells:  # a window right of the target on every row
            continue
        cells = np.concatenate(cells)
        assert cells.min() >= 0 and cells.max() < per_byte * size
        assert np.unique(cells).size == cells.size


def test_band_group_takes_the_narrowest_window_that_holds_the_margin() -> None:
    choose = _gpu_traceback.band_group
    reads, windows = np.full(3, 125), np.array([137, 136, 138])
    for affine in (False, True):
        assert choose("global", affine, reads, windows) == (16, 4)
        assert choose("global", affine, np.array([512]), np.array([563])) == (16, 8)
        assert choose("local", affine, np.array([512]), np.array([563])) == (16, 16)
        # lengths far apart, or a window as wide as most of the target: the whole matrix
        assert choose("global", affine, np.array([100]), np.array([300])) is None
        assert choose("local", affine, np.array([40]), np.array([44])) is None
    # 16 columns would take 8 threads, 128 columns of 136: linear gaps take 20 columns of 4
    # threads (80 columns), affine ones 8 of 8 (64)
    for mode in ("local", "semi-global"):
        assert choose(mode, False, reads, windows) == (20, 4)
        assert choose(mode, True, reads, windows) == (8, 8)


def test_missed_room_is_a_share_of_the_chunk_within_a_quarter_of_the_budget() -> None:
    # a share run's host side only: how many missed pairs a chunk runs itself
    run = object.__new__(_gpu_traceback._ShareRun)
    run.affine = True
    launch = _gpu_backend._Launch("s16x2", "s16x2", 8, 24, np.arange(4096))
    m, n = np.full(4096, 512), np.full(4096, 563)
    whole = int(_gpu_traceback.flag_bytes(m.max(), n.max(), 24, 8, True))
    assert whole > 512 * 563 // 2  # 4 bits a cell at least
    cap = 4096 // _gpu_traceback._MISSED_SHARE + _gpu_traceback._MISSED_LEAST
    run.budget = 1 << 30
    assert run._missed_room(launch, m, n) == (cap, whole)
    # their flags no larger than a quarter of the budget
    run.budget = 4 * 10 * whole + 3
    assert run._missed_room(launch, m, n) == (10, whole)
    run.budget = 4 * whole - 1
    assert run._missed_room(launch, m, n) == (0, whole)
    # never more than the chunk's pairs
    run.budget = 1 << 30
    assert run._missed_room(launch, m[:5], n[:5]) == (5, whole)


def test_few_short_pairs_outside_their_band_run_on_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    # a few pairs' cells: the CPU backend's answer, with no device call (none here: CuPy
    # is not needed); past the threshold they would go to the device
    rng = np.random.default_rng(3)
    reads = ["".join(rng.choice(list("ACGT"), size=int(k))) for k in rng.integers(20, 60, 6)]
    queries = SequenceBatch.from_strings(reads, DNA)
    targets = SequenceBatch.from_strings([r[::-1] + "AC" for r in reads], DNA)
    index = np.array([4, 0, 2], dtype=np.int64)
    s = Scoring.dna(2, -1, 2, 1)
    args = (queries, targets, index, index, s.matrix, "local", s.gap_open, s.gap_extend)
    sent: list[int] = []
    monkeypatch.setattr(_gpu_traceback, "align", lambda *a, **k: sent.append(len(a[2])))
    fields, cigars = _gpu_traceback._outside_band(*args, None)
    expected_fields, expected_cigars = _cpu_backend.align(*args)
    assert not sent
    assert np.array_equal(fields, expected_fields) and list(cigars) == list(expected_cigars)
    monkeypatch.setattr(_gpu_traceback, "_CPU_AGAIN_CELLS_PER_THREAD", 0)
    _gpu_traceback._outside_band(*args, None)
    assert sent == [3]
    # few cells, but a pair longer than the CPU takes: the device too
    monkeypatch.setattr(_gpu_traceback, "_CPU_AGAIN_CELLS_PER_THREAD", 1 << 22)
    longest = int((queries.lengths[index] * targets.lengths[index]).max())
    monkeypatch.setattr(_gpu_traceback, "_CPU_AGAIN_PAIR_CELLS", longest - 1)
    _gpu_traceback._outside_band(*args, None)
    assert sent == [3, 3]


def _chunk_offsets(strings: list[str]) -> np.ndarray:
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in strings], out=offsets[1:])
    return offsets


def _place(texts, positions, strings: list[str]) -> None:
    """What _collect does with a chunk's copied CIGARs."""
    into = texts.place(positions, _chunk_offsets(strings))
    into[:] = np.frombuffer("".join(strings).encode(), dtype=np.uint8)


def test_texts_in_order_make_one_part_over_the_buffer() -> None:
    strings = [f"{k}=" * (k % 3 + 1) for k in range(10)]
    texts = _gpu_traceback._Texts(10, _gpu_traceback._text_bound(np.full(10, 9), np.full(10, 9)))
    for a, b in ((0, 2), (2, 3), (3, 10)):
        _place(texts, slice(a, b), strings[a:b])
    texts.finish()
    (part,) = texts.parts(100)
    assert part[0] == slice(100, 110) and list(part[1]) == strings
    assert np.shares_memory(part[1].codes, texts.codes)  # no join: the buffer itself
    assert Cigars.scatter(10, [(slice(0, 10), part[1])]) == strings


def test_texts_out_of_order_keep_parts_that_scatter_to_their_pairs() -> None:
    strings = [f"{k}X{k}I" for k in range(12)]
    texts = _gpu_traceback._Texts(12, 1000)
    _place(texts, slice(0, 3), strings[0:3])  # in order so far
    _place(texts, np.array([7, 5, 6]), [strings[7], strings[5], strings[6]])
    _place(texts, slice(3, 5), strings[3:5])  # after an unordered chunk: a part of its own
    _place(texts, slice(8, 12), strings[8:12])
    texts.finish()
    parts = texts.parts(0)
    assert len(parts) == 4 and parts[0][0] == slice(0, 3)
    assert Cigars.scatter(12, parts) == strings
    # shifted to a later share of the call
    shifted = Cigars.scatter(20, texts.parts(8))
    assert list(shifted[8:]) == strings and list(shifted[:8]) == [""] * 8


def test_score_bound_covers_cells_and_gaps() -> None:
    bound = score_bound(np.array([512, 4000, 1]), np.array([512, 4000, 2000]), 2, -1, 2, 1)
    assert bound[0] >= 1024 and bound[1] >= 8000
    assert bound[2] >= 2000  # a 1-residue query against 2000: a long gap
    assert bound[0] <= 2048  # 512 bp DNA stays in the half2 lane


def _offset_form(query: str, target: str, match: int, mismatch: int, go: int, ge: int, semi: bool):
    """The offset form ``G = H + (i + j) * ge`` of parasail's global (or semi-global) score
    table, rows and columns 0 included (global: a gap of k residues costs go + (k - 1) ge)."""
    m, n = len(query), len(target)
    matrix = parasail.matrix_create("ACGT", match, mismatch)
    table = parasail.sg_table if semi else parasail.nw_table
    result = table(query, target, go, ge, matrix)  # the table lives as long as the result
    h = np.zeros((m + 1, n + 1), dtype=np.int64)
    h[1:, 1:] = np.array(result.score_table, dtype=np.int64)
    if not semi:
        h[1:, 0] = -(go + np.arange(m) * ge)
        h[0, 1:] = -(go + np.arange(n) * ge)
    return h + (np.arange(m + 1)[:, None] + np.arange(n + 1)[None, :]) * ge


# the scorings, modes and sequence seeds of the offset form's property tests
_OFFSET_CASES = {
    "match": st.integers(1, 9),
    "mismatch": st.integers(-9, -1),
    "gaps": st.tuples(st.integers(1, 12), st.integers(1, 12)),
    "semi": st.booleans(),
    "seed": st.integers(0, 2**32 - 1),
}


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 70), n=st.integers(1, 70), identical=st.booleans(), **_OFFSET_CASES)
def test_offset_bound_covers_every_cell(m, n, match, mismatch, gaps, identical, semi, seed):
    """Every cell of the offset form, G = H + (i + j) * ge (H from parasail's score table),
    lies in [-2 go + 2 ge, offset_bound] for global and semi-global alignments."""
    go, ge = max(gaps), min(gaps)
    rng = np.random.default_rng(seed)
    query = "".join(rng.choice(list("ACGT"), m))
    target = query[:n] + "A" * (n - m) if identical else "".join(rng.choice(list("ACGT"), n))
    g = _offset_form(query, target, match, mismatch, go, ge, semi)[1:, 1:]
    assert g.max() <= offset_bound(m, n, match, ge)
    assert g.min() >= -2 * go + 2 * ge


@settings(max_examples=80, deadline=None)
@given(m=st.integers(1, 60), n=st.integers(1, 60), related=st.booleans(), **_OFFSET_CASES)
def test_adjacent_cells_of_the_offset_form_differ_by_at_most_the_rebased_step(
    m, n, match, mismatch, gaps, related, semi, seed
):
    """What a rebased lane rests on: in the offset form (H from parasail's score table, with
    rows and columns 0) cells a row or a column apart differ by at most ``rebased_step``."""
    go, ge = max(gaps), min(gaps)
    rng = np.random.default_rng(seed)
    query = "".join(rng.choice(list("ACGT"), m))
    target = "".join(rng.choice(list("ACGT"), n))
    if related:  # long diagonal runs of matches, then a gap
        target = (query[: n // 2] + target)[:n]
    g = _offset_form(query, target, match, mismatch, go, ge, semi)
    step = rebased_step(match, go, ge)
    assert np.abs(np.diff(g, axis=0)).max() <= step
    assert np.abs(np.diff(g, axis=1)).max() <= step


def test_rebased_reach_is_independent_of_length_and_fits_the_usual_scorings() -> None:
    """The widest DNA stripe (512 columns) and protein's (256), in groups of up to 32
    threads, hold DNA +2/-1 and BLOSUM62 11/1 well inside the s16x2 lane's limit; a scoring
    of very large scores does not fit."""
    limit = _gpu_backend._LANE_LIMIT["s16x2"]
    assert rebased_reach(2, -1, 2, 1, 512, 32, 64) <= limit // 3
    assert rebased_reach(11, -4, 11, 1, 256, 32, 64) <= limit
    assert rebased_reach(40, -40, 10, 1, 512, 32, 64) > limit


def test_pairs_past_the_16_bit_range_take_the_rebased_lane() -> None:
    """Global and semi-global scores (the offset form): pairs the s16x2 lane cannot hold run
    on its rebased form, whatever their length; local scores, the int32 and half2 lanes, and
    a scoring whose reach does not fit keep int32."""
    dna = Scoring.dna(2, -1, 2, 1).matrix
    m = np.array([512, 4096, 8192, 60_000, 500])

    def lanes_of(matrix, lanes="auto", offset=True):
        plan = _gpu_backend._plan(m, m, matrix, 2, 1, lanes, offset=offset)
        return {int(p): x.kernel_lane for x in plan for p in x.pairs}

    assert lanes_of(dna) == {
        0: "s16x2-bytes-offset",
        1: "s16x2-bytes-offset",
        2: "s16x2-bytes-rebased",
        3: "s16x2-bytes-rebased",
        4: "s16x2-bytes-offset",
    }
    assert set(lanes_of(dna, offset=False).values()) == {"s16x2-bytes", "s32"}
    assert set(lanes_of(dna, "s32").values()) == {"s32-offset"}
    assert set(lanes_of(dna, "half2").values()) == {"half2", "s32-offset"}
    wide = np.where(np.eye(4, dtype=bool), 60, -60).astype(dna.dtype)
    assert set(lanes_of(wide).values()) == {"s32-offset"}
    blosum = Scoring.from_matrix("BLOSUM62", gap_open=11, gap_extend=1).matrix
    plan = _gpu_backend._plan(m, m, blosum, 11, 1, "auto", offset=True)
    assert {x.kernel_lane for x in plan} == {"s16x2-table-offset", "s16x2-table-rebased"}


def test_offset_bound_is_at_most_twice_the_score_bound() -> None:
    """So the s16x2 lane (score_bound <= 12000) holds the offset form of all its pairs."""
    rng = np.random.default_rng(5)
    m, n = rng.integers(1, 40_000, size=(2, 5000))
    for max_score, min_score, go, ge in (
        (2, -1, 2, 1),
        (11, -4, 11, 1),
        (5, -4, 1, 1),
        (1, -9, 30, 7),
    ):
        bound = score_bound(m, n, max_score, min_score, go, ge)
        assert np.all(offset_bound(m, n, max_score, ge) <= 2 * bound)
    assert 2 * _gpu_backend._LANE_LIMIT["s16x2"] < 32767 - 2 * 127


def test_global_and_semi_global_scores_take_the_offset_form() -> None:
    dna = Scoring.dna(2, -1, 2, 1).matrix
    m = np.array([512, 4096, 8192, 500])
    for lanes in ("auto", "s32", "half2"):
        plain = {x.kernel_lane for x in _gpu_backend._plan(m, m, dna, 2, 1, lanes)}
        offset = {x.kernel_lane for x in _gpu_backend._plan(m, m, dna, 2, 1, lanes, offset=True)}
        expected = {"auto": {"s16x2-bytes", "s32"}, "s32": {"s32"}, "half2": {"half2", "s32"}}
        assert plain == expected[lanes]
        # the pairs s16x2 cannot hold: its rebased form (test below), else int32
        wide = {"auto": "s16x2-bytes-rebased", "s32": "s32-offset", "half2": "s32-offset"}
        narrow = {k if k == "half2" else f"{k}-offset" for k in plain} - {"s32-offset"}
        assert offset == narrow | {wide[lanes]}
    # scores of up to 127 fit the byte profile, but not with 2 ge added
    wide = np.where(np.eye(4, dtype=bool), 126, -1).astype(dna.dtype)
    launches = _gpu_backend._plan(np.full(2, 20), np.full(2, 20), wide, 2, 1, "auto", offset=True)
    assert {x.kernel_lane for x in launches} == {"s16x2-offset"}


def test_letter_classes_merge_interchangeable_letters() -> None:
    """BLOSUM62's X, J, O and U score alike (rows and columns): one class; the class scores
    give back every letter's score, and the padding class scores 0."""
    blosum = Scoring.blosum62().matrix
    class_of, scores = _gpu_backend.letter_classes(blosum)
    symbols = Scoring.blosum62().alphabet.symbols
    merged = {class_of[symbols.index(x)] for x in "XJOU"}
    assert len(merged) == 1 and len(scores) == 25
    assert len(set(class_of.tolist())) == 24
    assert np.array_equal(scores[np.ix_(class_of, class_of)], blosum)
    assert not scores[-1].any() and not scores[:, -1].any()
    # a letter whose row differs but not its column stays a class of its own
    skewed = blosum.copy()
    skewed[symbols.index("U"), symbols.index("A")] += 1
    assert len(_gpu_backend.letter_classes(skewed)[1]) == 26


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_letter_classes_of_random_matrices(kinds: int, letters: int, seed: int) -> None:
    """Letters drawn from a few kinds (a letter scores as its kind does): the classes give
    back the matrix, no more classes than kinds, and letters of different classes differ in
    a row or a column."""
    rng = np.random.default_rng(seed)
    base = rng.integers(-5, 12, size=(kinds, kinds))
    kind = rng.integers(0, kinds, size=letters)
    matrix = base[np.ix_(kind, kind)].astype(np.int32)
    class_of, scores = _gpu_backend.letter_classes(matrix)
    assert np.array_equal(scores[np.ix_(class_of, class_of)], matrix)
    assert len(scores) - 1 == len(set(class_of.tolist())) <= kinds
    assert not scores[-1].any() and not scores[:, -1].any()
    for a, b in itertools.combinations(range(letters), 2):
        same = np.array_equal(matrix[a], matrix[b]) and np.array_equal(matrix[:, a], matrix[:, b])
        assert same == (class_of[a] == class_of[b])


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 26), st.integers(-3, 3), st.integers(0, 2**32 - 1))
def test_class_words_hold_both_letters_scores(classes: int, extra: int, seed: int) -> None:
    """Word [q][a * C + b] of the table a block copies: s(q, a) + extra in its low half and
    s(q, b) + extra in its high half as signed 16-bit numbers, both 0 where q, a or b is the
    padding class (the last); zeros after the C^3 words, to a multiple of 4."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(-12, 15, size=(classes, classes)).astype(np.int32)
    words = _gpu_backend.class_words(scores, extra)
    assert words.dtype == np.int32 and len(words) % 4 == 0 and len(words) - classes**3 < 4
    assert not words[classes**3 :].any()
    bits = words.view(np.uint32)[: classes**3].reshape(classes, classes, classes)
    low = (bits & 0xFFFF).astype(np.uint16).view(np.int16)
    high = (bits >> 16).astype(np.uint16).view(np.int16)
    pad = classes - 1
    for q, a, b in itertools.product(range(classes), repeat=3):
        want_a = 0 if pad in (q, a) else scores[q, a] + extra
        want_b = 0 if pad in (q, b) else scores[q, b] + extra
        assert (low[q, a, b], high[q, a, b]) == (want_a, want_b)


@pytest.mark.parametrize("offset", [False, True])
def test_scoring_arguments_hold_the_table_of_the_calls_form(offset: bool) -> None:
    """A call's class table is the plain form's for local scores, the offset form's (every
    real score plus 2 ge) for global and semi-global ones, followed by each letter's class
    (numpy standing in for CuPy)."""
    scoring = Scoring.blosum62(11, 2)
    data = _gpu_backend._data(np, scoring.matrix, 11, 2, offset)
    class_of, scores = _gpu_backend.letter_classes(scoring.matrix)
    words = _gpu_backend.class_words(scores, 4 if offset else 0)
    assert np.array_equal(data["table"], np.concatenate([words, class_of]))
    assert data["classes"] == len(scores) == 25


def test_large_alphabets_take_the_class_table_in_score_kernels() -> None:
    """Protein scores run the s16x2 lane on the class table (the offset form for global and
    semi-global), DNA and the traceback's fills on profiles; int32 pairs keep theirs."""
    blosum = Scoring.blosum62(11, 1).matrix
    dna = Scoring.dna(2, -1, 2, 1).matrix
    m = np.array([300, 250, 9000])
    plain = {x.kernel_lane for x in _gpu_backend._plan(m, m, blosum, 11, 1, "auto")}
    assert plain == {"s16x2-table", "s32"}
    offset = {x.kernel_lane for x in _gpu_backend._plan(m, m, blosum, 11, 1, "auto", offset=True)}
    assert offset == {"s16x2-table-offset", "s16x2-table-rebased"}
    profile = {x.kernel_lane for x in _gpu_backend._plan(m, m, blosum, 11, 1, "auto", table=False)}
    assert profile == {"s16x2-bytes", "s32"}
    assert {x.kernel_lane for x in _gpu_backend._plan(m, m, dna, 2, 1, "auto")} == {
        "s16x2-bytes",
        "s32",
    }
    # an alphabet of more classes than 3 tables a multiprocessor allow keeps the profile
    many = np.random.default_rng(0).integers(-4, 12, size=(27, 27)).astype(np.int32)
    assert len(_gpu_backend.letter_classes(many)[1]) == 28
    lanes = {x.kernel_lane for x in _gpu_backend._plan(m[:2], m[:2], many, 11, 1, "auto")}
    assert lanes == {"s16x2-bytes"}
    # the table's grid: blocks of 384 threads, the C^3 words of the table (to whole 16-byte
    # loads: 15,628), whatever the tile
    launch = _gpu_backend._Launch("s16x2", "s16x2-table", 32, 8, np.arange(40))
    grid = _gpu_backend._Grid.of(launch, 40, 300, 300, 25)
    assert (grid.blocks, grid.threads, grid.shared) == (2, 384, 4 * 15_628)
    # all of L1 as shared memory, where a fitted carve-out measured slower (no device asked)
    kernel = types.SimpleNamespace(shared_size_bytes=0, num_regs=80)
    grid.configure(kernel)
    assert kernel.preferred_shared_memory_carveout == 100
    assert kernel.max_dynamic_shared_size_bytes == 4 * 15_628


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=60))
def test_one_query_sets_pair_runs_of_a_query_and_keep_the_rest_in_order(queries) -> None:
    """Each run of consecutive pairs of one query gives its pairs two by two, in order; the
    last pair of each odd run follows, in order: the paired profile never sees two queries."""
    starts = np.array(queries, dtype=np.int64)[::-1] * 100  # pair p's query: starts[p]
    pairs = np.arange(len(starts), dtype=np.int64)[::-1].copy()  # queries[k]: pair k's here
    order, sets = one_query_sets(pairs, starts)
    assert sorted(order.tolist()) == sorted(pairs.tolist())
    assert sets % 2 == 0
    paired, rest = order[:sets], order[sets:]
    assert np.all(starts[paired[0::2]] == starts[paired[1::2]])
    assert np.all(np.diff(paired) < 0) and np.all(np.diff(rest) < 0)  # the input's order
    runs = [len(list(group)) for _, group in itertools.groupby(queries)]
    assert len(rest) == sum(length % 2 for length in runs)


def test_cross_products_take_the_paired_profile() -> None:
    """DNA pair sets of one query (a cross product's) take the s16x2 lane's paired profile on
    tiles of up to 16 columns a thread, the pairs left over, the pairs of distinct queries
    and wider tiles the byte profile; every pair runs once, and a launch's pairs keep the
    shape order that the long pairs' split relies on."""
    dna = Scoring.dna(2, -1, 2, 1).matrix
    rng = np.random.default_rng(3)
    queries, targets = 9, 61  # reads: 70-128 residues, two target bins
    q_len = rng.integers(70, 129, size=queries)
    t_len = rng.integers(70, 129, size=targets)
    q_index = np.repeat(np.arange(queries), targets)
    t_index = np.tile(np.arange(targets), queries)
    m, n = q_len[q_index], t_len[t_index]
    starts = np.cumsum(q_len)[q_index]
    for offset in (False, True):
        plan = _gpu_backend._plan(m, n, dna, 2, 1, "auto", offset=offset, query_starts=starts)
        tail = "-offset" if offset else ""
        assert {x.kernel_lane for x in plan} == {f"s16x2-paired{tail}", f"s16x2-bytes{tail}"}
        every = np.concatenate([x.pairs for x in plan])
        assert sorted(every.tolist()) == list(range(len(m)))
        for launch in plan:
            bins = np.minimum((n[launch.pairs] - 1) >> 5, 255)
            assert np.all(np.diff(bins) >= 0)
            if "paired" in launch.kernel_lane:
                sets = starts[launch.pairs]
                assert len(sets) % 2 == 0 and np.array_equal(sets[0::2], sets[1::2])
        paired = sum(len(x.pairs) for x in plan if "paired" in x.kernel_lane)
        assert paired > 0.8 * len(m)
        assert all(x.columns <= 16 for x in plan if "paired" in x.kernel_lane)
    # a query past the 16-bit range keeps its pairs on the rebased and int32 lanes
    long_q = q_len.copy()
    long_q[0] = 20_000
    starts = np.cumsum(long_q)[q_index]
    for offset, lane in ((False, "s32"), (True, "s16x2-bytes-rebased")):
        plan = _gpu_backend._plan(
            long_q[q_index], n, dna, 2, 1, "auto", offset=offset, query_starts=starts
        )
        wide = np.concatenate([x.pairs for x in plan if x.kernel_lane == lane])
        assert sorted(wide.tolist()) == np.flatnonzero(q_index == 0).tolist()
    # reads of 512 bp run on one stripe of 16 x 32: the byte profile's
    wide = _gpu_backend._plan(m * 0 + 512, n * 0 + 512, dna, 2, 1, "auto", query_starts=starts)
    assert {(x.kernel_lane, x.columns) for x in wide} == {("s16x2-bytes", 32)}
    # pairs of distinct queries, and protein's class table, keep their lanes
    distinct = np.arange(len(m)) * 1000
    plain = _gpu_backend._plan(m, n, dna, 2, 1, "auto", query_starts=distinct)
    assert {x.kernel_lane for x in plain} == {"s16x2-bytes"}
    blosum = Scoring.blosum62(11, 1).matrix
    table = _gpu_backend._plan(m, n, blosum, 11, 1, "auto", query_starts=starts)
    assert {x.kernel_lane for x in table} == {"s16x2-table"}


def test_paired_launches_split_their_long_pairs_on_the_plain_profile() -> None:
    """Few long pairs of a paired launch go to split warps, longest first, on the byte
    profile (the order would part the paired profile's sets); the short ones stay paired."""
    dna = Scoring.dna(2, -1, 2, 1).matrix
    q_len = np.array([3000, 3001])
    t_len = np.array([100, 101, 102, 103] + [2600 + k for k in range(8)])
    q_index = np.repeat(np.arange(2), len(t_len))
    t_index = np.tile(np.arange(len(t_len)), 2)
    m, n = q_len[q_index], t_len[t_index]
    starts = np.cumsum(q_len)[q_index]
    plan = _gpu_backend._plan(
        m, n, dna, 2, 1, "auto", tiles=((16, 16),), offset=True, query_starts=starts
    )
    assert [x.kernel_lane for x in plan] == ["s16x2-paired-offset"]
    launches = _gpu_backend._split_long(plan, n, (8, 4, 2), (dna, 2, 1))
    split = [x for x in launches if x.split > 1]
    assert {x.kernel_lane for x in split} == {"s16x2-bytes-offset"}
    assert (
        sorted(np.concatenate([x.pairs for x in split]).tolist())
        == np.flatnonzero(n > 1000).tolist()
    )
    (paired,) = [x for x in launches if x.split == 1]
    assert paired.kernel_lane == "s16x2-paired-offset"
    assert np.array_equal(starts[paired.pairs[0::2]], starts[paired.pairs[1::2]])


DNA_TILES = ((8, 16), (16, 16), (16, 32))


def test_tiles_partition_pairs_sorted_by_shape() -> None:
    m = np.array([40, 7, 100, 3, 900, 512, 60, 500])
    n = np.array([300, 5, 128, 129, 1000, 512, 562, 200])
    order, keys = shape_sort(m, n)
    assert sorted(order.tolist()) == list(range(len(n)))
    assert np.array_equal(keys, shape_key(m, n)[order])
    assert np.all(np.diff(shape_key(m, n)[order].astype(np.int64)) >= 0)
    tiles, bounds = tile_runs(shape_key(m, n)[order], DNA_TILES, 5)
    assert bounds[0] == 0 and bounds[-1] == len(n) and np.all(np.diff(bounds) > 0)
    assert np.all(np.diff(tiles) != 0)  # adjacent runs differ
    runs = zip(tiles, bounds[:-1], bounds[1:], strict=True)
    chosen = {int(p): DNA_TILES[t] for t, a, b in runs for p in order[a:b]}
    assert chosen[1] == chosen[2] == (8, 16)  # one 128-column stripe holds them
    assert chosen[3] == chosen[7] == (16, 16)  # one 256-column stripe
    assert chosen[5] == (16, 32)  # 512 columns: one wide stripe
    assert chosen[6] == (8, 16)  # 562 columns: five 128-wide stripes, not two of 512
    same = np.full(5, 125)
    assert shape_sort(same, same)[0].tolist() == list(range(5))


def test_tiles_not_a_power_of_two_wide_take_short_targets_only() -> None:
    """The score tiles of 20 and 24 columns a thread hold the short reads' windows in few
    stripes (125 bp reads against 138 bp windows: one stripe of 160, not 256 mostly idle
    columns) and never targets past three such stripes; the traceback's fills take the same
    tiles."""
    tiles = _gpu_backend._TILES_DNA
    m = np.array([125, 250, 512, 1024, 1400, 3000, 9000])
    n = m + m // 10
    order, keys = shape_sort(m, n)
    chosen, bounds = tile_runs(keys, tiles, 5)
    tile_of = {
        int(p): tiles[c]
        for c, a, b in zip(chosen, bounds[:-1], bounds[1:], strict=True)
        for p in order[a:b]
    }
    assert [tile_of[p] for p in range(len(m))] == [
        (8, 20),
        (16, 20),
        (8, 24),
        (16, 24),
        (16, 16),
        (16, 32),
        (16, 32),
    ]
    longest = 32 * np.arange(1, 257)
    for group, columns in tiles:
        if (group * columns) & (group * columns - 1):
            held = np.isfinite(tile_cost(longest, group, columns, 5))
            assert longest[held].max() <= 3 * group * columns < longest[~held].min()
    assert _gpu_backend._tiles(Scoring.dna(2, -1, 2, 1).matrix) == _gpu_backend._TILES_DNA
    assert _gpu_backend._tiles(Scoring.blosum62(11, 1).matrix) == _gpu_backend._TILES_PROTEIN
    assert _gpu_backend._tiles(Scoring.blosum62(11, 1).matrix, "s16x2-table") == (
        _gpu_backend._TILES_TABLE
    )


def test_protein_scores_take_the_class_tables_tiles_and_the_int32_lane_the_profiles() -> None:
    """The class table builds no profile: its lane takes tiles of 12 and 16 columns a
    thread, while a pair past the 16-bit range (local: scores up to 11 a residue) goes to
    the int32 lane on the protein profile's tiles; global scores alike in the offset form,
    their rebased form on the profile's tiles (its reach holds over their stripes)."""
    s = Scoring.blosum62(11, 1)
    m = np.array([100, 300, 995, 4000, 300])
    n = np.array([250, 700, 2000, 4000, 9000])
    for mode, offset in (("local", False), ("global", True)):
        launches = _gpu_backend._plan(
            m, n, s.matrix, s.gap_open, s.gap_extend, "auto", None, offset
        )
        by_lane = {}
        for launch in launches:
            for p in launch.pairs:
                by_lane[int(p)] = (launch.kernel_lane, (launch.group, launch.columns))
        assert sorted(by_lane) == list(range(len(m))), mode
        for p, (lane, tile) in by_lane.items():
            assert ("table" in lane) == (p != 3 or offset), (mode, p, lane)
            table = "table" in lane and "rebased" not in lane
            expected = _gpu_backend._TILES_TABLE if table else _gpu_backend._TILES_PROTEIN
            assert tile in expected, (mode, p, lane, tile)
        assert by_lane[3][0] == ("s16x2-table-rebased" if offset else "s32"), mode


def test_shape_sort_is_the_stable_sort_of_the_non_empty_pairs() -> None:
    """The counting sort equals a stable argsort of ``shape_key`` over the pairs with both
    sides non-empty (keys capped at 255 steps of 32 residues per side)."""
    rng = np.random.default_rng(8)
    for _ in range(300):
        count = int(rng.integers(0, 400))
        longest = int(rng.choice([3, 40, 3000, 20_000]))
        m = rng.integers(0, longest, size=count)
        n = rng.integers(0, longest, size=count)
        work = np.flatnonzero((m > 0) & (n > 0))
        keys = shape_key(m[work], n[work])
        expected = np.argsort(keys, kind="stable")
        order, sorted_keys = shape_sort(m, n)
        assert np.array_equal(order, work[expected])
        assert np.array_equal(sorted_keys, keys[expected])


@pytest.mark.parametrize(
    ("tiles", "letters"), [(DNA_TILES, 5), (((8, 8), (16, 8), (32, 8)), 21), (((16, 32),), 5)]
)
def test_each_target_bin_takes_its_cheapest_tile(tiles, letters) -> None:
    lengths = np.arange(1, 9000, 7)
    keys = shape_key(lengths, lengths)
    chosen, bounds = tile_runs(keys, tiles, letters)
    per_pair = np.repeat(chosen, np.diff(bounds))
    longest = 32 * ((keys.astype(np.int64) >> 8) + 1)
    costs = np.stack([tile_cost(longest, g, k, letters) for g, k in tiles])
    best = costs.min(axis=0)
    assert np.array_equal(costs[per_pair, np.arange(len(keys))], best)
    widths = np.array([g * k for g, k in tiles])
    for p in range(len(keys)):  # ties go to the widest tile
        tied = np.flatnonzero(costs[:, p] == best[p])
        assert widths[per_pair[p]] == widths[tied].max()
    assert tile_runs(keys[:0], tiles, letters)[1].tolist() == [0]


def test_pairs_with_an_empty_side_follow_the_cpu_rules() -> None:
    m = np.array([0, 3, 0], dtype=np.int64)
    n = np.array([5, 0, 0], dtype=np.int64)
    score, qe, te = _gpu_backend._empty_pairs(m, n, "global", 2, 1)
    assert score.tolist() == [-6, -4, 0] and qe.tolist() == [0, 3, 0] and te.tolist() == [5, 0, 0]
    score, qe, te = _gpu_backend._empty_pairs(m, n, "local", 2, 1)
    assert score.tolist() == [0, 0, 0] and qe.tolist() == [0, 0, 0] and te.tolist() == [0, 0, 0]


def _dna_batch(lengths: list[int], seed: int) -> SequenceBatch:
    rng = np.random.default_rng(seed)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    codes = rng.integers(0, 4, size=int(offsets[-1]), dtype=np.uint8)
    return SequenceBatch(codes, offsets, tuple(map(str, range(len(lengths)))), DNA)


def test_consecutive_indices_become_slices() -> None:
    assert _gpu_backend._first(np.arange(3, 9)) == 3
    assert _gpu_backend._first(np.array([3, 5, 4, 6])) is None
    assert _gpu_backend._first(np.array([2, 2, 4])) is None
    batch = _dna_batch([5, 0, 7, 3], seed=1)
    for index in (np.arange(1, 4), np.array([3, 0, 2])):
        first = _gpu_backend._first(index)
        assert _gpu_backend._lengths(batch, index, first).tolist() == batch.lengths[index].tolist()
        assert np.array_equal(_gpu_backend._take(batch.offsets, index, first), batch.offsets[index])


def test_spans_place_every_pair_on_the_device() -> None:
    """The device buffer (the spans one after the other) holds each pair's residues where
    the per-pair starts say, for consecutive and scattered indices, shared or not."""
    queries = _dna_batch([4, 9, 0, 6, 3], seed=2)
    targets = _dna_batch([7, 2, 5, 8, 1], seed=3)
    for q_batch, t_batch in ((queries, targets), (queries, queries)):
        for q_index, t_index in ((np.arange(1, 5), np.arange(0, 4)), ([4, 0, 3], [1, 3, 3])):
            q_index, t_index = np.asarray(q_index), np.asarray(t_index)
            firsts = (_gpu_backend._first(q_index), _gpu_backend._first(t_index))
            m = _gpu_backend._lengths(q_batch, q_index, firsts[0])
            n = _gpu_backend._lengths(t_batch, t_index, firsts[1])
            spans = _gpu_backend._spans(q_batch, t_batch, q_index, t_index, firsts, m, n)
            device = np.concatenate(spans.sources)
            for p, (qi, ti) in enumerate(zip(q_index, t_index, strict=True)):
                q = int(spans.q_offsets[p]) - spans.q_shift
                t = int(spans.t_offsets[p]) - spans.t_shift
                assert np.array_equal(
                    device[q : q + m[p]], q_batch.codes[q_batch.offsets[qi] :][: m[p]]
                )
                assert np.array_equal(
                    device[t : t + n[p]], t_batch.codes[t_batch.offsets[ti] :][: n[p]]
                )


def test_launches_are_slices_of_one_order() -> None:
    rng = np.random.default_rng(4)
    matrix = np.where(np.eye(4, dtype=bool), 2, -1)
    for m, n in ((np.full(50, 125), np.full(50, 125)), tuple(rng.integers(0, 700, (2, 300)))):
        launches = _gpu_backend._plan(m, n, matrix, 2, 1, "auto")
        order = _gpu_backend._order(launches)
        assert sorted(order.tolist()) == np.flatnonzero((m > 0) & (n > 0)).tolist()
        for launch in launches:
            assert np.array_equal(
                launch.pairs, order[launch.start : launch.start + len(launch.pairs)]
            )
        for launch, following in itertools.pairwise(launches):
            if following.lane == launch.lane:  # runs of a lane follow the target-length bins
                assert (launch.group, launch.columns) != (following.group, following.columns)
                bins, next_bins = (n[launch.pairs] - 1) >> 5, (n[following.pairs] - 1) >> 5
                assert int(bins.max()) < int(next_bins.min())


def test_grid_sizes_profiles_and_scratch() -> None:
    """Two pairs per s16x2 group, the profile per group in shared memory, and scratch only
    when a target needs more than one stripe."""
    pairs = np.arange(10)
    packed = _gpu_backend._Launch("s16x2", "s16x2-bytes", 16, 32, pairs)
    grid = _gpu_backend._Grid.of(packed, 10, 300, 512, 5)
    # 5 groups of 2 pairs, 8 groups per block of 128 threads; 8 x 2 x 6 letters x 512 bytes
    assert (grid.blocks, grid.shared, grid.stride, grid.scratch) == (1, 49152, 0, 1)
    wide = _gpu_backend._Launch("s32", "s32", 32, 8, pairs)
    grid = _gpu_backend._Grid.of(wide, 10, 300, 1000, 25)
    # one pair per group, 4 groups per block; 4 x 26 letters x 256 columns x 4 bytes
    assert (grid.blocks, grid.shared, grid.stride) == (3, 106496, 4 * 301)
    assert grid.scratch == 3 * 4 * 4 * 301


def test_host_and_kernels_move_the_base_as_often() -> None:
    """The host's reach of a rebased lane assumes the kernels' REBASE_EVERY."""
    source = kernel_source("seqwarp.align", "align_score.cu")
    assert f"constexpr int REBASE_EVERY = {_gpu_backend._REBASE_EVERY};" in source


def test_rebased_grid_hands_on_int32_columns() -> None:
    """A rebased lane hands each row of a stripe's last column on as four int32 words (two
    pairs' hg and F), twice the words of the other lanes, in its grid and its chunks."""
    pairs = np.arange(10)
    plain = _gpu_backend._Launch("s16x2", "s16x2-bytes-offset", 16, 32, pairs)
    rebased = replace(plain, kernel_lane="s16x2-bytes-rebased")
    assert (plain.handed_words, rebased.handed_words) == (2, 4)
    a = _gpu_backend._Grid.of(plain, 10, 30_000, 40_000, 5)
    b = _gpu_backend._Grid.of(rebased, 10, 30_000, 40_000, 5)
    assert (a.stride, b.stride) == (2 * 2 * 30_001, 2 * 4 * 30_001)
    assert b.scratch == 2 * a.scratch and b.shared == a.shared


def test_split_grid_takes_a_block_of_warps_per_pair_set() -> None:
    """A split launch: one block of ``split`` warps per pair set, a profile per warp, and two
    handed-on columns per warp."""
    wide = _gpu_backend._Launch("s32", "s32", 32, 16, np.arange(10), split=8)
    grid = _gpu_backend._Grid.of(wide, 10, 5000, 9000, 5)
    # 10 pair sets; 8 warps x 6 letters x 512 columns x 4 bytes; 8 x 2 x 2 x 5001 words
    assert (grid.blocks, grid.threads, grid.shared) == (10, 256, 98304)
    assert (grid.stride, grid.scratch) == (8 * 4 * 5001, 10 * 8 * 4 * 5001)
    packed = _gpu_backend._Launch("s16x2", "s16x2-bytes", 32, 16, np.arange(10), split=4)
    grid = _gpu_backend._Grid.of(packed, 9, 300, 4000, 5)
    assert (grid.blocks, grid.threads, grid.shared) == (5, 128, 4 * 2 * 6 * 512)
    assert _gpu_backend.kernel_name("global", True, "s32", 16, 32, split=8).endswith(", 16, 32, 8>")
    assert _gpu_backend.kernel_name("global", True, "s32", 16, 32).endswith(", 16, 32>")
    # a cluster of 4 such blocks per pair set: 4 x the blocks and the handed-on columns
    clustered = replace(wide, cluster=4)
    grid = _gpu_backend._Grid.of(clustered, 10, 5000, 9000, 5)
    assert (grid.blocks, grid.threads, grid.shared) == (40, 256, 98304)
    assert (grid.stride, grid.scratch) == (32 * 4 * 5001, 10 * 32 * 4 * 5001)
    name = _gpu_backend.kernel_name("local", False, "s32", 16, 32, split=8, cluster=4)
    assert name.startswith("seqwarp::align_score_cluster<2, false,") and name.endswith(
        ", 16, 8, 4>"
    )


def test_clusters_from_compute_capability_9(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cluster sizes by compute capability: none before 9.0, the portable 8, 4 and 2 from it;
    a grid of clusters takes a block per cluster member, and of L1 as shared memory what the
    blocks a multiprocessor holds take."""
    found = {}
    for capability in ("80", "90", "100", "120"):
        device = types.SimpleNamespace(compute_capability=capability)
        cuda = types.SimpleNamespace(Device=lambda ordinal, device=device: device)
        monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
        known = _gpu_backend._capability.__wrapped__(0)
        monkeypatch.setattr(_gpu_backend, "_capability", lambda ordinal, known=known: known)
        found[capability] = _gpu_backend._cluster_sizes(0)
        monkeypatch.undo()
    assert found == {"80": (), "90": (8, 4, 2), "100": (8, 4, 2), "120": (8, 4, 2)}
    # the sizes are read at each call (tools/long_read_variants.py sets others)
    monkeypatch.setattr(_gpu_backend, "_capability", lambda ordinal: 90)
    monkeypatch.setattr(_gpu_backend, "_CLUSTERS", (4, 2))
    assert _gpu_backend._cluster_sizes(0) == (4, 2)

    # a cluster's block of 8 warps of 128 registers, each warp's profile 2 x 6 x 1,024 bytes:
    # 2 blocks a multiprocessor, 2 x (98,304 + 1,024) bytes = 85.1 % of its shared memory
    kernel = types.SimpleNamespace(shared_size_bytes=0, num_regs=128)
    launch = _gpu_backend._Launch("s16x2", "s16x2-bytes-rebased", 32, 32, np.arange(4), split=8)
    grid = _gpu_backend._Grid.of(replace(launch, cluster=8), 2, 9000, 60000, 5)
    assert (grid.blocks, grid.shared) == (8, 98304)
    monkeypatch.setattr(_gpu_backend, "_current_device", lambda: 0)
    monkeypatch.setattr(_gpu_backend, "_multiprocessor", lambda ordinal: SM_90)
    grid.configure(kernel)
    assert kernel.max_dynamic_shared_size_bytes == 98304
    assert kernel.preferred_shared_memory_carveout == 86


def test_few_long_targets_move_to_split_launches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Targets longer than _SPLIT - 1 stripes go to a split launch (32-thread groups, the
    stripe width kept) when they are few; short ones stay, and so do many long ones."""
    monkeypatch.setattr(_gpu_backend, "_SPLIT", 4)
    matrix = Scoring.dna(2, -1, 2, 1).matrix
    n = np.array([500, 1000, 1536, 1537, 2000, 9000, 40000], dtype=np.int64)
    m = n.copy()
    plan = _gpu_backend._plan(m, n, matrix, 2, 1, "s32")
    split = _gpu_backend._split_long(plan, n)
    moved = {int(p): (x.group, x.columns, x.split) for x in split for p in x.pairs}
    assert all(moved[p][2] == 1 for p in (0, 1, 2))  # at most 3 stripes of 512
    assert moved[3] == (32, 8, 4)  # its bin takes 16 x 16 tiles: 7 stripes of 256
    assert all(moved[p] == (32, 16, 4) for p in (4, 5, 6))
    starts = [x.start for x in split]
    assert starts == sorted(starts) and sum(len(x.pairs) for x in split) == len(n)
    for x in split:  # each launch's pairs are its slice of the call's order
        assert np.array_equal(
            x.pairs, np.concatenate([y.pairs for y in split])[x.start : x.start + len(x.pairs)]
        )
    monkeypatch.setattr(_gpu_backend, "_SPLIT_BELOW_GROUPS", 1)
    assert {x.split for x in _gpu_backend._split_long(plan, n)} == {1}


def test_split_launches_take_the_warps_whose_shared_memory_fits() -> None:
    """8 warps of int32 profiles of a protein alphabet, with local mode's snapshots, would
    pass a block's shared memory: such pair sets take 7 warps; DNA's and the class table's 8,
    and a profile no 2 warps hold keeps its pairs one group each."""
    protein = Scoring.blosum62(11, 1)
    dna = Scoring.dna(2, -1, 2, 1)
    n = np.array([4000] * 12, dtype=np.int64)
    m = np.array([300] * 12, dtype=np.int64)
    for scoring, lanes, warps in ((protein, "s32", 7), (protein, "auto", 8), (dna, "s32", 8)):
        matrix = scoring.matrix
        plan = _gpu_backend._plan(m, n, matrix, 11, 1, lanes)
        launches = _gpu_backend._split_long(plan, n, (8, 4, 2), scoring=(matrix, 11, 1))
        assert {x.split for x in launches} == {warps}, (matrix.shape, lanes)
        for x in launches:
            assert _gpu_backend._split_warps(x, x.columns, len(matrix)) == warps
    huge = np.zeros((1000, 1000), dtype=np.int32)  # 1,001 letters: 1 MiB of profile a warp
    plan = _gpu_backend._plan(m, n, huge, 11, 1, "s32")
    launches = _gpu_backend._split_long(plan, n, (8, 4, 2), scoring=(huge, 11, 1))
    assert {x.split for x in launches} == {1}


def test_split_warps_take_wide_stripes_where_measured_and_held() -> None:
    """Split warps take the tile's 32 columns a thread (stripes of 1,024) on the offset form's
    byte-profile lane, and on the rebased one where its reach over such a stripe holds; the
    other lanes keep the tile's stripe width (16 columns a thread). Cluster sizes count
    stripes at the width the warps take."""
    dna = Scoring.dna(2, -1, 2, 1)
    scoring = (dna.matrix, 2, 1)
    # +5/-4 10/1: a step of 16, reach 9,778 over 512 columns, 17,970 over 1,024
    wide_steps = (Scoring.dna(5, -4, 10, 1).matrix, 10, 1)
    assert _gpu_backend._rebased_holds(*wide_steps, 512)
    assert not _gpu_backend._rebased_holds(*wide_steps, 1024)
    pairs = np.arange(4)

    def columns(kernel_lane: str, given=scoring) -> int:
        lane = "s32" if kernel_lane.startswith("s32") else "s16x2"
        launch = _gpu_backend._Launch(lane, kernel_lane, 16, 32, pairs)
        return _gpu_backend._split_columns(launch, given)

    assert columns("s16x2-bytes-offset") == columns("s16x2-bytes-rebased") == 32
    assert columns("s16x2-bytes-offset", None) == 32
    assert columns("s16x2-bytes-rebased", None) == 16
    assert columns("s16x2-bytes-rebased", wide_steps) == 16
    assert columns("s16x2-offset") == columns("s32-offset") == columns("s32") == 16
    # through _split_long, the 8 warps of a block taking stripes of 1,024: clusters of 8
    # from 64 stripes (64,513 residues on), of 4 from 32 (31,745 on), of 2 from 16 (15,361 on)
    n = np.array([70_000, 40_000, 32_000, 31_000, 15_500, 15_000, 9_000], dtype=np.int64)
    plan = _gpu_backend._plan(n.copy(), n, dna.matrix, 2, 1, "auto", offset=True)
    assert {x.kernel_lane for x in plan} == {"s16x2-bytes-rebased"}
    split = _gpu_backend._split_long(plan, n, (8, 4, 2), scoring=scoring)
    assert [(x.cluster, x.columns, n[x.pairs].tolist()) for x in split] == [
        (8, 32, [70_000]),
        (4, 32, [40_000, 32_000]),
        (2, 32, [31_000, 15_500]),
        (1, 32, [15_000, 9_000]),
    ]
    # where the reach over 1,024 columns does not hold, every size counts stripes of 512:
    # clusters of 8 from 64 (32,257 on), of 4 from 32 (15,873 on), of 2 from 16 (7,681 on)
    steps = _gpu_backend._plan(n.copy(), n, wide_steps[0], 10, 1, "auto", offset=True)
    assert {x.kernel_lane for x in steps} == {"s16x2-bytes-rebased"}
    narrow = _gpu_backend._split_long(steps, n, (8, 4, 2), scoring=wide_steps)
    assert [(x.cluster, x.columns, n[x.pairs].tolist()) for x in narrow] == [
        (8, 16, [70_000, 40_000]),
        (4, 16, [32_000, 31_000]),
        (2, 16, [15_500, 15_000, 9_000]),
    ]


def test_longest_split_targets_first_and_on_clusters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split pairs run longest target first, ahead of the other launches; with clusters,
    those that give each warp of a cluster of 8 (or 4, or 2) blocks at least _CLUSTER_ROUNDS
    stripes span such a cluster, the widest clusters first."""
    monkeypatch.setattr(_gpu_backend, "_SPLIT", 2)
    monkeypatch.setattr(_gpu_backend, "_CLUSTER_ROUNDS", 2)
    matrix = Scoring.dna(2, -1, 2, 1).matrix
    # stripes of 512: 1, 6, 9, 16, 17, 40, 18
    n = np.array([500, 3000, 4097, 8000, 8193, 20000, 9000], dtype=np.int64)
    plan = _gpu_backend._plan(n.copy(), n, matrix, 2, 1, "s32")
    plain = _gpu_backend._split_long(plan, n)
    assert [(x.split, x.cluster, n[x.pairs].tolist()) for x in plain] == [
        (2, 1, [20000, 9000, 8193, 8000, 4097, 3000]),
        (1, 1, [500]),
    ]
    # 8 blocks from 2 x 2 x 8 = 32 stripes on, 4 blocks from 16, 2 blocks from 8
    clustered = _gpu_backend._split_long(plan, n, (8, 4, 2))
    assert [(x.split, x.cluster, n[x.pairs].tolist()) for x in clustered] == [
        (2, 8, [20000]),
        (2, 4, [9000, 8193, 8000]),
        (2, 2, [4097]),
        (2, 1, [3000]),
        (1, 1, [500]),
    ]
    order = np.concatenate([x.pairs for x in clustered])
    for x in clustered:  # each launch's pairs are its slice of the call's order
        assert np.array_equal(x.pairs, order[x.start : x.start + len(x.pairs)])


def test_split_launches_take_streams_of_their_own() -> None:
    """Each split launch's chunks go on a stream of their own, after the call's _STREAMS;
    the other chunks take those in turn, as the chunks come."""
    streams = _gpu_backend._STREAMS
    wide, narrow = ("s16x2-bytes-rebased", 32, 32, 8, 2), ("s16x2-bytes-offset", 32, 32, 8, 1)
    turns = _gpu_backend.StreamTurns({wide, narrow})
    assert turns.streams == streams + 2
    groups = ("s16x2-bytes-offset", 16, 32, 1, 1)
    kinds = [wide, wide, narrow, groups, groups, groups, narrow]
    slots = [turns.slot(kind) for kind in kinds]
    assert slots[0] == slots[1] != slots[2] == slots[6]
    assert {slots[0], slots[2]} == {streams, streams + 1}
    assert slots[3:6] == [0, 1 % streams, 2 % streams]


def test_shared_carveout_keeps_the_blocks_registers_allow_and_leaves_the_rest_l1() -> None:
    """Carve-outs of kernels as the engine launches them on Hopper, worked out by hand."""
    # the 125 bp band fill: 85 registers (11 x 256 a warp), 4 warps: 5 blocks by registers;
    # 5 x (24,624 + 1,024 reserved) = 128,240 bytes = 54.9 % of 233,472
    assert resident_blocks(85, 128, 24624, SM_90) == 5
    assert shared_carveout(85, 128, 24624, SM_90) == 55
    # split warps of 128 registers, 8 a block, 80 KiB of profiles: 2 blocks (registers and
    # shared memory both), 2 x 82,944 bytes = 71.05 %
    assert resident_blocks(128, 256, 81920, SM_90) == 2
    assert shared_carveout(128, 256, 81920, SM_90) == 72
    # 100 KiB a block: shared memory allows 2 of the 4 blocks the registers would
    assert resident_blocks(64, 128, 102400, SM_90) == 2
    assert shared_carveout(64, 128, 102400, SM_90) == 89
    # no shared memory: all L1
    assert shared_carveout(40, 128, 0, SM_90) == 0


@given(
    registers=st.integers(16, 255),
    warps=st.integers(1, 32),
    block_shared=st.integers(0, 227 * 1024),
)
def test_shared_carveout_never_costs_a_resident_block(
    registers: int, warps: int, block_shared: int
) -> None:
    """With the carve-out as the multiprocessor's shared memory, it holds as many blocks as
    with all of it, and at most one percent (the carve-out's unit) more than those take."""
    threads = 32 * warps
    blocks = resident_blocks(registers, threads, block_shared, SM_90)
    percent = shared_carveout(registers, threads, block_shared, SM_90)
    carved = SM_90._replace(shared=percent * SM_90.shared // 100)
    if block_shared and blocks:
        assert resident_blocks(registers, threads, block_shared, carved) == blocks
        taken = blocks * (block_shared + SM_90.reserved)
        assert carved.shared < taken + SM_90.shared // 100
    assert 0 <= percent <= 100
