"""numba filter kernels: HMMER 3.4's MSV (byte), Viterbi filter (word) and bias filter.

MSV/SSV read the CSR buffer directly and score every model in one pass: SSV first, along
diagonals, with HMMER's full MSV only where SSV has no result (or its signed bytes could be
inexact). The Viterbi filter reads the striped blocks of ``plan.pack``: one CPU thread per
block, walking its S lanes one after the other (a GPU warp advances them in lockstep; the
results are the same, every sequence is computed independently). The bias filter is a
two-state forward pass per sequence over the CSR buffer. Each kernel reproduces HMMER's integer
arithmetic (saturating unsigned bytes, saturating signed words) and its final float32 steps,
so the scores equal ``p7_MSVFilter`` / ``p7_ViterbiFilter`` bit for bit, +inf overflows
included. The inner SSV/MSV loops stay in ``int8``/``uint8`` so that LLVM turns them into
AVX-512/AVX2 saturating byte instructions (``vpaddsb``/``vpmaxsb``,
``vpaddusb``/``vpsubusb``/``vpmaxub``).
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit, parallel_jit, prange
from .profile import BASE_B, BASE_W, END, PAD, SCALE_B, SCALE_W

__all__ = ["bias_scores", "length_scores", "msv_scores", "viterbi_blocks"]

WORD_MIN = -32768
WORD_MAX = 32767
ROWS = 8  # rows per pass of the SSV kernel over its diagonals (its loop spells out eight)
BIAS_LANES = 4  # sequences the bias filter advances together


@jit
def _adds(a: int, b: int) -> int:
    """Signed 16-bit saturating add (``_mm_adds_epi16``)."""
    s = a + b
    if s > WORD_MAX:
        return WORD_MAX
    if s < WORD_MIN:
        return WORD_MIN
    return s


@jit
def _third_bits_to_nats(xj: int, tjb: int) -> np.float32:
    """The filters' last float steps: third-bits to nats, minus the 3-nat N/C/J loop term."""
    sc = np.float32(np.float32(xj - tjb) - np.float32(BASE_B))
    sc = np.float32(sc / SCALE_B)
    return np.float32(np.float64(sc) - 3.0)


@jit
def _ssv_score(height: int, jb: int, tjb: int, tec: int, bias: int) -> np.float32:
    """``p7_SSVFilter`` from the best cell's height above the begin score (``_height``,
    exact below 128): NaN (no result) when the height is not exact or the best cell minus
    tec rises above base (the J state might matter); +inf on byte overflow, where HMMER's
    SSV returns +inf or no result (MSV then returns +inf either way); otherwise the
    single-hit score, whose maximum also counts the empty begin state."""
    xb0 = max(BASE_B - jb, 0)
    top = height + xb0
    if height >= 128:
        return np.float32(np.nan)
    if top + bias >= 255:
        return np.float32(np.inf)
    if top - tec > BASE_B:
        return np.float32(np.nan)
    return _third_bits_to_nats(max(xb0, top) - tec, tjb)


@jit
def _sadd(v: np.int8, s: np.int8) -> np.int8:
    """Signed 8-bit saturating add (``_mm_adds_epi8``)."""
    return np.int8(min(max(np.int16(v) + np.int16(s), np.int16(-128)), np.int16(127)))


@jit
def _code(codes, start, length, i) -> int:
    """Residue code of row i, or ``PAD`` (a dead row of the SSV gains) past the end."""
    return codes[start + i] if i < length else PAD


@jit
def _ssv_tops(codes, start, length, gain, col, steps, diag, top) -> None:
    """Best SSV cells of one sequence against a group of models, as heights above the begin
    score, into ``top`` (one per position of a pass; a model's best is the maximum over its
    span of positions, see ``stage.MSVTables``).

    SSV has no J state, so its begin score xB is the same on every row, and a cell only
    feeds the next cell of its diagonal: ``u' = max(u + bias - cost, 0)``. Heights are kept
    as signed bytes ``u - 128`` and ``gain`` holds ``bias - cost`` (clipped to -128), so a
    cell is one saturating add, as in HMMER's SSV; this is exact while every height of a
    model stays below 128, and a larger height sends the pair to ``_msv_full``. ``diag``
    holds each diagonal's last cell, indexed by ``length - 1 - i`` plus the column; one
    pass over it advances every diagonal crossing ROWS rows (dead columns of ``gain`` stand
    for nodes outside each model, a dead row for rows past the end), and ``top`` keeps the
    maximum seen at each position.

    Indices: i residue (row), j position in a pass (column ``col + j + r`` of ``gain`` in
    row ``i + r``).
    """
    diag[: length + steps] = -128
    top[:steps] = -128
    for i in range(0, length, ROWS):
        off = length - 1 - i
        g0 = gain[_code(codes, start, length, i), col : col + steps]
        g1 = gain[_code(codes, start, length, i + 1), col + 1 : col + 1 + steps]
        g2 = gain[_code(codes, start, length, i + 2), col + 2 : col + 2 + steps]
        g3 = gain[_code(codes, start, length, i + 3), col + 3 : col + 3 + steps]
        g4 = gain[_code(codes, start, length, i + 4), col + 4 : col + 4 + steps]
        g5 = gain[_code(codes, start, length, i + 5), col + 5 : col + 5 + steps]
        g6 = gain[_code(codes, start, length, i + 6), col + 6 : col + 6 + steps]
        g7 = gain[_code(codes, start, length, i + 7), col + 7 : col + 7 + steps]
        d = diag[off : off + steps]
        for j in range(steps):  # int8 only, so that LLVM vectorises it
            u = _sadd(d[j], g0[j])
            m = u
            u = _sadd(u, g1[j])
            m = max(m, u)
            u = _sadd(u, g2[j])
            m = max(m, u)
            u = _sadd(u, g3[j])
            m = max(m, u)
            u = _sadd(u, g4[j])
            m = max(m, u)
            u = _sadd(u, g5[j])
            m = max(m, u)
            u = _sadd(u, g6[j])
            m = max(m, u)
            u = _sadd(u, g7[j])
            m = max(m, u)
            d[j] = u
            top[j] = max(top[j], m)


@jit
def _height(top, first, end) -> int:
    """One model's best SSV height: the maximum of ``top`` over its span of positions
    (numpy's max vectorises; a loop of ``max`` calls runs one byte at a time)."""
    return np.int64(top[first:end].max()) + 128


@jit
def _msv_full(codes, start, length, cost, col, width, bias, jb, tec, prev, cur) -> int:
    """``p7_MSVFilter``'s recurrence with its J state for one sequence: the final xJ, or -1
    on byte overflow. Only needed where SSV has no result (a cell beat the J cost).

    Indices: i residue, k model node (columns ``col + k`` of ``cost``).
    """
    prev[: width + 1] = 0
    cur[0] = 0
    bias_u8 = np.uint8(bias)
    xj = 0
    xb = max(BASE_B - jb, 0)
    for i in range(length):
        row = cost[codes[start + i], col : col + width + 1]
        base = np.uint8(xb)
        xe = np.uint8(0)
        for k in range(1, width + 1):  # uint8 only, so that LLVM vectorises it
            v = max(prev[k - 1], base)
            v = np.uint8(v + min(bias_u8, np.uint8(255 - v)))
            c = row[k]
            v = np.uint8(max(v, c) - c)
            cur[k] = v
            xe = max(xe, v)
        prev, cur = cur, prev
        if np.int64(xe) + bias >= 255:
            return -1
        xj = max(xj, np.int64(xe) - tec)
        xb = max(max(BASE_B, xj) - jb, 0)
    return xj


@parallel_jit
def msv_scores(
    codes, offsets, order, tasks, tjb, cost, cols, widths, gain, groups, spans, members, params
):
    """``p7_MSVFilter`` and ``p7_SSVFilter`` scores (nats) of every CSR sequence against
    every model, in one pass: ``scores[m, q]`` and ``ssv[m, q]``.

    Like HMMER, SSV runs first and MSVFilter returns SSV's score where SSV has one (NaN in
    ``ssv`` where it has none; +inf in both where MSV overflows); only the pairs where SSV
    has no result rerun the full MSV. ``cost``/``cols``/``widths`` are the byte tables of
    ``_msv_full``; ``gain``/``groups``/``spans`` those of ``_ssv_tops`` (see
    ``stage.MSVTables``), whose models ``members`` lists group by group; ``params`` holds
    each model's bias, tbm and tec bytes.
    Sequences sorted by length (``order``) are dealt round-robin to ``tasks`` work lists so
    that threads get equal residue counts; each sequence meets all models while it is in
    cache.

    Indices: t task, j rank in ``order``, q sequence, m model, g group of models.
    """
    n = offsets.shape[0] - 1
    count = cols.shape[0]
    scores = np.empty((count, n), dtype=np.float32)
    ssv = np.empty((count, n), dtype=np.float32)
    longest = 0
    for q in range(n):
        longest = max(longest, offsets[q + 1] - offsets[q])
    widest = 0
    for m in range(count):
        widest = max(widest, widths[m])
    most = 0
    for g in range(groups.shape[0]):
        most = max(most, groups[g, 1])
    for t in prange(tasks):
        diag = np.empty(longest + most, dtype=np.int8)
        top = np.empty(most, dtype=np.int8)
        prev = np.zeros(widest + 1, dtype=np.uint8)
        cur = np.zeros(widest + 1, dtype=np.uint8)
        for j in range(t, n, tasks):
            q = order[j]
            start = offsets[q]
            length = offsets[q + 1] - start
            group = -1
            for m in members:
                if spans[m, 0] != group:
                    group = spans[m, 0]
                    col, steps = groups[group, 0], groups[group, 1]
                    _ssv_tops(codes, start, length, gain, col, steps, diag, top)
                bias, tbm, tec = params[m, 0], params[m, 1], params[m, 2]
                jb = tjb[q] + tbm
                value = np.float32(np.nan)
                if jb + tec + bias < 127:  # else SSV has no result (HMMER's validity test)
                    height = _height(top, spans[m, 1], spans[m, 2])
                    value = _ssv_score(height, jb, tjb[q], tec, bias)
                if np.isnan(value):
                    xj = _msv_full(
                        codes, start, length, cost, cols[m], widths[m], bias, jb, tec, prev, cur
                    )
                    if xj < 0:  # MSV overflows: SSV's answer is +inf too (see _ssv_score)
                        value = np.float32(np.inf)
                    else:
                        scores[m, q] = _third_bits_to_nats(xj, tjb[q])
                        ssv[m, q] = value
                        continue
                scores[m, q] = value
                ssv[m, q] = value
    return scores, ssv


@jit
def _viterbi_score(xc: int, move: int, over: bool) -> np.float32:
    """``p7_ViterbiFilter``'s final float steps (+inf on overflow, -inf without a path)."""
    if over:
        return np.float32(np.inf)
    if xc == WORD_MIN:
        return np.float32(-np.inf)
    sc = np.float32(np.float32(xc) + np.float32(move) - np.float32(BASE_W))
    sc = np.float32(sc / SCALE_W)
    return np.float32(np.float64(sc) - 3.0)


@jit
def _viterbi_row(e, trans, xb, mp, ip, dp, mn, inn, dn):
    """One row of the word Viterbi filter for one sequence; returns xE (max over M(i, k)).

    Indices: k model node. Previous row in (mp, ip, dp), new row into (mn, inn, dn).
    The M and I cells only look at the previous row, so their loop vectorises; the D cells
    form a max-plus chain along k, which runs serially only when a D -> D step beats the
    M -> D candidates somewhere (HMMER's lazy-F idea, kept exact).
    """
    M = mn.shape[0] - 1
    lo = np.int32(WORD_MIN)
    hi = np.int32(WORD_MAX)
    xbv = np.int32(xb)
    xe = lo
    for k in range(1, M + 1):
        sv = np.int32(min(np.int32(max(np.int32(xbv + trans[0, k]), lo)), hi))
        sv = np.int32(max(sv, np.int32(max(np.int32(mp[k - 1] + trans[1, k]), lo))))
        sv = np.int32(max(sv, np.int32(max(np.int32(ip[k - 1] + trans[2, k]), lo))))
        sv = np.int32(max(sv, np.int32(max(np.int32(dp[k - 1] + trans[3, k]), lo))))
        sv = np.int32(min(np.int32(max(np.int32(sv + e[k]), lo)), hi))
        mn[k] = sv
        xe = np.int32(max(xe, sv))
        stay = np.int32(max(np.int32(ip[k] + trans[6, k]), lo))
        inn[k] = np.int32(max(np.int32(max(np.int32(mp[k] + trans[5, k]), lo)), stay))
    dn[1] = lo
    for k in range(2, M + 1):  # D cells from M -> D alone
        dn[k] = np.int32(max(np.int32(mn[k - 1] + trans[4, k - 1]), lo))
    gain = np.int32(0)
    for k in range(2, M + 1):  # does any D -> D step beat them?
        gain = np.int32(max(gain, np.int32(dn[k - 1] + trans[7, k - 1] - dn[k])))
    if gain > 0:  # then run the chain; transitions are <= 0, so the -32768 floor never binds
        d = np.int64(lo)
        for k in range(2, M + 1):
            d = max(np.int64(dn[k]), d + trans[7, k - 1])
            dn[k] = d
    return xe


@parallel_jit
def viterbi_blocks(residues, row_offsets, lane_offsets, lane_order, move, emit, trans, e_move):
    """Viterbi-filter score (nats, +inf on overflow, -inf if no path) of every sequence.

    Indices: b block, s lane, r row, k model node, x residue code, q sequence.
    ``trans`` rows: 0 BM, 1 MM, 2 IM, 3 DM into node k; 4 MD, 5 MI, 6 II, 7 DD out of node k.
    A CPU thread takes a whole block and walks its lanes one after the other.
    """
    lanes = residues.shape[1]
    M = emit.shape[1] - 1
    n = lane_order.shape[0]
    scores = np.empty(n, dtype=np.float32)
    emit32 = emit.astype(np.int32)
    tr = trans.astype(np.int32)
    for b in prange(row_offsets.shape[0] - 1):
        rows = np.full((6, M + 1), WORD_MIN, dtype=np.int32)
        for s in range(lanes):
            g = b * lanes + s
            slot = lane_offsets[g]
            if slot == lane_offsets[g + 1]:
                continue
            q = lane_order[slot]
            rows[:, :] = WORD_MIN
            old = 0
            xb = _adds(BASE_W, move[q])
            xc = WORD_MIN
            xj = WORD_MIN
            over = False
            for r in range(row_offsets[b], row_offsets[b + 1]):
                x = residues[r, s]
                if x == PAD:
                    break
                if x == END:
                    scores[q] = _viterbi_score(xc, move[q], over)
                    slot += 1
                    if slot == lane_offsets[g + 1]:
                        break
                    q = lane_order[slot]
                    rows[:, :] = WORD_MIN
                    xb = _adds(BASE_W, move[q])
                    xc = WORD_MIN
                    xj = WORD_MIN
                    over = False
                    continue
                if over:
                    continue
                new = 3 - old
                xe = _viterbi_row(
                    emit32[x], tr, xb, rows[old], rows[old + 1], rows[old + 2],
                    rows[new], rows[new + 1], rows[new + 2],
                )  # fmt: skip
                old = new
                if xe >= WORD_MAX:
                    over = True
                    continue
                xc = max(xc, _adds(xe, e_move))
                xj = max(xj, _adds(xe, e_move))
                xb = max(_adds(xj, move[q]), _adds(BASE_W, move[q]))
    return scores


@jit
def _bias_residue(o, d0, d1, t00, t01, t10, t11, first):
    """One residue of the bias filter's scaled two-state forward: the new (d0, d1), each
    divided by the row's larger value, and that value (whose log the score sums)."""
    if first:
        a = d0
        c = np.float32(d1 * o)
    else:
        a = np.float32(np.float32(d0 * t00) + np.float32(d1 * t10))
        c = np.float32(np.float32(d0 * t01) + np.float32(d1 * t11))
        c = np.float32(c * o)
    top = max(a, c)
    return np.float32(a / top), np.float32(c / top), top


@jit
def _bias_score(length, total, d0, d1, p1):
    """The forward's end and the null model's length terms: the bias-filter score."""
    if length > 0:
        total = np.float32(total + np.float32(math.log(np.float32(d0 + d1))))
    null = np.float32(np.float32(length) * np.float32(math.log(p1)))
    return np.float32(total + null + np.float32(math.log(np.float32(1.0) - p1)))


@parallel_jit
def bias_scores(codes, offsets, targets, odds, t10, t11):
    """HMMER's bias-filter score (nats) of the CSR sequences ``targets``: two-state forward
    plus null.

    Sequences are taken by length, BIAS_LANES at a time, and advanced residue by residue
    together: each stays its own float32 chain, computed exactly as alone, but the chains'
    latencies (a division and a log per residue) overlap.

    Indices: g group of BIAS_LANES sequences, s lane, i residue. State 0 emits
    the background (odds 1), state 1 ``odds``.
    """
    n = targets.shape[0]
    scores = np.empty(n, dtype=np.float32)
    order = np.argsort(offsets[targets + 1] - offsets[targets])
    for g in prange((n + BIAS_LANES - 1) // BIAS_LANES):
        lanes = order[g * BIAS_LANES : (g + 1) * BIAS_LANES]
        used = lanes.shape[0]
        start = offsets[targets[lanes]]
        length = offsets[targets[lanes] + 1] - start
        p1 = np.empty(used, dtype=np.float32)
        t01 = np.empty(used, dtype=np.float32)
        d0 = np.full(used, 0.999, dtype=np.float32)
        d1 = np.full(used, 0.001, dtype=np.float32)
        total = np.zeros(used, dtype=np.float32)
        for s in range(used):
            p1[s] = np.float32(np.float32(length[s]) / np.float32(length[s] + 1))
            t01[s] = np.float32(np.float32(1.0) - p1[s])
        shared = length.min()
        for i in range(shared):
            for s in range(BIAS_LANES):
                if s < used:
                    o = odds[codes[start[s] + i]]
                    d0[s], d1[s], top = _bias_residue(
                        o, d0[s], d1[s], p1[s], t01[s], t10, t11, i == 0
                    )
                    total[s] = np.float32(total[s] + np.float32(math.log(top)))
        for s in range(used):
            for i in range(shared, length[s]):
                o = odds[codes[start[s] + i]]
                d0[s], d1[s], top = _bias_residue(o, d0[s], d1[s], p1[s], t01[s], t10, t11, i == 0)
                total[s] = np.float32(total[s] + np.float32(math.log(top)))
            scores[lanes[s]] = _bias_score(length[s], total[s], d0[s], d1[s], p1[s])
    return scores


@jit
def length_scores(lengths):
    """The filters' length-dependent float32 scores (nats) of each target length L:
    ``logf(3 / (L + 3))``, the N/C/J move, and ``p7_bg_NullOne``'s null score
    ``L * logf(p1) + logf(1 - p1)`` with ``p1 = L / (L + 1)``.

    Each log is libm's double ``log`` of the float32 argument, rounded to float32, as
    ``profile.length_move`` does in Python.
    """
    n = lengths.shape[0]
    moves = np.empty(n, dtype=np.float32)
    null = np.empty(n, dtype=np.float64)
    one = np.float32(1.0)
    for i in range(n):
        size = np.float32(lengths[i])
        moves[i] = np.float32(math.log(np.float64(np.float32(3.0) / (size + np.float32(3.0)))))
        p1 = np.float32(size / (size + one))
        loop = np.float32(math.log(np.float64(p1))) if lengths[i] > 0 else np.float32(-np.inf)
        null[i] = np.float32(size * loop + np.float32(math.log(np.float64(one - p1))))
    return moves, null
