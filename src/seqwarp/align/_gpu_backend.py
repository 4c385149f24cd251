"""GPU backend of ``seqwarp.align``: CuPy launches of ``kernels/align_score.cu``.

Same interface as ``_cpu_backend`` (``use``, ``prepare``, ``score``, ``align``) and the same
answers, byte for byte. How a batch of pairs runs:

1. pairs with an empty query or target are answered on the host (closed formulas);
2. each remaining pair gets a lane type: two pairs per register in 16-bit lanes (DPX s16x2 by
   default, half2 on request) when :func:`plan.score_bound` proves every value fits, else
   exact int32 (the overflow guard: a 16-bit result is never an approximation);
3. pairs are binned by target length into tile widths (threads per group x columns per
   thread), sorted so that neighbours pad each other little, and launched in chunks that fit
   device memory (an out-of-memory error splits the chunk and retries);
4. residues are copied to each device once per call; only per-pair offsets and lengths and
   the results move per chunk;
5. with several devices (``Aligner(gpus=N)``) the chunks are dealt out by cells and run
   concurrently, each result written to its own pair's row.

``align`` (CIGAR output) runs the CPU engine: the checkpointed traceback of
``seqwarp.align.cpu`` on the host threads. Scores, ends and CIGARs are therefore identical
to the CPU backend by construction; GPU traceback is not implemented.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import cuda
from ..devices import Backend
from ..errors import InvalidParameter
from ..sequences import SequenceBatch
from . import _cpu_backend
from .plan import score_bound, tile_bins

__all__ = ["LANES", "Staged", "align", "kernel_name", "prepare", "score", "stage", "use"]

LANES = ("auto", "s16x2", "half2", "s32")
_MODES = {"global": 0, "semi-global": 1, "local": 2}
# kernel lane -> (traits struct in lanes.cuh, bytes per profile score); "s16x2-bytes" is the
# s16x2 lane with an 8-bit profile, used when every substitution score fits a signed byte
_LANE_STRUCT = {
    "s32": ("LaneS32", 4),
    "s16x2": ("LaneS16x2", 2),
    "s16x2-bytes": ("LaneS16x2Bytes", 1),
    "half2": ("LaneHalf2", 2),
}
# the largest |value| each lane type holds exactly (lanes.cuh: s16x2 keeps -16384 as minus
# infinity; half represents every integer up to 2048)
_LANE_LIMIT = {"s16x2": 12000, "half2": 2048}
# packed lanes keep local alignments' end rows in 16 bits
_PACKED_MAX_LENGTH = 32767
_BLOCK = 128
# (threads per group, columns per thread) by the widest target each holds in one stripe
# (measured on the H200: 16 x 32 beats 32 x 16 by 8-16 % at 512 bp, more columns per thread
# amortising each row's shuffles and profile loads)
_TILES_DNA = ((8, 16), (16, 16), (16, 32))
_TILES_PROTEIN = ((8, 8), (16, 8), (32, 8))
_MAX_CHUNK_PAIRS = 1 << 22
_SCRATCH_BYTES = 1 << 30

# CUDA devices in use; score() spreads its chunks over all of them
_devices: tuple[int, ...] = (0,)


def use(backend: Backend) -> None:
    """Run on the backend's CUDA devices."""
    global _devices
    _devices = backend.ordinals or (0,)


def prepare(threads: int | None) -> int:
    """Set the host threads (the CIGAR path runs on them); returns a work multiplier for the
    caller's chunking: a GPU wants far more cells per call than one CPU thread."""
    _cpu_backend.prepare(threads)
    return 64


def kernel_name(mode: str, affine: bool, lane: str, columns: int, group: int) -> str:
    """The template instantiation (an NVRTC name expression) for one configuration; ``lane``
    is a key of ``_LANE_STRUCT``."""
    return (
        f"seqwarp::align_score<{_MODES[mode]}, {'true' if affine else 'false'}, "
        f"seqwarp::{_LANE_STRUCT[lane][0]}, {columns}, {group}>"
    )


@dataclass(frozen=True)
class _Launch:
    """One kernel configuration and the pairs (positions in the call) it runs."""

    lane: str  # what the caller asked for: s32, s16x2 or half2
    kernel_lane: str  # a key of _LANE_STRUCT
    group: int
    columns: int
    pairs: np.ndarray


def _empty_pairs(m: np.ndarray, n: np.ndarray, mode: str, gap_open: int, gap_extend: int):
    """(score, q_end, t_end) of pairs with an empty side, as the CPU engine defines them."""
    if mode == "local":
        return np.zeros(len(m), dtype=np.int64), np.zeros_like(m), np.zeros_like(n)
    if mode == "semi-global":
        return np.zeros(len(m), dtype=np.int64), m, n
    k = m + n
    score = np.where(k > 0, -(gap_open + (k - 1) * gap_extend), 0)
    return score.astype(np.int64), m, n


def _plan(
    m: np.ndarray,
    n: np.ndarray,
    matrix: np.ndarray,
    gap_open: int,
    gap_extend: int,
    lanes: str,
    tiles: tuple[tuple[int, int], ...] | None = None,
) -> list[_Launch]:
    """Lane type and tile of every pair with both sides non-empty; ``tiles`` overrides the
    (threads per group, columns per thread) choices, narrowest first."""
    work = np.flatnonzero((m > 0) & (n > 0))
    if lanes == "s32":
        narrow = np.zeros(len(work), dtype=bool)
        packed = "s16x2"
    else:
        packed = "s16x2" if lanes == "auto" else lanes
        bound = score_bound(
            m[work], n[work], int(matrix.max()), int(matrix.min()), gap_open, gap_extend
        )
        narrow = (bound <= _LANE_LIMIT[packed]) & (
            np.maximum(m[work], n[work]) <= _PACKED_MAX_LENGTH
        )
    if tiles is None:
        tiles = _TILES_DNA if matrix.shape[0] <= 8 else _TILES_PROTEIN
    widths = tuple(g * k for g, k in tiles)
    bytes_fit = packed == "s16x2" and int(matrix.min()) >= -128 and int(matrix.max()) <= 127
    launches = []
    for lane, chosen in ((packed, work[narrow]), ("s32", work[~narrow])):
        kernel_lane = "s16x2-bytes" if lane == "s16x2" and bytes_fit else lane
        for (group, columns), part in zip(tiles, tile_bins(n[chosen], widths), strict=True):
            if len(part):
                pairs = chosen[part]
                # neighbours (one group, one warp) of similar lengths pad each other little;
                # a 16-bit key (lengths in steps of 32) sorts by radix, in linear time
                key = (np.minimum(n[pairs] // 32, 255) << 8) | np.minimum(m[pairs] // 32, 255)
                pairs = pairs[np.argsort(key.astype(np.uint16), kind="stable")]
                launches.append(_Launch(lane, kernel_lane, group, columns, pairs))
    return launches


def _module(mode: str, affine: bool, launches: list[_Launch]) -> Any:
    """The compiled module holding exactly the instantiations these launches need."""
    names = sorted({kernel_name(mode, affine, x.kernel_lane, x.columns, x.group) for x in launches})
    return cuda.compile_module("seqwarp.align", "align_score.cu", names)


@dataclass
class Staged:
    """One chunk's kernel launch with its arguments already on the device."""

    lane: str
    kernel: Any
    blocks: int
    shared: int
    args: tuple
    out: Any
    pairs: np.ndarray

    def launch(self) -> None:
        """Queue the kernel on the current stream (asynchronous)."""
        self.kernel((self.blocks,), (_BLOCK,), self.args, shared_mem=self.shared)

    def blocks_per_sm(self) -> int:
        """Resident blocks per multiprocessor, from the kernel's registers and shared memory."""
        import cupy as cp

        attributes = cp.cuda.Device().attributes
        warps = _BLOCK // 32
        registers = warps * 256 * -(-self.kernel.num_regs * 32 // 256)
        by_registers = attributes["MaxRegistersPerMultiprocessor"] // registers
        by_shared = attributes["MaxSharedMemoryPerMultiprocessor"] // (self.shared + 1024)
        by_threads = attributes["MaxThreadsPerMultiProcessor"] // _BLOCK
        return int(min(by_registers, by_shared, by_threads))

    def result(self) -> np.ndarray:
        """The chunk's (pairs, 3) int32 results, copied to the host."""
        return self.out.get().reshape(-1, 3)


def _stage_chunk(cp: Any, kernel: Any, launch: _Launch, pairs: np.ndarray, data: dict) -> Staged:
    """Copy one chunk's per-pair arguments to the device and size its launch."""
    m, n, alpha = data["m"], data["n"], data["alpha"]
    lane_pairs = 1 if launch.lane == "s32" else 2
    groups = -(-len(pairs) // lane_pairs)
    per_block = _BLOCK // launch.group
    blocks = -(-groups // per_block)
    cols = launch.group * launch.columns
    element = _LANE_STRUCT[launch.kernel_lane][1]
    shared = per_block * lane_pairs * (alpha + 1) * cols * element
    striped = int(n[pairs].max()) > cols
    stride = 2 * 2 * (int(m[pairs].max()) + 1) if striped else 0
    out = cp.empty(3 * len(pairs), dtype=np.int32)
    args = (
        data["codes"],
        cp.asarray(data["q_start"][pairs]),
        cp.asarray(m[pairs].astype(np.int32)),
        cp.asarray(data["t_start"][pairs]),
        cp.asarray(n[pairs].astype(np.int32)),
        np.int32(len(pairs)),
        data["matrix"],
        np.int32(alpha),
        np.int32(data["gap_open"]),
        np.int32(data["gap_extend"]),
        # every group of the grid gets scratch: a group past the last pair still runs (idle)
        # beside the real groups of its warp
        cp.empty(max(1, blocks * per_block * stride), dtype=np.uint32),
        np.int64(stride),
        out,
    )
    if shared > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = shared
    # all of L1 as shared memory: the profile is what limits resident groups
    kernel.preferred_shared_memory_carveout = 100
    return Staged(launch.lane, kernel, blocks, shared, args, out, pairs)


def _chunks(launch: _Launch, m: np.ndarray, parts: int = 1) -> list[np.ndarray]:
    """Slices of a launch's pairs that keep the handed-on columns under their memory budget,
    at least ``parts`` of them (one per device) when there are enough pairs."""
    per_pair = 8 * (int(m[launch.pairs].max()) + 1) + 64
    size = max(2, min(_MAX_CHUNK_PAIRS, _SCRATCH_BYTES // per_pair, -(-len(launch.pairs) // parts)))
    return [launch.pairs[i : i + size] for i in range(0, len(launch.pairs), size)]


def _device_data(
    cp: Any,
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    gap_open: int,
    gap_extend: int,
) -> dict:
    """What every chunk of one call shares: residues (copied once), the matrix, lengths."""
    codes = cp.empty(len(queries.codes) + len(targets.codes), dtype=np.uint8)
    codes[: len(queries.codes)].set(queries.codes)
    codes[len(queries.codes) :].set(targets.codes)
    return {
        "codes": codes,
        "q_start": queries.offsets[q_index].astype(np.int64),
        "t_start": targets.offsets[t_index].astype(np.int64) + len(queries.codes),
        "m": queries.lengths[q_index].astype(np.int64),
        "n": targets.lengths[t_index].astype(np.int64),
        "matrix": cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32)),
        "alpha": int(matrix.shape[0]),
        "gap_open": gap_open,
        "gap_extend": gap_extend,
    }


def stage(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    lanes: str = "auto",
    tiles: tuple[tuple[int, int], ...] | None = None,
) -> list[Staged]:
    """Every launch of a score call, staged on the first device and not yet run (for timing
    the kernels alone, and trying other ``tiles``; :func:`score` is the normal path)."""
    import cupy as cp

    m = queries.lengths[q_index].astype(np.int64)
    n = targets.lengths[t_index].astype(np.int64)
    launches = _plan(m, n, matrix, gap_open, gap_extend, lanes, tiles)
    affine = gap_open != gap_extend
    staged = []
    with cp.cuda.Device(_devices[0]):
        module = _module(mode, affine, launches) if launches else None
        data = _device_data(cp, queries, targets, q_index, t_index, matrix, gap_open, gap_extend)
        for launch in launches:
            name = kernel_name(mode, affine, launch.kernel_lane, launch.columns, launch.group)
            kernel = module.function(name)
            staged += [_stage_chunk(cp, kernel, launch, part, data) for part in _chunks(launch, m)]
    return staged


def _deal(jobs: list[tuple[_Launch, np.ndarray]], cells: np.ndarray) -> dict[int, list]:
    """Chunks per device: most work first, each to the device with the least work so far."""
    queues: dict[int, list] = {device: [] for device in _devices}
    load = dict.fromkeys(_devices, 0)
    for k in np.argsort(-cells, kind="stable"):
        device = min(load, key=load.__getitem__)
        queues[device].append(jobs[k])
        load[device] += int(cells[k])
    return queues


def _collect(cp: Any, running: list[tuple[int, Staged]], out: np.ndarray, device: int) -> None:
    """Copy the results of one device's launched chunks into ``out`` and drop their buffers."""
    for entry in [entry for entry in running if entry[0] == device]:
        with cp.cuda.Device(device):
            out[entry[1].pairs] = entry[1].result()
        running.remove(entry)


def score(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    *,
    lanes: str = "auto",
) -> np.ndarray:
    """``(n, 3)`` int64 array: score, query end, target end (``lanes``: see ``LANES``).

    With several devices (``use`` with a multi-GPU backend) the chunks are dealt out by work
    and run concurrently; every result is written to its pair's row, so the answer does not
    depend on the number of devices.
    """
    import cupy as cp

    if lanes not in LANES:
        raise InvalidParameter("lanes", lanes, choices=LANES)
    m = queries.lengths[q_index].astype(np.int64)
    n = targets.lengths[t_index].astype(np.int64)
    out = np.empty((len(q_index), 3), dtype=np.int64)
    empty = (m == 0) | (n == 0)
    if empty.any():
        s, qe, te = _empty_pairs(m[empty], n[empty], mode, gap_open, gap_extend)
        out[empty, 0], out[empty, 1], out[empty, 2] = s, qe, te
    launches = _plan(m, n, matrix, gap_open, gap_extend, lanes)
    if not launches:
        return out
    affine = gap_open != gap_extend
    jobs = [(launch, part) for launch in launches for part in _chunks(launch, m, len(_devices))]
    cells = np.array([int(np.sum(m[part] * n[part])) for _, part in jobs], dtype=np.int64)
    running: list[tuple[int, Staged]] = []
    for device, queue in _deal(jobs, cells).items():
        if not queue:
            continue
        with cp.cuda.Device(device):
            module = _module(mode, affine, [launch for launch, _ in queue])
            data = _device_data(
                cp, queries, targets, q_index, t_index, matrix, gap_open, gap_extend
            )
            queue.reverse()
            while queue:
                launch, pairs = queue.pop()
                name = kernel_name(mode, affine, launch.kernel_lane, launch.columns, launch.group)
                try:
                    staged = _stage_chunk(cp, module.function(name), launch, pairs, data)
                except cp.cuda.memory.OutOfMemoryError:
                    # first make room by finishing this device's chunks, then split this one
                    cp.get_default_memory_pool().free_all_blocks()
                    if any(entry[0] == device for entry in running):
                        _collect(cp, running, out, device)
                        cp.get_default_memory_pool().free_all_blocks()
                        queue.append((launch, pairs))
                    elif len(pairs) > 2:
                        half = len(pairs) // 2
                        queue += [(launch, pairs[half:]), (launch, pairs[:half])]
                    else:
                        raise
                    continue
                staged.launch()
                running.append((device, staged))
    for device in _devices:
        _collect(cp, running, out, device)
    return out


def align(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
) -> tuple[np.ndarray, list[str]]:
    """``(n, 8)`` fields and CIGAR strings, computed by the CPU engine (see the module notes)."""
    return _cpu_backend.align(
        queries, targets, q_index, t_index, matrix, mode, gap_open, gap_extend
    )
