"""The tests' CUDA emulator (``tests/emulator``) against the CUDA documentation's semantics:
the intrinsics the kernels use, and warp shuffles, votes and reductions over sub-warp widths.

The GPU tests trust the emulator to run the kernels as a GPU would; these tests check its
parts one at a time against numpy, and, marked ``gpu``, the same probe kernel on a real device
against the emulator, so that a device run also vouches for the emulator.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys

import numpy as np
import pytest

EMULATOR = os.path.join(os.path.dirname(__file__), "emulator")

PROBE = r"""
#include <cuda_fp16.h>
extern "C" __global__ void intrinsics(const unsigned* a, const unsigned* b, const unsigned* c,
                                      unsigned* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    unsigned* o = out + 16 * i;
    o[0] = __viaddmax_s16x2(x, y, z);
    o[1] = __viaddmax_s16x2_relu(x, y, z);
    o[2] = __vimax3_s16x2(x, y, z);
    o[3] = __vimax3_s16x2_relu(x, y, z);
    o[4] = __vadd2(x, y);
    o[5] = __vsub2(x, y);
    o[6] = __vmaxs2(x, y);
    o[7] = __vminu2(x, y);
    o[8] = __vcmpgts2(x, y);
    o[9] = __vcmpne2(x, y);
    o[10] = (unsigned)__viaddmax_s32((int)x, (int)y, (int)z);
    o[11] = (unsigned)__viaddmax_s32_relu((int)x, (int)y, (int)z);
    o[12] = (unsigned)__vimax3_s32((int)x, (int)y, (int)z);
    o[13] = __byte_perm(x, y, z);
    o[14] = __vneg2(x);
    o[15] = __vimax3_s16x2(x, 0u, y);
}

extern "C" __global__ void warp(const unsigned* a, unsigned* out, int width) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned x = a[i];
    unsigned* o = out + 8 * i;
    o[0] = __shfl_sync(0xffffffffu, x, 3, width);
    o[1] = __shfl_up_sync(0xffffffffu, x, 1, width);
    o[2] = __shfl_xor_sync(0xffffffffu, x, 1, width);
    o[3] = __shfl_down_sync(0xffffffffu, x, 2, width);
    o[4] = __ballot_sync(0xffffffffu, x & 1u);
    o[5] = __reduce_max_sync(0xffffffffu, x);
    o[6] = __reduce_min_sync(0xffffffffu, x);
    o[7] = __all_sync(0xffffffffu, x != 7u);
}

extern "C" __global__ void block_sum(const unsigned* a, unsigned* out) {
    __shared__ unsigned partial[256];
    partial[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
"""
NAMES = ["intrinsics", "warp", "block_sum"]


@pytest.fixture(scope="module")
def emulated():
    """The emulator's cupy, loaded under a name of its own (a real CuPy may be installed)."""
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler for the emulator")
    package = os.path.join(EMULATOR, "cupy")
    spec = importlib.util.spec_from_file_location(
        "emulated_cupy", os.path.join(package, "__init__.py"), submodule_search_locations=[package]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["emulated_cupy"] = module
    spec.loader.exec_module(module)
    return module


def _halves(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (x & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64), (x >> 16).astype(
        np.uint16
    ).view(np.int16).astype(np.int64)


def _pack(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return ((lo & 0xFFFF) | ((hi & 0xFFFF) << 16)).astype(np.uint32)


def _wrap(x: np.ndarray) -> np.ndarray:
    return (x & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64)


def _expected_intrinsics(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The documented results, from numpy."""
    (al, ah), (bl, bh), (cl, ch) = _halves(a), _halves(b), _halves(c)

    def per_half(f):
        return _pack(f(al, bl, cl), f(ah, bh, ch))

    s32 = [x.astype(np.uint32).view(np.int32).astype(np.int64) for x in (a, b, c)]
    wrap32 = ((s32[0] + s32[1] + 2**31) % 2**32) - 2**31
    both = (b.astype(np.uint64) << 32) | a.astype(np.uint64)
    perm = np.zeros(len(a), dtype=np.uint32)
    for k in range(4):
        pick = (c >> (4 * k)) & 7
        perm |= (((both >> (8 * pick).astype(np.uint64)) & 0xFF).astype(np.uint32)) << (8 * k)
    u = [(x & 0xFFFF, x >> 16) for x in (a, b)]
    columns = [
        per_half(lambda x, y, z: np.maximum(_wrap(x + y), z)),
        per_half(lambda x, y, z: np.maximum(np.maximum(_wrap(x + y), z), 0)),
        per_half(lambda x, y, z: np.maximum(np.maximum(x, y), z)),
        per_half(lambda x, y, z: np.maximum(np.maximum(np.maximum(x, y), z), 0)),
        per_half(lambda x, y, z: x + y),
        per_half(lambda x, y, z: x - y),
        per_half(lambda x, y, z: np.maximum(x, y)),
        (np.minimum(u[0][0], u[1][0]) | (np.minimum(u[0][1], u[1][1]) << 16)).astype(np.uint32),
        per_half(lambda x, y, z: np.where(x > y, 0xFFFF, 0)),
        per_half(lambda x, y, z: np.where(x != y, 0xFFFF, 0)),
        np.maximum(wrap32, s32[2]).astype(np.uint32),
        np.maximum(np.maximum(wrap32, s32[2]), 0).astype(np.uint32),
        np.maximum(np.maximum(s32[0], s32[1]), s32[2]).astype(np.uint32),
        perm,
        per_half(lambda x, y, z: -x),
        per_half(lambda x, y, z: np.maximum(np.maximum(x, 0), y)),
    ]
    return np.stack(columns, axis=1).astype(np.uint32)


def _expected_warp(a: np.ndarray, width: int) -> np.ndarray:
    lanes = np.arange(len(a))
    base = lanes - lanes % width
    up = np.where(lanes % width >= 1, a[np.maximum(lanes - 1, 0)], a)
    xor = a[base + (lanes % width ^ 1)]
    down = np.where(lanes % width + 2 < width, a[np.minimum(lanes + 2, len(a) - 1)], a)
    out = np.zeros((len(a), 8), dtype=np.uint32)
    out[:, 0] = a[base + 3 % width]
    out[:, 1], out[:, 2], out[:, 3] = up, xor, down
    for w in range(0, len(a), 32):
        warp = a[w : w + 32]
        out[w : w + 32, 4] = sum(1 << k for k in range(32) if warp[k] & 1)
        out[w : w + 32, 5] = warp.max()
        out[w : w + 32, 6] = warp.min()
        out[w : w + 32, 7] = int(np.all(warp != 7))
    return out


def _run(cp, a: np.ndarray, b: np.ndarray, c: np.ndarray, width: int):
    module = cp.RawModule(code=PROBE, options=("-std=c++17",), name_expressions=NAMES)
    n = len(a)
    device = [cp.asarray(x) for x in (a, b, c)]
    intrinsics = cp.zeros(16 * n, dtype=np.uint32)
    module.get_function("intrinsics")((n // 64,), (64,), (*device, intrinsics, np.int32(n)))
    warp = cp.zeros(8 * n, dtype=np.uint32)
    module.get_function("warp")((n // 64,), (64,), (device[0], warp, np.int32(width)))
    sums = cp.zeros(n // 256, dtype=np.uint32)
    module.get_function("block_sum")((n // 256,), (256,), (device[0], sums))
    return intrinsics.get().reshape(n, 16), warp.get().reshape(n, 8), sums.get()


def _inputs(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = 1024
    # values near the 16-bit edges as well as anywhere
    edges = np.array([0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF7FFF, 0x80008000, 0xFFFFFFFF], np.uint32)
    a, b, c = (rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    a[: len(edges)], b[len(edges) : 2 * len(edges)] = edges, edges
    b[32:48] = a[32:48]  # equal words, and equal low halves only
    b[48:64] = (a[48:64] & 0xFFFF) | (b[48:64] & 0xFFFF0000)
    return a, b, c


@pytest.mark.parametrize("width", [32, 16, 8, 4])
def test_emulator_follows_the_documented_semantics(emulated, width: int) -> None:
    a, b, c = _inputs(width)
    c_perm = c.copy()
    intrinsics, warp, sums = _run(emulated, a, b, c_perm, width)
    assert np.array_equal(intrinsics, _expected_intrinsics(a, b, c_perm))
    assert np.array_equal(warp, _expected_warp(a, width))
    expected_sums = a.astype(np.uint64).reshape(-1, 256).sum(axis=1) % 2**32
    assert np.array_equal(sums, expected_sums.astype(np.uint32))


def test_a_shuffle_from_an_exited_lane_fails_the_launch(emulated) -> None:
    code = r"""extern "C" __global__ void early(unsigned* out) {
        if (threadIdx.x == 5) return;
        out[threadIdx.x] = __shfl_sync(0xffffffffu, threadIdx.x, 5);
    }"""
    module = emulated.RawModule(code=code, name_expressions=["early"])
    with pytest.raises(RuntimeError, match="outside the meeting"):
        module.get_function("early")((1,), (32,), (emulated.zeros(32, dtype=np.uint32),))


def test_half_warps_meet_apart_under_their_own_masks(emulated) -> None:
    """Two half-warps in diverged branches, each shuffling and voting within its own mask."""
    code = r"""extern "C" __global__ void halves(unsigned* out) {
        const unsigned lane = threadIdx.x;
        if (lane < 16) {
            for (int k = 0; k < 3; ++k) out[lane + 32 * k] = __shfl_sync(0x0000ffffu, lane * 10 + k, 15 - lane);
        } else {
            out[lane] = __ballot_sync(0xffff0000u, lane % 3 == 0);
            out[lane + 32] = __shfl_xor_sync(0xffff0000u, lane, 1);
            out[lane + 64] = __reduce_max_sync(0xffff0000u, lane);
        }
    }"""
    module = emulated.RawModule(code=code, name_expressions=["halves"])
    out = emulated.zeros(96, dtype=np.uint32)
    module.get_function("halves")((1,), (32,), (out,))
    got = out.get().reshape(3, 32)
    low = np.arange(16)
    for k in range(3):
        assert np.array_equal(got[k, :16], (15 - low) * 10 + k)
    high = np.arange(16, 32)
    assert np.all(got[0, 16:] == sum(1 << int(lane) for lane in high if lane % 3 == 0))
    assert np.array_equal(got[1, 16:], high ^ 1) and np.all(got[2, 16:] == 31)


@pytest.mark.gpu
def test_the_device_agrees_with_the_emulator(emulated) -> None:
    """On a machine with a GPU: the probe kernel's every output equal on both."""
    real = pytest.importorskip("cupy")
    if real.__file__.startswith(EMULATOR) or real.cuda.runtime.getDeviceCount() == 0:
        pytest.skip("no CUDA device (or the emulator stands in for CuPy)")
    for width in (32, 8):
        a, b, c = _inputs(width)
        for mine, theirs in zip(
            _run(emulated, a, b, c, width), _run(real, a, b, c, width), strict=True
        ):
            assert np.array_equal(mine, theirs)
