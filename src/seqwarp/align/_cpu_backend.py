"""Thin launcher of the numba kernels: lays out arguments, runs, builds CIGAR strings."""

from __future__ import annotations

import numba
import numpy as np

from .._jit import set_threads
from ..sequences import SequenceBatch
from . import cpu, cpu_lanes
from .plan import CallBudget, lane_groups, traceback_block
from .results import Cigars

__all__ = ["align", "prepare", "score"]

# pairs handed to a thread at a time: dynamic scheduling balances unequal pairs
_CHUNK = 4
# one call: 2^27 cells per thread, any number of pairs
_CALL_CELLS = 1 << 27
_CALL_PAIRS = 1 << 62
# direction flags one lane group may keep for the SIMD traceback (bytes)
_LANE_TRACE_BYTES = 1 << 25
# one lane group costs about as much as this many pairs of its shape on the scalar kernel
# (AVX-512, 2 threads: a group of 8 kbp pairs 1.1 s whether it holds 2 or 64 of them, one
# such pair on the scalar kernel 0.35 s), so too few pairs to give every thread a few lane
# groups' worth finish sooner one a thread on the scalar kernel
_LANE_GROUP_COST = 3

_MODES = {"global": cpu.GLOBAL, "semi-global": cpu.SEMI_GLOBAL, "local": cpu.LOCAL}


def _params(mode: str, gap_open: int, gap_extend: int) -> np.ndarray:
    return np.array([_MODES[mode], gap_open, gap_extend], dtype=np.int64)


def prepare(threads: int | None) -> CallBudget:
    """Set the number of threads; returns how much one call takes (enough work to keep every
    thread busy, small enough for progress reports to move)."""
    return CallBudget(cells=_CALL_CELLS * set_threads(threads), pairs=_CALL_PAIRS)


def _lane_plan(
    eligible: np.ndarray, q_len: np.ndarray, t_len: np.ndarray, lanes: int = cpu_lanes.LANES
) -> tuple[np.ndarray, np.ndarray]:
    """Groups of ``lanes`` over the eligible pairs: (pair order, group offsets)."""
    order = lane_groups(q_len, t_len, lanes)[0]
    order = order[eligible[order]]
    return order, np.append(np.arange(0, len(order), lanes, dtype=np.int64), len(order))


def _int16_plan(
    eligible: np.ndarray, q_len: np.ndarray, t_len: np.ndarray, worst: int
) -> tuple[np.ndarray, np.ndarray]:
    """The score-only groups of ``cpu_lanes.LANES16`` eligible pairs whose values fit int16
    lanes (the bound holds for the group's longest query and target together): (pair order,
    group offsets)."""
    order, offsets = _lane_plan(eligible, q_len, t_len, cpu_lanes.LANES16)
    if len(order) == 0:
        return order, offsets[:1]
    starts = offsets[:-1]
    fits = cpu_lanes.int16_safe(
        np.maximum.reduceat(q_len[order], starts), np.maximum.reduceat(t_len[order], starts), worst
    )
    sizes = np.diff(offsets)[fits]
    kept = np.repeat(fits, np.diff(offsets))
    return order[kept], np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _lane_params(params: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The lane kernels' parameters: mode and gaps, then whether the fused match/mismatch
    row applies, and its two scores."""
    fused = cpu_lanes.match_mismatch(matrix)
    return np.array([*params, fused is not None, *(fused or (0, 0))], dtype=np.int64)


def _worst(matrix: np.ndarray, gap_open: int, gap_extend: int) -> int:
    """The largest score or gap cost: a DP value changes by at most this a cell."""
    return max(int(np.abs(matrix).max()), gap_open, gap_extend)


def _lane_eligible(
    q_len: np.ndarray, t_len: np.ndarray, matrix: np.ndarray, gap_open: int, gap_extend: int
) -> np.ndarray:
    return cpu_lanes.lane_safe(q_len, t_len, _worst(matrix, gap_open, gap_extend))


def _lanes_pay(count: int, threads: int) -> bool:
    """Whether ``count`` pairs of one shape finish sooner in lane groups (a group a thread at
    a time) than one a thread on the scalar kernel."""
    groups = -(-count // cpu_lanes.LANES)
    return _LANE_GROUP_COST * -(-groups // threads) <= -(-count // threads)


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

    Pairs whose values are exact in float32 go through the inter-pair SIMD kernel, unless
    they are too few to fill lane groups for the threads: in int16 lanes where a group's
    values fit them, else in float32 lanes; the rest (very long pairs or huge scores) through
    the scalar int32 kernel. All give equal results.
    """
    out = np.empty((len(q_index), 3), dtype=np.int64)
    params = _params(mode, gap_open, gap_extend)
    q_len = queries.lengths[q_index]
    t_len = targets.lengths[t_index]
    fast = _lane_eligible(q_len, t_len, matrix, gap_open, gap_extend)
    if not _lanes_pay(int(np.count_nonzero(fast)), numba.get_num_threads()):
        fast[:] = False
    slow = np.flatnonzero(~fast)
    args = (queries.codes, queries.offsets, targets.codes, targets.offsets)
    if fast.any():
        short, short_offsets = _int16_plan(fast, q_len, t_len, _worst(matrix, gap_open, gap_extend))
        rest = fast.copy()
        rest[short] = False
        order, offsets = _lane_plan(rest, q_len, t_len)
        lane_params = _lane_params(params, matrix)
        with numba.parallel_chunksize(1):
            for kernel, lane_type, o, g in (
                (cpu_lanes.score_groups_int16, np.int16, short, short_offsets),
                (cpu_lanes.score_groups, np.float32, order, offsets),
            ):
                if len(o):
                    kernel(
                        *args, q_index, t_index, o, g, matrix.astype(lane_type), lane_params, out
                    )
    if slow.size:
        part = np.empty((slow.size, 3), dtype=np.int64)
        with numba.parallel_chunksize(_CHUNK):
            cpu.score_pairs(*args, q_index[slow], t_index[slow], matrix, params, part)
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
) -> tuple[np.ndarray, Cigars]:
    """``(n, 8)`` int64 fields (see ``cpu._align_pair``) and the CIGAR strings.

    Short pairs exact in float32 run as lane groups keeping every cell's direction flags
    (at most ``_LANE_TRACE_BYTES`` a group); the rest run one pair per thread with the
    checkpointed traceback. Both walk the flags with ``cpu.trace``: the same CIGARs.
    """
    q_len = queries.lengths[q_index]
    t_len = targets.lengths[t_index]
    params = _params(mode, gap_open, gap_extend)
    args = (queries.codes, queries.offsets, targets.codes, targets.offsets)
    fast = _lane_eligible(q_len, t_len, matrix, gap_open, gap_extend)
    fast &= q_len * (t_len + 1) * cpu_lanes.LANES <= _LANE_TRACE_BYTES
    order, offsets = _lane_plan(fast, q_len, t_len)
    if len(order):
        # a group mixing a long query with a long target could exceed the budget: run it slow
        group_q = np.maximum.reduceat(q_len[order], offsets[:-1])
        group_t = np.maximum.reduceat(t_len[order], offsets[:-1])
        too_big = np.flatnonzero(group_q * (group_t + 1) * cpu_lanes.LANES > _LANE_TRACE_BYTES)
        for g in too_big:
            fast[order[offsets[g] : offsets[g + 1]]] = False
        if too_big.size:
            order, offsets = _lane_plan(fast, q_len, t_len)
    out = np.empty((len(q_index), 8), dtype=np.int64)
    parts: list[tuple[np.ndarray, Cigars]] = []
    for chosen, in_lanes in ((np.flatnonzero(fast), True), (np.flatnonzero(~fast), False)):
        if not chosen.size:
            continue
        ops_offsets = np.zeros(chosen.size + 1, dtype=np.int64)
        np.cumsum(q_len[chosen] + t_len[chosen], out=ops_offsets[1:])
        ops = np.empty(int(ops_offsets[-1]), dtype=np.uint8)
        part = np.empty((chosen.size, 8), dtype=np.int64)
        if in_lanes:
            rank = np.empty(len(q_index), dtype=np.int64)
            rank[chosen] = np.arange(chosen.size)
            with numba.parallel_chunksize(1):
                cpu_lanes.align_groups(
                    *args,
                    q_index[chosen],
                    t_index[chosen],
                    rank[order],
                    offsets,
                    matrix.astype(np.float32),
                    _lane_params(params, matrix),
                    queries.alphabet.unknown,
                    part,
                    ops,
                    ops_offsets,
                )
        else:
            blocks = np.array(
                [
                    traceback_block(int(m), int(n))
                    for m, n in zip(q_len[chosen], t_len[chosen], strict=True)
                ],
                dtype=np.int64,
            )
            with numba.parallel_chunksize(_CHUNK):
                cpu.align_pairs(
                    *args,
                    q_index[chosen],
                    t_index[chosen],
                    matrix,
                    params,
                    queries.alphabet.unknown,
                    blocks,
                    part,
                    ops,
                    ops_offsets,
                )
        out[chosen] = part
        parts.append((chosen, cigar_strings(ops, ops_offsets, part[:, 5])))
    return out, Cigars.scatter(len(q_index), parts)


def cigar_strings(ops: np.ndarray, ops_offsets: np.ndarray, counts: np.ndarray) -> Cigars:
    """Run-length encoded CIGAR strings (``5=1X2I``) from per-pair op buffers."""
    text, offsets = cpu.cigar_text(ops, ops_offsets, counts)
    return Cigars(text, offsets)  # the codes are this call's own: kept, not copied
