"""Thin launcher of the numba kernels: lays out arguments, runs, builds CIGAR strings."""

from __future__ import annotations

import numba
import numpy as np

from .._jit import set_threads
from ..sequences import SequenceBatch
from . import cpu, cpu_lanes
from .plan import lane_groups, traceback_block

__all__ = ["align", "prepare", "score"]

# pairs handed to a thread at a time: dynamic scheduling balances unequal pairs
_CHUNK = 4

_MODES = {"global": cpu.GLOBAL, "semi-global": cpu.SEMI_GLOBAL, "local": cpu.LOCAL}
_OPS = np.array(list("=XID"))


def _params(mode: str, gap_open: int, gap_extend: int) -> np.ndarray:
    return np.array([_MODES[mode], gap_open, gap_extend], dtype=np.int64)


def prepare(threads: int | None) -> int:
    """Set the number of threads; returns how many will run."""
    return set_threads(threads)


def score(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
) -> np.ndarray:
    """``(n, 3)`` int64 array: score, query end, target end.

    Pairs whose values are exact in float32 go through the inter-pair SIMD kernel; the rest
    (very long pairs or huge scores) through the scalar int32 kernel. Both give equal results.
    """
    out = np.empty((len(q_index), 3), dtype=np.int64)
    params = _params(mode, gap_open, gap_extend)
    q_len = queries.lengths[q_index]
    t_len = targets.lengths[t_index]
    worst = max(int(np.abs(matrix).max()), gap_open, gap_extend)
    fast = cpu_lanes.lane_safe(q_len, t_len, worst)
    slow = np.flatnonzero(~fast)
    with numba.parallel_chunksize(1):
        if fast.any():
            order, offsets = lane_groups(q_len, t_len, cpu_lanes.LANES)
            order = order[fast[order]]
            offsets = np.unique(np.minimum(offsets, len(order)))
            fused = cpu_lanes.match_mismatch(matrix)
            lane_params = np.array([*params, fused is not None, *(fused or (0, 0))], dtype=np.int64)
            cpu_lanes.score_groups(
                queries.codes,
                queries.offsets,
                targets.codes,
                targets.offsets,
                q_index,
                t_index,
                order,
                offsets,
                matrix.astype(np.float32),
                lane_params,
                out,
            )
    if slow.size:
        part = np.empty((slow.size, 3), dtype=np.int64)
        with numba.parallel_chunksize(_CHUNK):
            cpu.score_pairs(
                queries.codes,
                queries.offsets,
                targets.codes,
                targets.offsets,
                q_index[slow],
                t_index[slow],
                matrix,
                params,
                part,
            )
        out[slow] = part
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
    """``(n, 8)`` int64 fields (see ``cpu._align_pair``) and the CIGAR strings."""
    q_len = queries.lengths[q_index]
    t_len = targets.lengths[t_index]
    ops_offsets = np.zeros(len(q_index) + 1, dtype=np.int64)
    np.cumsum(q_len + t_len, out=ops_offsets[1:])
    ops = np.empty(int(ops_offsets[-1]), dtype=np.uint8)
    blocks = np.array(
        [traceback_block(int(m), int(n)) for m, n in zip(q_len, t_len, strict=False)],
        dtype=np.int64,
    )
    out = np.empty((len(q_index), 8), dtype=np.int64)
    with numba.parallel_chunksize(_CHUNK):
        cpu.align_pairs(
            queries.codes,
            queries.offsets,
            targets.codes,
            targets.offsets,
            q_index,
            t_index,
            matrix,
            _params(mode, gap_open, gap_extend),
            blocks,
            out,
            ops,
            ops_offsets,
        )
    return out, cigar_strings(ops, ops_offsets, out[:, 5])


def cigar_strings(ops: np.ndarray, ops_offsets: np.ndarray, counts: np.ndarray) -> list[str]:
    """Run-length encoded CIGAR strings (``5=1X2I``) from per-pair op buffers."""
    run_ops, run_lens, run_offsets = cpu.run_lengths(ops, ops_offsets, counts)
    pieces = (
        np.char.add(run_lens.astype(str), _OPS[run_ops]) if len(run_ops) else np.empty(0, dtype=str)
    )
    return ["".join(pieces[run_offsets[p] : run_offsets[p + 1]]) for p in range(len(counts))]
