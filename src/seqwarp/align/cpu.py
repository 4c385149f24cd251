"""CPU alignment kernels (numba): exact 32-bit Gotoh DP, parallel over pairs.

One recurrence (:func:`_fill_rows`) serves every mode, gap model and output:

* score / ends: one pass, two rows of memory;
* CIGAR: the same pass keeps a checkpoint row (H and E) every ``B`` query rows, then the
  traceback recomputes one block of ``B`` rows at a time with 4 direction bits per cell, from
  the bottom block up. Short pairs are a single block (plain direction bits); long ones use
  ``O((m/B + B) * n)`` memory instead of ``O(m * n)``, and both give the same CIGAR.

Index letters: ``p`` = pair, ``i`` = query residue (row), ``j`` = target residue (column).
Gap states: ``E`` is a vertical gap (consumes query residues: CIGAR ``I``), ``F`` a horizontal
gap (consumes target residues: ``D``). Tie rules (the engine's documented contract):

* end cell: the highest score; ties go to the smallest query end, then the smallest target end
  (global ends at ``(m, n)``; semi-global looks at the last row and the last column);
* traceback from ``H``: diagonal, then ``E``, then ``F``; local alignments stop at ``H == 0``;
  inside a gap, opening is preferred to extending (the shortest gap that explains the score).
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, parallel_jit, prange

GLOBAL, SEMI_GLOBAL, LOCAL = 0, 1, 2
NEG_INF = -(1 << 30)

# direction bits of one cell
FROM_DIAG, FROM_E, FROM_F, FROM_ZERO = 0, 1, 2, 3
E_OPENED = 4
F_OPENED = 8

# CIGAR op codes in the ops buffer, and their letters (ASCII)
OP_MATCH, OP_MISMATCH, OP_INSERT, OP_DELETE = 0, 1, 2, 3
CIGAR_LETTERS = np.frombuffer(b"=XID", dtype=np.uint8)


@jit
def _boundary(k, mode, gap_open, gap_extend):
    """H at row 0 / column 0, k residues into the other sequence."""
    if mode != GLOBAL or k == 0:
        return 0
    return -(gap_open + (k - 1) * gap_extend)


@jit
def _fill_rows(q, t, matrix, mode, gap_open, gap_extend, first, last, ncols, h_row, e_row, bits):
    """Advance ``h_row``/``e_row`` (holding row ``first - 1``) through query rows ``first..last``.

    Only columns ``0..ncols`` are computed. When ``bits`` has rows, row ``r`` of the block is
    written to ``bits[r - first]``. Returns (best score, its row, its column) over the cells
    that the mode may end in, with the end-cell tie rule.
    """
    best = NEG_INF if mode != LOCAL else 0
    best_i = 0
    best_j = 0
    store = bits.shape[0] > 0
    n = len(t)
    for i in range(first, last + 1):
        profile = matrix[q[i - 1]]
        diag = h_row[0]
        h_left = _boundary(i, mode, gap_open, gap_extend)
        h_row[0] = h_left
        f = NEG_INF
        for j in range(1, ncols + 1):
            h_up = h_row[j]
            e_open = h_up - gap_open
            e_ext = e_row[j] - gap_extend
            e = e_open if e_open >= e_ext else e_ext
            f_open = h_left - gap_open
            f_ext = f - gap_extend
            f = f_open if f_open >= f_ext else f_ext
            h = diag + profile[t[j - 1]]
            source = FROM_DIAG
            if e > h:
                h = e
                source = FROM_E
            if f > h:
                h = f
                source = FROM_F
            if mode == LOCAL and h <= 0:
                h = 0
                source = FROM_ZERO
            if store:
                flags = source
                if e_open >= e_ext:
                    flags |= E_OPENED
                if f_open >= f_ext:
                    flags |= F_OPENED
                bits[i - first, j] = flags
            diag = h_up
            h_row[j] = h
            e_row[j] = e
            h_left = h
            if mode == LOCAL:
                if h > best:
                    best = h
                    best_i = i
                    best_j = j
            elif mode == SEMI_GLOBAL and j == n and i < len(q) and h > best:
                best = h
                best_i = i
                best_j = j
    return best, best_i, best_j


@jit
def _init_rows(t_len, mode, gap_open, gap_extend, h_row, e_row):
    for j in range(t_len + 1):
        h_row[j] = _boundary(j, mode, gap_open, gap_extend)
        e_row[j] = NEG_INF


@jit
def _score_pair(q, t, matrix, mode, gap_open, gap_extend, h_row, e_row):
    """Score and end cell of one pair in linear memory."""
    m = len(q)
    n = len(t)
    _init_rows(n, mode, gap_open, gap_extend, h_row, e_row)
    no_bits = np.empty((0, 0), dtype=np.uint8)
    best, bi, bj = _fill_rows(
        q, t, matrix, mode, gap_open, gap_extend, 1, m, n, h_row, e_row, no_bits
    )
    return _finish(best, bi, bj, m, n, mode, h_row)


@jit
def _finish(best, bi, bj, m, n, mode, h_row):
    """Apply the mode's end rule once the last row is in ``h_row``.

    Semi-global ends lie in the last column (rows ``1..m-1``, already scanned) or the last
    row (columns ``1..n``), taken in row-major order so ties keep the earliest cell.
    """
    if mode == GLOBAL:
        return h_row[n], m, n
    if mode == SEMI_GLOBAL:
        if m == 0 or n == 0:
            return 0, m, n
        for j in range(1, n + 1):
            if h_row[j] > best:
                best = h_row[j]
                bi = m
                bj = j
    return best, bi, bj


@parallel_jit
def score_pairs(q_codes, q_offsets, t_codes, t_offsets, q_index, t_index, matrix, params, out):
    """Score (and end) pairs ``(q_index[p], t_index[p])``; ``out[p] = (score, q_end, t_end)``."""
    mode, gap_open, gap_extend = params[0], params[1], params[2]
    for p in prange(len(q_index)):
        qs = q_codes[q_offsets[q_index[p]] : q_offsets[q_index[p] + 1]]
        ts = t_codes[t_offsets[t_index[p]] : t_offsets[t_index[p] + 1]]
        h_row = np.empty(len(ts) + 1, dtype=np.int32)
        e_row = np.empty(len(ts) + 1, dtype=np.int32)
        score, qe, te = _score_pair(qs, ts, matrix, mode, gap_open, gap_extend, h_row, e_row)
        out[p, 0] = score
        out[p, 1] = qe
        out[p, 2] = te


@jit
def _recompute_block(
    q, t, matrix, mode, gap_open, gap_extend, ck_h, ck_e, k, block, last, ncols, h_row, e_row, bits
):
    """Refill query rows ``k*block+1..last``, columns ``0..ncols``, into ``bits``."""
    for j in range(ncols + 1):
        h_row[j] = ck_h[k, j]
        e_row[j] = ck_e[k, j]
    _fill_rows(
        q, t, matrix, mode, gap_open, gap_extend, k * block + 1, last, ncols, h_row, e_row, bits
    )


@jit
def trace(q, t, mode, unknown, flags, base, row_stride, col_stride, first_row, walk, ops):
    """Walk the direction flags back from ``walk``'s cell; the one traceback of the engine.

    A diagonal step is a match (``=``) when both residues have the same code other than
    ``unknown`` (the alphabet's ``N`` or ``X``, which scores as a mismatch and stands for any
    ambiguous letter), else a mismatch (``X``).

    ``flags[base + (i - first_row) * row_stride + j * col_stride]`` holds cell ``(i, j)``'s
    flags for rows ``i >= first_row``. ``walk`` = (i, j, state, ops written, matches,
    mismatches) is updated in place and ops are appended to ``ops`` in reverse order.
    Returns True when the alignment is complete, False when the walk needs rows above
    ``first_row`` (the caller recomputes that block and calls again).
    """
    i, j, state, count, matches, mismatches = walk[0], walk[1], walk[2], walk[3], walk[4], walk[5]
    done = True
    while True:
        if state == 0 and (i == 0 or j == 0):
            if mode == GLOBAL:
                while j > 0:
                    ops[count] = OP_DELETE
                    count += 1
                    j -= 1
                while i > 0:
                    ops[count] = OP_INSERT
                    count += 1
                    i -= 1
            break
        if i < first_row:
            done = False
            break
        cell = flags[base + (i - first_row) * row_stride + j * col_stride]
        if state == 0:
            source = cell & 3
            if source == FROM_ZERO:
                break
            if source == FROM_DIAG:
                if q[i - 1] == t[j - 1] and q[i - 1] != unknown:
                    ops[count] = OP_MATCH
                    matches += 1
                else:
                    ops[count] = OP_MISMATCH
                    mismatches += 1
                count += 1
                i -= 1
                j -= 1
            elif source == FROM_E:
                state = 1
            else:
                state = 2
        elif state == 1:
            ops[count] = OP_INSERT
            count += 1
            if cell & E_OPENED:
                state = 0
            i -= 1
        else:
            ops[count] = OP_DELETE
            count += 1
            if cell & F_OPENED:
                state = 0
            j -= 1
    walk[0], walk[1], walk[2], walk[3], walk[4], walk[5] = i, j, state, count, matches, mismatches
    return done


@jit
def _align_pair(q, t, matrix, mode, unknown, gap_open, gap_extend, block, ops):
    """Full alignment of one pair: (score, q_begin, q_end, t_begin, t_end, n_ops, matches, mismatches).

    ``ops`` receives the CIGAR operations (OP_*) in order; it must hold ``m + n`` entries.
    """
    m = len(q)
    n = len(t)
    nblocks = max(1, (m + block - 1) // block)
    ck_h = np.empty((nblocks, n + 1), dtype=np.int32)
    ck_e = np.empty((nblocks, n + 1), dtype=np.int32)
    h_row = np.empty(n + 1, dtype=np.int32)
    e_row = np.empty(n + 1, dtype=np.int32)
    bits = np.empty((min(block, max(m, 1)), n + 1), dtype=np.uint8)
    no_bits = np.empty((0, 0), dtype=np.uint8)
    # a single block keeps its direction bits from the forward pass: no recomputation
    forward_bits = bits if nblocks == 1 else no_bits
    _init_rows(n, mode, gap_open, gap_extend, h_row, e_row)
    best = NEG_INF if mode != LOCAL else 0
    bi = 0
    bj = 0
    for k in range(nblocks):
        ck_h[k, :] = h_row
        ck_e[k, :] = e_row
        last = min((k + 1) * block, m)
        if last > k * block:
            s, si, sj = _fill_rows(
                q,
                t,
                matrix,
                mode,
                gap_open,
                gap_extend,
                k * block + 1,
                last,
                n,
                h_row,
                e_row,
                forward_bits,
            )
            if s > best:
                best = s
                bi = si
                bj = sj
    score, qe, te = _finish(best, bi, bj, m, n, mode, h_row)

    walk = np.zeros(6, dtype=np.int64)  # i, j, state, ops written, matches, mismatches
    walk[0] = qe
    walk[1] = te
    # a single block's flags came with the forward pass; otherwise no row is loaded yet
    first_row = 1 if nblocks == 1 else m + 1
    while not trace(q, t, mode, unknown, bits.ravel(), 0, n + 1, 1, first_row, walk, ops):
        k = (walk[0] - 1) // block
        _recompute_block(
            q,
            t,
            matrix,
            mode,
            gap_open,
            gap_extend,
            ck_h,
            ck_e,
            k,
            block,
            walk[0],
            walk[1],
            h_row,
            e_row,
            bits,
        )
        first_row = k * block + 1
    count = walk[3]
    ops[:count] = ops[:count][::-1].copy()
    i, j, matches, mismatches = walk[0], walk[1], walk[4], walk[5]
    return score, i, qe, j, te, count, matches, mismatches


@parallel_jit
def align_pairs(
    q_codes,
    q_offsets,
    t_codes,
    t_offsets,
    q_index,
    t_index,
    matrix,
    params,
    unknown,
    blocks,
    out,
    ops,
    ops_offsets,
):
    """Align pairs with traceback; ``out[p]`` holds the fields of :func:`_align_pair`
    (``unknown``: the alphabet's wildcard code, never a match).

    ``ops[ops_offsets[p]:]`` receives pair ``p``'s operations (``m + n`` slots reserved);
    ``blocks[p]`` is its traceback block height (rows of direction bits recomputed at once).
    """
    mode, gap_open, gap_extend = params[0], params[1], params[2]
    for p in prange(len(q_index)):
        qs = q_codes[q_offsets[q_index[p]] : q_offsets[q_index[p] + 1]]
        ts = t_codes[t_offsets[t_index[p]] : t_offsets[t_index[p] + 1]]
        fields = _align_pair(
            qs,
            ts,
            matrix,
            mode,
            unknown,
            gap_open,
            gap_extend,
            blocks[p],
            ops[ops_offsets[p] : ops_offsets[p + 1]],
        )
        for f in range(8):
            out[p, f] = fields[f]


@jit
def _cigar_runs(ops, start, count, text, at):
    """Length of the run-length CIGAR of ``ops[start:start + count]``; written from
    ``text[at]`` when ``text`` is not empty (run length in decimal, then the op's letter)."""
    length = 0
    x = 0
    while x < count:
        op = ops[start + x]
        run = 1
        while x + run < count and ops[start + x + run] == op:
            run += 1
        digits = 1
        while run >= 10**digits:
            digits += 1
        if len(text):
            value = run
            for d in range(digits - 1, -1, -1):
                text[at + length + d] = 48 + value % 10
                value //= 10
            text[at + length + digits] = CIGAR_LETTERS[op]
        length += digits + 1
        x += run
    return length


@parallel_jit
def cigar_text(ops, ops_offsets, counts):
    """Every pair's CIGAR (``5=1X2I``) as ASCII codes, and the ``len + 1`` offsets of each."""
    npairs = len(counts)
    offsets = np.zeros(npairs + 1, dtype=np.int64)
    nothing = np.empty(0, dtype=np.uint8)
    for p in prange(npairs):
        offsets[p + 1] = _cigar_runs(ops, ops_offsets[p], counts[p], nothing, 0)
    for p in range(npairs):
        offsets[p + 1] += offsets[p]
    text = np.empty(offsets[npairs], dtype=np.uint8)
    for p in prange(npairs):
        _cigar_runs(ops, ops_offsets[p], counts[p], text, offsets[p])
    return text, offsets
