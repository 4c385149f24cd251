"""Inter-pair SIMD scoring on the CPU: ``LANES`` pairs advance through the DP in lockstep.

The recurrence and tie rules are those of :mod:`seqwarp.align.cpu`; only the layout differs.
Pairs of similar lengths are padded into a group; every DP quantity is a row of one value a
lane, which LLVM turns into AVX/AVX-512 vector instructions. Two lane types: ``float32``
(``LANES`` a group) holds every integer below 2**24 exactly, so a group is sent here only when
``(m + n) * max|score|`` stays far below that (:func:`lane_safe`; other pairs take the scalar
int32 kernels); score-only groups whose values stay below 2**13 use ``int16`` lanes
(``LANES16`` a group: twice the lanes a vector, and twice the groups' lanes to keep as many
vectors in flight along a row's carried dependency). The lane type is the type of the
arrays and of the ``lane_zero`` argument; :func:`_lane` keeps arithmetic in it (numba would
widen int16 sums to int64, which stops the loops vectorising).

Layout: the working array ``C`` holds what passes from row to row, one block of ``2 * LANES``
values per target column ``j``: ``H`` (the current row, or the previous one before column ``j``
is updated) and ``E`` (affine gaps only). What passes from column to column within a row (the
left neighbour's ``H`` and ``F``, and the diagonal: the previous row's ``H`` of the column to the
left) lives in the small carry array ``R`` of ``3 * LANES`` values, which stays in L1: per cell
only ``H`` and ``E`` stream through the caches. Indices are unsigned so numba emits no
negative-index wraparound, and every load is unconditional: both are needed for the loop to
vectorize.

Index letters: ``g`` = group, ``lane`` = pair within a group, ``i`` = query row,
``j`` = target column, ``c`` = residue code.
"""

from __future__ import annotations

import numpy as np
from numba import literally, types
from numba.extending import overload

from .._jit import jit, parallel_jit, prange
from .cpu import (
    E_OPENED,
    F_OPENED,
    FROM_DIAG,
    FROM_E,
    FROM_F,
    FROM_ZERO,
    GLOBAL,
    LOCAL,
    SEMI_GLOBAL,
    trace,
)

LANES = 64
BLOCK = 2 * LANES  # H, E of one column
EXACT_LIMIT = 1 << 20  # |values| stay below this: exact in float32 with ample margin
NEG = np.float32(-(1 << 23))
# int16 lanes (score only): (M + N + 1) x the largest score or gap cost of a group stays below
# LIMIT16, so every H, E, F stays above -LIMIT16, a padded cell's diagonal plus PAD16 above
# -2 * LIMIT16 and a local padded cell below zero; NEG16 - a gap cost stays far from -32768
LANES16 = 128
LIMIT16 = 1 << 13
NEG16 = np.int16(-(1 << 14))
PAD16 = np.int16(-LIMIT16)
# float32 holds every integer below this exactly (local rows' best-of-row keys stay below it)
EXACT_KEYS = 1 << 24
# how a row keeps each lane's maximum and its first column (see _track)
NO_TRACK, TRACK_SELECT, TRACK_KEYS = 0, 1, 2
PAD_SCORE = np.float32(-(1 << 22))
PAD_CODE = np.float32(5.0)  # DNA target padding (the alphabet's size) in the match/mismatch path

U = np.uint64
# profile codes from which a row's substitution scores are gathered rather than selected
GATHER_FROM_CODES = 12


def _lane(x, like):
    """``x`` in the lane type of ``like`` (``float32`` or ``int16``)."""
    return type(like)(x)


@overload(_lane)
def _lane_compiled(x, like):
    if isinstance(like, types.Integer):
        return lambda x, like: np.int16(x)
    return lambda x, like: np.float32(x)


def _neg(like):
    """Minus infinity of the lane type of ``like``."""
    return NEG16 if isinstance(like, np.integer) else NEG


@overload(_neg)
def _neg_compiled(like):
    neg = NEG16 if isinstance(like, types.Integer) else NEG
    return lambda like: neg


def _pad(like):
    """The target padding's substitution score in the lane type of ``like``."""
    return PAD16 if isinstance(like, np.integer) else PAD_SCORE


@overload(_pad)
def _pad_compiled(like):
    pad = PAD16 if isinstance(like, types.Integer) else PAD_SCORE
    return lambda like: pad


def _keyed(like):
    """Whether local rows may keep their best as keys (float32 lanes only, see _track)."""
    return not isinstance(like, np.integer)


@overload(_keyed)
def _keyed_compiled(like):
    keyed = not isinstance(like, types.Integer)
    return lambda like: keyed


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


def int16_safe(q_len: np.ndarray, t_len: np.ndarray, worst: int) -> np.ndarray:
    """Lane groups (their longest query and target) whose DP values fit int16 lanes."""
    return (q_len + t_len + 1) * max(worst, 1) < LIMIT16


@jit
def _substitutions(sub, t_pad, prof, n, codes, lanes):
    """``sub[j, lane]`` = score of this row's query residue against ``t[j]`` in lane ``lane``.

    A select per residue code rather than a gather, and codes in the lane type rather than
    bytes: both keep the loop vectorized. Small alphabets only (see :func:`_gathered_substitutions`).
    """
    literally(lanes)
    for j in range(n):
        base = U(j * lanes)
        for c in range(codes):
            code = _lane(c, prof[0])
            row = U(c * lanes)
            for lane_index in range(lanes):
                lane = U(lane_index)
                s = prof[row + lane]
                old = sub[base + lane]
                sub[base + lane] = s if t_pad[base + lane] == code else old


@jit
def _gathered_substitutions(sub, t_slot, prof, n, lanes):
    """:func:`_substitutions` as a gather from the row's profile at each cell's slot (target
    code x ``LANES`` + lane). Measured on AVX-512, one thread: with 25 protein codes the
    gather is faster (2,000 pairs of about 300 x 250, BLOSUM62 11/1: local 0.22 -> 0.19 s,
    global 0.19 -> 0.15-0.17 s), with 6 DNA codes slower (2,000 pairs of 512 bp on 2 threads:
    155 -> 306 ms); GATHER_FROM_CODES splits the two. Unsigned indices, as everywhere here:
    with the signed slot as index the local protein rows above took 127-134 ms rather than
    105-108 (int16 lanes, one thread)."""
    for k in range(n * lanes):
        sub[U(k)] = prof[U(t_slot[U(k)])]


@jit
def _cell(C, b, R, lane, s, gap_open, gap_extend, floor, linear, lanes):
    """One lane's cell of column block ``b`` (the left neighbour in the carries ``R``: ``H``,
    ``F``, then the diagonal), substitution ``s``.

    The recurrence of ``cpu._fill_rows``, written once and inlined into every row loop.
    Returns ``H`` and the cell's direction flags (``cpu.FROM_*``, ``E_OPENED``, ``F_OPENED``)
    with the same tie rules: diagonal, then ``E``, then ``F``, then the local zero.
    ``linear`` is a compile-time constant: with equal gap costs ``H >= E`` and ``H >= F``
    always hold, so a gap always "opens" and the ``E``/``F`` states need no storage.
    """
    up = C[b + lane]
    if linear:
        e_opened = True
        e = _lane(up - gap_open, up)
        f_opened = True
        f = _lane(R[lane] - gap_open, up)
    else:
        x = _lane(up - gap_open, up)
        y = _lane(C[b + U(lanes) + lane] - gap_extend, up)
        e_opened = x >= y
        e = x if e_opened else y
        x2 = _lane(R[lane] - gap_open, up)
        y2 = _lane(R[U(lanes) + lane] - gap_extend, up)
        f_opened = x2 >= y2
        f = x2 if f_opened else y2
    h = _lane(R[U(2 * lanes) + lane] + s, up)
    from_e = e > h
    h = e if from_e else h
    source = np.float32(FROM_E) if from_e else np.float32(FROM_DIAG)
    from_f = f > h
    h = f if from_f else h
    source = np.float32(FROM_F) if from_f else source
    zero = h <= floor
    h = floor if zero else h
    source = np.float32(FROM_ZERO) if zero else source
    flags = source + (np.float32(E_OPENED) if e_opened else np.float32(0.0))
    flags = flags + (np.float32(F_OPENED) if f_opened else np.float32(0.0))
    R[U(2 * lanes) + lane] = up
    R[lane] = h
    C[b + lane] = h
    if not linear:
        C[b + U(lanes) + lane] = e
        R[U(lanes) + lane] = f
    return h, flags


@jit
def _match_score(t, q, match, mismatch):
    """DNA match/mismatch score of target code ``t`` against query code ``q`` (``N`` is -1 in
    the query, so it equals no target code; target padding scores ``PAD_SCORE``)."""
    s = match if t == q else mismatch
    return _pad(s) if t == _lane(PAD_CODE, t) else s


@jit
def _track(row_max, row_arg, lane, h, fj, track, scale):
    """Keep lane ``lane``'s row maximum and the first column ``fj`` holding it (``track``, a
    compile-time constant: ``NO_TRACK``, ``TRACK_SELECT`` or ``TRACK_KEYS``). ``TRACK_KEYS``
    keeps one key ``h * scale - fj`` (``scale``: a power of two past the row's columns, where
    the keys stay exact), whose maximum is the largest ``h`` at its first column (read back
    by :func:`_unpack_keys`): one multiply-add and one max a cell rather than a compare and
    two selects."""
    if track == TRACK_KEYS:
        row_max[lane] = max(row_max[lane], h * scale - fj)
    elif track == TRACK_SELECT:
        better = h > row_max[lane]
        row_max[lane] = h if better else row_max[lane]
        row_arg[lane] = fj if better else row_arg[lane]


@jit
def _unpack_keys(row_max, row_arg, scale):
    """Row maxima kept as keys ``h * scale - j`` (``1 <= j < scale``) back to ``h`` and ``j``."""
    for lane in range(len(row_max)):
        h = np.floor(row_max[lane] / scale) + np.float32(1.0)
        row_arg[lane] = h * scale - row_max[lane]
        row_max[lane] = h


@jit
def _row(C, R, sub, gap_open, gap_extend, floor, n, track, scale, row_max, row_arg, linear, lanes):
    """One DP row over columns ``1..n`` for all ``lanes`` lanes, substitutions from ``sub``,
    keeping each lane's row maximum and its first column as ``track`` says (:func:`_track`)."""
    literally(linear)
    literally(track)
    literally(lanes)
    for lane_index in range(lanes):
        row_max[lane_index] = _neg(row_max[0])
        row_arg[lane_index] = _lane(0, row_arg[0])
    for j0 in range(1, n + 1):
        b = U(j0 * 2 * lanes)
        s_base = U((j0 - 1) * lanes)
        fj = _lane(j0, row_arg[0])
        for lane_index in range(lanes):
            lane = U(lane_index)
            s = sub[s_base + lane]
            h, _ = _cell(C, b, R, lane, s, gap_open, gap_extend, floor, linear, lanes)
            _track(row_max, row_arg, lane, h, fj, track, scale)


@jit
def _row_flags(C, R, sub, gap_open, gap_extend, floor, n, bits, row_base, linear):
    """:func:`_row` that also stores cell ``(i, j)``'s flags at ``bits[row_base + j * LANES + lane]``.

    The score-only and the flag-keeping rows are separate loops: a run-time switch inside
    one loop keeps LLVM from vectorizing it.
    """
    literally(linear)
    for j0 in range(1, n + 1):
        b = U(j0 * BLOCK)
        s_base = U((j0 - 1) * LANES)
        f_base = U(row_base + j0 * LANES)
        for lane_index in range(LANES):
            lane = U(lane_index)
            s = sub[s_base + lane]
            _, flags = _cell(C, b, R, lane, s, gap_open, gap_extend, floor, linear, LANES)
            bits[f_base + lane] = np.uint8(flags)


@jit
def _row_match(
    C,
    R,
    q_row,
    t_pad,
    match,
    mismatch,
    gap_open,
    gap_extend,
    floor,
    n,
    track,
    scale,
    row_max,
    row_arg,
    linear,
    lanes,
):
    """One DP row for match/mismatch DNA scoring, scores formed inline (no substitution pass).

    It also keeps each lane's row maximum and the first column holding it as ``track`` says
    (:func:`_track`; local mode), which saves a separate pass (:func:`_row_best`).
    """
    literally(linear)
    literally(track)
    literally(lanes)
    for lane_index in range(lanes):
        row_max[lane_index] = _neg(row_max[0])
        row_arg[lane_index] = _lane(0, row_arg[0])
    for j0 in range(1, n + 1):
        b = U(j0 * 2 * lanes)
        s_base = U((j0 - 1) * lanes)
        fj = _lane(j0, row_arg[0])
        for lane_index in range(lanes):
            lane = U(lane_index)
            s = _match_score(t_pad[s_base + lane], q_row[lane], match, mismatch)
            h, _ = _cell(C, b, R, lane, s, gap_open, gap_extend, floor, linear, lanes)
            _track(row_max, row_arg, lane, h, fj, track, scale)


@jit
def _row_match_flags(
    C, R, q_row, t_pad, match, mismatch, gap_open, gap_extend, floor, n, bits, row_base, linear
):
    """:func:`_row_match` that stores every cell's flags as :func:`_row_flags` does."""
    literally(linear)
    for j0 in range(1, n + 1):
        b = U(j0 * BLOCK)
        s_base = U((j0 - 1) * LANES)
        f_base = U(row_base + j0 * LANES)
        for lane_index in range(LANES):
            lane = U(lane_index)
            s = _match_score(t_pad[s_base + lane], q_row[lane], match, mismatch)
            _, flags = _cell(C, b, R, lane, s, gap_open, gap_extend, floor, linear, LANES)
            bits[f_base + lane] = np.uint8(flags)


@jit
def _row_best(C, n, row_max, row_arg):
    """Per lane: the largest ``H`` of this row and its first column. Columns past a lane's
    target need no bound: a padding cell is a real cell's value less gap costs (its
    substitutions score PAD_SCORE), so it stays below the best of the rows so far or of this
    row's real cells, and never becomes the lane's best. Float32 lanes (the flag-keeping
    rows)."""
    for lane in range(LANES):
        row_max[lane] = _neg(row_max[0])
        row_arg[lane] = _lane(0, row_arg[0])
    for j0 in range(1, n + 1):
        b = U(j0 * BLOCK)
        column = _lane(j0, row_arg[0])
        for lane_index in range(LANES):
            lane = U(lane_index)
            h = C[b + lane]
            better = h > row_max[lane]
            row_max[lane] = h if better else row_max[lane]
            row_arg[lane] = column if better else row_arg[lane]


@jit
def _group_shape(q_offsets, t_offsets, q_index, t_index, members, lanes):
    """Query and target lengths of a group's ``lanes`` lanes (zero past its last member)."""
    q_len = np.zeros(lanes, np.int64)
    t_len = np.zeros(lanes, np.int64)
    for lane in range(len(members)):
        p = members[lane]
        q_len[lane] = q_offsets[q_index[p] + 1] - q_offsets[q_index[p]]
        t_len[lane] = t_offsets[t_index[p] + 1] - t_offsets[t_index[p]]
    return q_len, t_len


@jit
def _forward(
    q_codes,
    q_offsets,
    t_codes,
    t_offsets,
    q_index,
    t_index,
    members,
    matrix,
    params,
    bits,
    linear,
    lanes,
    lane_zero,
):
    """The DP of one group of up to ``lanes`` pairs (``members`` index the pair list), in
    lanes of the type of ``lane_zero`` (float32, or int16 for scores only).

    Returns ``ends[lane] = (score, query end, target end)``. When ``bits`` is not empty it
    receives every cell's direction flags, row ``i`` at ``(i - 1) * (n + 1) * LANES`` (float32
    lanes, ``LANES`` of them). ``linear`` (equal gap costs) and ``lanes`` are compile-time
    constants.
    """
    literally(linear)
    literally(lanes)
    block = 2 * lanes
    mode = params[0]
    gap_open, gap_extend = _lane(params[1], lane_zero), _lane(params[2], lane_zero)
    neg = _neg(lane_zero)
    size = len(members)
    alphabet = matrix.shape[0]
    q_len, t_len = _group_shape(q_offsets, t_offsets, q_index, t_index, members, lanes)
    store = bits.size > 0
    m = q_len.max()
    n = t_len.max()
    # padded, lane-minor residues. Query padding (code 0) only fills rows past a lane's end,
    # which no result reads; target padding is an extra code scoring PAD_SCORE against
    # everything, so padded cells always score below the lane's own cells.
    q_pad = np.zeros(m * lanes, np.uint8)
    t_pad = np.full(n * lanes, _lane(alphabet, lane_zero))
    for lane in range(size):
        p = members[lane]
        qs = q_offsets[q_index[p]]
        ts = t_offsets[t_index[p]]
        for i in range(q_len[lane]):
            q_pad[i * lanes + lane] = q_codes[qs + i]
        for j in range(t_len[lane]):
            t_pad[j * lanes + lane] = t_codes[ts + j]
    C = np.full((n + 1) * block, lane_zero)
    R = np.full(3 * lanes, lane_zero)
    for j in range(n + 1):
        v = lane_zero
        if mode == GLOBAL and j > 0:
            v = _lane(-(params[1] + (j - 1) * params[2]), lane_zero)
        for lane in range(lanes):
            C[j * block + lane] = v
            C[j * block + lanes + lane] = neg
    prof = np.full((alphabet + 1) * lanes, _pad(lane_zero))
    # large alphabets gather the profile at each cell's slot (code x lanes + lane)
    gather = params[3] != 1 and alphabet + 1 > GATHER_FROM_CODES
    t_slot = np.empty(n * lanes if gather else 0, np.int32)
    for k in range(len(t_slot)):
        t_slot[k] = np.int32(t_pad[k]) * lanes + k % lanes
    sub = np.full(max(n, 1) * lanes, lane_zero)
    floor = lane_zero if mode == LOCAL else neg
    best = np.full(lanes, neg)
    if mode == LOCAL:
        best[:] = lane_zero
    row_max = np.full(lanes, lane_zero)
    row_arg = np.full(lanes, lane_zero)
    # local: a row's best kept as keys h * scale - j (see _track) where they stay exact: h is
    # at most the best substitution score times the shorter side
    scale = np.float32(0.0)
    if mode == LOCAL and _keyed(lane_zero):
        width = 1
        while width <= n:
            width *= 2
        top = max(np.float64(matrix.max()), 0.0) * min(m, n)
        if (top + 1) * width < EXACT_KEYS:
            scale = np.float32(width)
    best_i = np.zeros(lanes, np.int64)
    best_j = np.zeros(lanes, np.int64)
    matched = params[3] == 1
    match = _lane(params[4], lane_zero)
    mismatch = _lane(params[5], lane_zero)
    q_row = np.full(lanes, lane_zero)
    for i in range(1, m + 1):
        if matched:
            for lane in range(lanes):
                code = q_pad[(i - 1) * lanes + lane]
                q_row[lane] = _lane(-1, lane_zero) if code == 4 else _lane(code, lane_zero)
        else:
            for c in range(alphabet):
                for lane in range(lanes):
                    prof[c * lanes + lane] = matrix[q_pad[(i - 1) * lanes + lane], c]
            if gather:
                _gathered_substitutions(sub, t_slot, prof, n, lanes)
            else:
                _substitutions(sub, t_pad, prof, n, alphabet + 1, lanes)
        edge = lane_zero
        if mode == GLOBAL:
            edge = _lane(-(params[1] + (i - 1) * params[2]), lane_zero)
        # column 0: the carries start from it (H, F = minus infinity, the diagonal)
        for lane in range(lanes):
            R[2 * lanes + lane] = C[lane]
            C[lane] = edge
            R[lane] = edge
            R[lanes + lane] = neg
        row_base = (i - 1) * (n + 1) * lanes
        if matched and store:
            _row_match_flags(
                C,
                R,
                q_row,
                t_pad,
                match,
                mismatch,
                gap_open,
                gap_extend,
                floor,
                n,
                bits,
                row_base,
                linear,
            )
        elif matched:
            # the row's tracking is a compile-time constant: one call per kind
            if scale > 0:
                _row_match(
                    C, R, q_row, t_pad, match, mismatch, gap_open, gap_extend, floor, n,
                    TRACK_KEYS, scale, row_max, row_arg, linear, lanes,
                )  # fmt: skip
            elif mode == LOCAL:
                _row_match(
                    C, R, q_row, t_pad, match, mismatch, gap_open, gap_extend, floor, n,
                    TRACK_SELECT, scale, row_max, row_arg, linear, lanes,
                )  # fmt: skip
            else:
                _row_match(
                    C, R, q_row, t_pad, match, mismatch, gap_open, gap_extend, floor, n,
                    NO_TRACK, scale, row_max, row_arg, linear, lanes,
                )  # fmt: skip
        elif store:
            _row_flags(C, R, sub, gap_open, gap_extend, floor, n, bits, row_base, linear)
        elif scale > 0:
            _row(
                C, R, sub, gap_open, gap_extend, floor, n,
                TRACK_KEYS, scale, row_max, row_arg, linear, lanes,
            )  # fmt: skip
        elif mode == LOCAL:
            _row(
                C, R, sub, gap_open, gap_extend, floor, n,
                TRACK_SELECT, scale, row_max, row_arg, linear, lanes,
            )  # fmt: skip
        else:
            _row(
                C, R, sub, gap_open, gap_extend, floor, n,
                NO_TRACK, scale, row_max, row_arg, linear, lanes,
            )  # fmt: skip
        # end-cell bookkeeping, row-major first occurrence of the best (cpu._finish's rule)
        if mode == LOCAL:
            if store:
                _row_best(C, n, row_max, row_arg)
            elif scale > 0:
                _unpack_keys(row_max, row_arg, scale)
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
                    and C[t_len[lane] * block + lane] > best[lane]
                ):
                    best[lane] = C[t_len[lane] * block + lane]
                    best_i[lane] = i
                    best_j[lane] = t_len[lane]
                elif i == q_len[lane]:
                    for j in range(1, t_len[lane] + 1):
                        if C[j * block + lane] > best[lane]:
                            best[lane] = C[j * block + lane]
                            best_i[lane] = i
                            best_j[lane] = j
        else:
            for lane in range(size):
                if i == q_len[lane]:
                    best[lane] = C[t_len[lane] * block + lane]
    ends = np.zeros((lanes, 3), np.int64)
    for lane in range(size):
        if mode == GLOBAL:
            if q_len[lane] > 0:
                ends[lane, 0] = int(best[lane])
            elif t_len[lane] > 0:
                ends[lane, 0] = -(params[1] + (t_len[lane] - 1) * params[2])
            ends[lane, 1] = q_len[lane]
            ends[lane, 2] = t_len[lane]
        elif mode == SEMI_GLOBAL and (q_len[lane] == 0 or t_len[lane] == 0):
            ends[lane, 1] = q_len[lane]
            ends[lane, 2] = t_len[lane]
        else:
            ends[lane, 0] = int(best[lane])
            ends[lane, 1] = best_i[lane]
            ends[lane, 2] = best_j[lane]
    return ends


@jit
def _forward_resolved(
    q_codes,
    q_offsets,
    t_codes,
    t_offsets,
    q_index,
    t_index,
    members,
    matrix,
    params,
    bits,
    lanes,
    lane_zero,
):
    """:func:`_forward` with the gap model turned into a compile-time constant."""
    if params[1] == params[2]:
        return _forward(
            q_codes,
            q_offsets,
            t_codes,
            t_offsets,
            q_index,
            t_index,
            members,
            matrix,
            params,
            bits,
            True,
            lanes,
            lane_zero,
        )
    return _forward(
        q_codes,
        q_offsets,
        t_codes,
        t_offsets,
        q_index,
        t_index,
        members,
        matrix,
        params,
        bits,
        False,
        lanes,
        lane_zero,
    )


@jit
def _score_group(
    q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params, out,
    lanes, lane_zero,
):  # fmt: skip
    """Score one group's ``members`` into ``out`` (``lanes`` lanes of the type of
    ``lane_zero``, both compile-time: the entry points below pass constants, as a literal
    argument from Python would be re-typed at every call)."""
    no_bits = np.empty(0, np.uint8)
    ends = _forward_resolved(
        q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params,
        no_bits, lanes, lane_zero,
    )  # fmt: skip
    for lane in range(len(members)):
        for f in range(3):
            out[members[lane], f] = ends[lane, f]


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
    """Score pairs ``order[group_offsets[g]:group_offsets[g + 1]]`` as groups of ``LANES``
    float32 lanes (``matrix`` in float32), in parallel."""
    for g in prange(len(group_offsets) - 1):
        members = order[group_offsets[g] : group_offsets[g + 1]]
        _score_group(
            q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params,
            out, LANES, np.float32(0.0),
        )  # fmt: skip


@parallel_jit
def score_groups_int16(
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
    """:func:`score_groups` in groups of ``LANES16`` int16 lanes (``matrix`` in int16), for
    groups that :func:`int16_safe` admits."""
    for g in prange(len(group_offsets) - 1):
        members = order[group_offsets[g] : group_offsets[g + 1]]
        _score_group(
            q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params,
            out, LANES16, np.int16(0),
        )  # fmt: skip


@parallel_jit
def align_groups(
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
    unknown,
    out,
    ops,
    ops_offsets,
):
    """Full alignments of lane groups: the forward pass keeps every cell's flags, then each
    lane walks them with ``cpu.trace``. ``unknown``, ``out`` and ``ops`` as in
    ``cpu.align_pairs``."""
    mode = params[0]
    for g in prange(len(group_offsets) - 1):
        members = order[group_offsets[g] : group_offsets[g + 1]]
        q_len, t_len = _group_shape(q_offsets, t_offsets, q_index, t_index, members, LANES)
        n = t_len.max()
        bits = np.empty(max(q_len.max() * (n + 1) * LANES, 1), np.uint8)
        ends = _forward_resolved(
            q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, members, matrix, params,
            bits, LANES, np.float32(0.0),
        )  # fmt: skip
        walk = np.zeros(6, np.int64)
        for lane in range(len(members)):
            p = members[lane]
            q = q_codes[q_offsets[q_index[p]] : q_offsets[q_index[p] + 1]]
            t = t_codes[t_offsets[t_index[p]] : t_offsets[t_index[p] + 1]]
            lane_ops = ops[ops_offsets[p] : ops_offsets[p + 1]]
            walk[:] = 0
            walk[0] = ends[lane, 1]
            walk[1] = ends[lane, 2]
            trace(q, t, mode, unknown, bits, lane, (n + 1) * LANES, LANES, 1, walk, lane_ops)
            count = walk[3]
            lane_ops[:count] = lane_ops[:count][::-1].copy()
            out[p, 0] = ends[lane, 0]
            out[p, 1] = walk[0]
            out[p, 2] = ends[lane, 1]
            out[p, 3] = walk[1]
            out[p, 4] = ends[lane, 2]
            out[p, 5] = count
            out[p, 6] = walk[4]
            out[p, 7] = walk[5]
