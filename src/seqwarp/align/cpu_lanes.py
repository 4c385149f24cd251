"""Inter-pair SIMD scoring on the CPU: ``LANES`` pairs advance through the DP in lockstep.

The recurrence and tie rules are those of :mod:`seqwarp.align.cpu`; only the layout differs.
Pairs of similar lengths are padded into a group; every DP quantity is a ``float32`` row of
``LANES`` values, which LLVM turns into AVX/AVX-512 vector instructions. ``float32`` holds
every integer below 2**24 exactly, so a group is sent here only when ``(m + n) * max|score|``
stays far below that (:func:`lane_safe`); other pairs take the scalar int32 kernels.

Layout of the working array ``C`` (one block of ``4 * LANES`` floats per target column ``j``):
``H`` (the current row, or the previous one before column ``j`` is updated), ``E``, ``F``, and
the previous row's ``H`` of that column (the next column's diagonal). Indices are unsigned so
numba emits no negative-index wraparound, and every load is unconditional: both are needed for
the loop to vectorize.

Index letters: ``g`` = group, ``lane`` = pair within a group, ``i`` = query row,
``j`` = target column, ``c`` = residue code.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, parallel_jit, prange
from .cpu import GLOBAL, LOCAL, SEMI_GLOBAL

LANES = 64
BLOCK = 4 * LANES
EXACT_LIMIT = 1 << 20  # |values| stay below this: exact in float32 with ample margin
NEG = np.float32(-(1 << 23))
PAD_SCORE = np.float32(-(1 << 22))
PAD_CODE = np.float32(5.0)  # DNA target padding (the alphabet's size) in the match/mismatch path

U = np.uint64


def match_mismatch(matrix: np.ndarray) -> tuple[int, int] | None:
    """``(match, mismatch)`` when a DNA matrix is plain match/mismatch with ``N`` scoring as a
    mismatch against everything (the fused row applies), else ``None``."""
    if matrix.shape != (5, 5):
        return None
    match, mismatch = int(matrix[0, 0]), int(matrix[0, 1])
    expected = np.full((5, 5), mismatch)
    np.fill_diagonal(expected[:4, :4], match)
    return (match, mismatch) if np.array_equal(matrix, expected) else None


def lane_safe(q_len: np.ndarray, t_len: np.ndarray, worst: int) -> np.ndarray:
    """Pairs whose every DP value is exact in float32 lanes."""
    return (q_len + t_len + 1) * max(worst, 1) < EXACT_LIMIT


@jit
def _substitutions(sub, t_pad, prof, n, codes):
    """``sub[j, lane]`` = score of this row's query residue against ``t[j]`` in lane ``lane``.

    A select per residue code rather than a gather, and float codes rather than bytes: both
    keep the loop vectorized.
    """
    for j in range(n):
        base = U(j * LANES)
        for c in range(codes):
            code = np.float32(c)
            row = U(c * LANES)
            for lane_index in range(LANES):
                lane = U(lane_index)
                s = prof[row + lane]
                old = sub[base + lane]
                sub[base + lane] = s if t_pad[base + lane] == code else old


@jit
def _cell(C, b, a, lane, s, gap_open, gap_extend, floor):
    """One lane's cell of column block ``b`` (left neighbour block ``a``), substitution ``s``.

    The recurrence of ``cpu._fill_rows``, written once and inlined into both row loops.
    """
    up = C[b + lane]
    x = up - gap_open
    y = C[b + U(LANES) + lane] - gap_extend
    e = x if x > y else y
    x2 = C[a + lane] - gap_open
    y2 = C[a + U(2 * LANES) + lane] - gap_extend
    f = x2 if x2 > y2 else y2
    h = C[a + U(3 * LANES) + lane] + s
    h = h if h > e else e
    h = h if h > f else f
    h = h if h > floor else floor
    C[b + U(3 * LANES) + lane] = up
    C[b + lane] = h
    C[b + U(LANES) + lane] = e
    C[b + U(2 * LANES) + lane] = f
    return h


@jit
def _row(C, sub, gap_open, gap_extend, floor, n):
    """One DP row over columns ``1..n`` for all lanes, substitutions from ``sub``."""
    for j0 in range(1, n + 1):
        b = U(j0 * BLOCK)
        s_base = U((j0 - 1) * LANES)
        for lane_index in range(LANES):
            lane = U(lane_index)
            _cell(C, b, b - U(BLOCK), lane, sub[s_base + lane], gap_open, gap_extend, floor)


@jit
def _row_match(
    C,
    q_row,
    t_pad,
    match,
    mismatch,
    gap_open,
    gap_extend,
    floor,
    n,
    track,
    t_len_f,
    row_max,
    row_arg,
):
    """One DP row for match/mismatch DNA scoring, scores formed inline (no substitution pass).

    ``q_row`` holds this row's query codes with ``N`` as -1, so it equals no target code;
    target padding (code ``PAD_CODE``) scores ``PAD_SCORE``. With ``track`` (local mode) it
    also keeps each lane's row maximum over its own columns and the first column holding it,
    which saves the separate ``_row_best`` pass.
    """
    for lane_index in range(LANES):
        row_max[lane_index] = NEG
        row_arg[lane_index] = 0.0
    for j0 in range(1, n + 1):
        b = U(j0 * BLOCK)
        s_base = U((j0 - 1) * LANES)
        fj = np.float32(j0)
        for lane_index in range(LANES):
            lane = U(lane_index)
            t = t_pad[s_base + lane]
            s = match if t == q_row[lane] else mismatch
            s = PAD_SCORE if t == PAD_CODE else s
            h = _cell(C, b, b - U(BLOCK), lane, s, gap_open, gap_extend, floor)
            if track:
                better = (h > row_max[lane]) & (fj <= t_len_f[lane])
                row_max[lane] = h if better else row_max[lane]
                row_arg[lane] = fj if better else row_arg[lane]


@jit
def _row_best(C, n, t_len_f, row_max, row_arg):
    """Per lane: the largest ``H`` of this row over the lane's own columns, and its first column."""
    for lane in range(LANES):
        row_max[lane] = NEG
        row_arg[lane] = 0.0
    for j0 in range(1, n + 1):
        b = U(j0 * BLOCK)
        column = np.float32(j0)
        for lane_index in range(LANES):
            lane = U(lane_index)
            h = C[b + lane]
            better = (h > row_max[lane]) & (column <= t_len_f[lane])
            row_max[lane] = h if better else row_max[lane]
            row_arg[lane] = column if better else row_arg[lane]


@jit
def _score_group(
    q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params, out
):
    """Score one group of up to ``LANES`` pairs (``members`` index the pair list)."""
    mode, gap_open, gap_extend = params[0], np.float32(params[1]), np.float32(params[2])
    size = len(members)
    alphabet = matrix.shape[0]
    q_len = np.zeros(LANES, np.int64)
    t_len = np.zeros(LANES, np.int64)
    for lane in range(size):
        p = members[lane]
        q_len[lane] = q_offsets[q_index[p] + 1] - q_offsets[q_index[p]]
        t_len[lane] = t_offsets[t_index[p] + 1] - t_offsets[t_index[p]]
    m = q_len.max()
    n = t_len.max()
    # padded, lane-minor residues. Query padding (code 0) only fills rows past a lane's end,
    # which no result reads; target padding is an extra code scoring PAD_SCORE against
    # everything, so padded cells always score below the lane's own cells.
    q_pad = np.zeros(m * LANES, np.uint8)
    t_pad = np.full(n * LANES, np.float32(alphabet), np.float32)
    for lane in range(size):
        p = members[lane]
        qs = q_offsets[q_index[p]]
        ts = t_offsets[t_index[p]]
        for i in range(q_len[lane]):
            q_pad[i * LANES + lane] = q_codes[qs + i]
        for j in range(t_len[lane]):
            t_pad[j * LANES + lane] = t_codes[ts + j]
    C = np.empty((n + 1) * BLOCK, np.float32)
    for j in range(n + 1):
        v = np.float32(0.0)
        if mode == GLOBAL and j > 0:
            v = -(gap_open + (j - 1) * gap_extend)
        for lane in range(LANES):
            C[j * BLOCK + lane] = v
            C[j * BLOCK + LANES + lane] = NEG
    prof = np.full((alphabet + 1) * LANES, PAD_SCORE, np.float32)
    sub = np.empty(max(n, 1) * LANES, np.float32)
    floor = np.float32(0.0) if mode == LOCAL else NEG
    best = np.full(LANES, NEG, np.float32)
    if mode == LOCAL:
        best[:] = 0.0
    row_max = np.empty(LANES, np.float32)
    row_arg = np.empty(LANES, np.float32)
    t_len_f = t_len.astype(np.float32)
    best_i = np.zeros(LANES, np.int64)
    best_j = np.zeros(LANES, np.int64)
    matched = params[3] == 1
    match = np.float32(params[4])
    mismatch = np.float32(params[5])
    q_row = np.empty(LANES, np.float32)
    for i in range(1, m + 1):
        if matched:
            for lane in range(LANES):
                code = q_pad[(i - 1) * LANES + lane]
                q_row[lane] = np.float32(-1.0) if code == 4 else np.float32(code)
        else:
            for c in range(alphabet):
                for lane in range(LANES):
                    prof[c * LANES + lane] = matrix[q_pad[(i - 1) * LANES + lane], c]
            _substitutions(sub, t_pad, prof, n, alphabet + 1)
        edge = np.float32(0.0)
        if mode == GLOBAL:
            edge = -(gap_open + (i - 1) * gap_extend)
        for lane in range(LANES):
            C[3 * LANES + lane] = C[lane]
            C[lane] = edge
            C[2 * LANES + lane] = NEG
        if matched:
            _row_match(
                C,
                q_row,
                t_pad,
                match,
                mismatch,
                gap_open,
                gap_extend,
                floor,
                n,
                mode == LOCAL,
                t_len_f,
                row_max,
                row_arg,
            )
        else:
            _row(C, sub, gap_open, gap_extend, floor, n)
        # end-cell bookkeeping, row-major first occurrence of the best (cpu._finish's rule)
        if mode == LOCAL:
            if not matched:
                _row_best(C, n, t_len_f, row_max, row_arg)
            for lane in range(size):
                if i <= q_len[lane] and row_max[lane] > best[lane]:
                    best[lane] = row_max[lane]
                    best_i[lane] = i
                    best_j[lane] = int(row_arg[lane])
        elif mode == SEMI_GLOBAL:
            for lane in range(size):
                if (
                    i < q_len[lane]
                    and t_len[lane] > 0
                    and C[t_len[lane] * BLOCK + lane] > best[lane]
                ):
                    best[lane] = C[t_len[lane] * BLOCK + lane]
                    best_i[lane] = i
                    best_j[lane] = t_len[lane]
                elif i == q_len[lane]:
                    for j in range(1, t_len[lane] + 1):
                        if C[j * BLOCK + lane] > best[lane]:
                            best[lane] = C[j * BLOCK + lane]
                            best_i[lane] = i
                            best_j[lane] = j
        else:
            for lane in range(size):
                if i == q_len[lane]:
                    best[lane] = C[t_len[lane] * BLOCK + lane]
    for lane in range(size):
        p = members[lane]
        if mode == GLOBAL:
            if q_len[lane] > 0:
                out[p, 0] = int(best[lane])
            elif t_len[lane] > 0:
                out[p, 0] = -(params[1] + (t_len[lane] - 1) * params[2])
            else:
                out[p, 0] = 0
            out[p, 1] = q_len[lane]
            out[p, 2] = t_len[lane]
        elif mode == SEMI_GLOBAL and (q_len[lane] == 0 or t_len[lane] == 0):
            out[p, 0] = 0
            out[p, 1] = q_len[lane]
            out[p, 2] = t_len[lane]
        else:
            out[p, 0] = int(best[lane])
            out[p, 1] = best_i[lane]
            out[p, 2] = best_j[lane]


@parallel_jit
def score_groups(
    q_codes,
    q_offsets,
    t_codes,
    t_offsets,
    q_index,
    t_index,
    order,
    group_offsets,
    matrix,
    params,
    out,
):
    """Score pairs ``order[group_offsets[g]:group_offsets[g + 1]]`` as lane groups, in parallel."""
    for g in prange(len(group_offsets) - 1):
        members = order[group_offsets[g] : group_offsets[g + 1]]
        _score_group(
            q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params, out
        )
