// align_band.cuh - the traceback's forward pass restricted to a band of diagonals: each cell's
// 4 direction flags and the pair's score and end cell, as align_dp.cuh computes them on the
// whole matrix, for the cells near the pair's main diagonals only.
//
// Why a band is exact. A global path through diagonal d = j - i has at least
// g = |d| + |n - m - d| gap residues, so it scores at most best (m + n - g) / 2 - gap g (best:
// the highest substitution score, gap: the least a gap residue costs); a semi-global or local
// path has at most as many diagonal steps as diagonal d has cells, len(d), so it scores at
// most best len(d). A pair's score S thus bounds the diagonals its optimal paths can use. The
// forward pass over a region R of cells (the others minus infinity) scores S_R <= S; when R
// holds every diagonal that the bound allows for S_R, it holds every optimal path, so S_R = S,
// the end cell is the same, and every comparison the walk reads on the optimal path has the
// same outcome as on the whole matrix (a value that ties with or beats the winner there lies
// on an optimal path too, so inside R). The walk (align_trace.cu) checks that bound for each
// pair; a pair whose region falls short is aligned again on the whole matrix. Read mappers
// call this banded (Ukkonen's band; ksw2's extension bands), here checked rather than assumed.
//
// The region: a staircase of column blocks. A group of G threads holds a window of G blocks
// of K target columns over each row; the window moves one block to the right every K rows,
// so that row i's window covers diagonals lo .. lo + G K - K of the pair set (lo, the set's
// first diagonal, is warp-wide: both pairs of a register share rows and columns). Thread t
// owns the blocks cb = t, t + G, t + 2 G, ... (a ring): while a block is in the window its K
// columns are the thread's, with the same registers, profile slot and row pass as
// align_dp.cuh's (AnySeq/GPU section 4's register tiling); when the window leaves a block, its
// thread takes the block G places to the right, which enters the window at the next row. A
// cell's three predecessors lie up, left and up-left, so only the left neighbour's last
// column moves between threads (a shuffle from thread t - 1 mod G, as in align_dp.cuh); the
// block entering the window starts below minus infinity. Block cb's row i runs at step
// i + cb - b(1) - 1 (b(i): the window's first block at row i), so a thread waits G steps
// each time it takes a new block: K rows of every K + 1 steps are work.
//
// The profile holds the G blocks of the window, one slot a thread (the same layout as
// align_dp.cuh's stripe profile); a slot is refilled by the whole group once its block has
// left the window, G steps before its next block needs it. The query letters come from global
// memory a row at a time, a working step before the row (a thread's rows follow each other
// across its blocks).
//
// Flags: as align_dp.cuh's, by step: pair p's cell (i, j), in block cb = (j - 1) / K at its
// column c = (j - 1) % K, is the BITS bits from bit BITS * (c % (8 / BITS)) of byte
//   flag_offset[p] + (i + cb - b(1) - 1) * G * B + (cb % G) * B + c / (8 / BITS),
// B = 4 ceil(K BITS / 32), BITS = 4 with affine gaps and 2 with linear ones, and
// b(1) = max(0, floor(lo / K)), lo the set's first diagonal (band_lo[p]).
//
// Template parameters: MODE, AFFINE, Lane (a fused lane without the offset form: LaneS32,
// LaneS16x2, LaneS16x2Bytes), K (a multiple of 4), G (4, 8, 16 or 32).

#ifndef SEQWARP_ALIGN_BAND_CUH
#define SEQWARP_ALIGN_BAND_CUH

#include "align_dp.cuh"

namespace seqwarp {

// the warp's first diagonal: the diagonals between 0 and n - m of every pair of the warp, and
// as many on each side as a window of `width` diagonals leaves; 1 << 30 for a warp without
// pairs. (Each pair's window centred on its own diagonals and the least first diagonal taken,
// the pairs of the largest n - m had the least room on their right: the band's second pass
// over a chunk's missed pairs took 2.38 ms of 244,140 global linear 512 bp reads' traceback
// kernels, 1.67 with the warp's diagonals centred.)
template <int PAIRS>
__device__ __forceinline__ int warp_band_low(const int (&m)[PAIRS], const int (&n)[PAIRS],
                                             int width) {
    int least = 1 << 30, most = -(1 << 30);
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        if (m[k] > 0 && n[k] > 0) {
            least = min(least, min(0, n[k] - m[k]));
            most = max(most, max(0, n[k] - m[k]));
        }
    }
    least = __reduce_min_sync(FULL, least);
    most = __reduce_max_sync(FULL, most);
    return least > most ? 1 << 30 : least - (width - 1 - (most - least)) / 2;
}

// whether diagonals lo .. hi hold every optimal path of a pair whose banded score is `score`
// (the bound above; `best` the highest substitution score, `gap` the least a gap residue costs)
template <int MODE>
__device__ __forceinline__ bool band_holds(int m, int n, int score, int best, int gap, int lo,
                                           int hi) {
    if (best <= 0 || gap <= 0) return false;
    if constexpr (MODE == GLOBAL) {
        // g <= (best (m + n) - 2 score) / (best + 2 gap) gap residues
        const long long most = ((long long)best * (m + n) - 2LL * score) / (best + 2 * gap);
        const long long spare = (most - abs(n - m)) / 2;
        return min(0, n - m) - spare >= lo && max(0, n - m) + spare <= hi;
    } else {
        if (score <= 0) return false;
        const int fewest = (score + best - 1) / best;  // cells the path's diagonals need
        return fewest - m >= lo && n - fewest <= hi;
    }
}

// codes ... flag_offset  as align_dp.cuh's (FLAGS); band_lo: per pair, the set's first
// diagonal lo (the walk's check and its place of the flags)
template <int MODE, bool AFFINE, class L, int K, int G>
__device__ __forceinline__ void band_dp(
    const unsigned char* __restrict__ codes,
    const long long* __restrict__ q_start,
    const int* __restrict__ q_len,
    const long long* __restrict__ t_start,
    const int* __restrict__ t_len,
    int n_pairs,
    const int* __restrict__ matrix,
    int alpha,
    int go,
    int ge,
    int* __restrict__ out,
    int* __restrict__ band_lo,
    unsigned char* __restrict__ flags,
    const long long* __restrict__ flag_offset) {
    using V = typename L::V;
    using P = typename L::P;
    constexpr int PAIRS = L::PAIRS;
    constexpr int COLS = G * K;                            // columns of the window
    constexpr int WIDTH = COLS - K + 1;                    // diagonals every row's window holds
    constexpr int W = profile_load<L, K>() / (int)sizeof(P);  // profile elements per load
    constexpr int FLAG_WORDS = flag_words<AFFINE, K>();
    constexpr int THREADS = block_threads<L, 1>();
    static_assert(K % 4 == 0, "K must be a multiple of 4");
    static_assert(L::FUSED && !L::OFFSET && !L::TABLE, "a fused lane in the plain form");

    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ uint4 snapshots[MODE == LOCAL ? PAIRS * K / 4 * THREADS : 1];
    auto snapshot_at = [&](int k, int v) { return (k * (K / 4) + v) * THREADS + threadIdx.x; };
    // each residue code's column of profile scores, [code][letter] (code alpha: the padding
    // column, 0), shared by the block; then one profile a group
    const int letters = alpha + 1;
    P* columns = reinterpret_cast<P*>(smem);
    for (int idx = threadIdx.x; idx < letters * letters; idx += blockDim.x) {
        const int code = idx / letters, letter = idx % letters;
        columns[idx] = L::to_profile(code < alpha && letter < alpha ? matrix[letter * alpha + code] : 0);
    }
    const int table_bytes = (letters * letters * (int)sizeof(P) + 15) & ~15;
    __syncthreads();
    const int t = threadIdx.x % G;
    const int group_in_block = threadIdx.x / G;
    const long long group = (long long)blockIdx.x * (blockDim.x / G) + group_in_block;
    P* prof = reinterpret_cast<P*>(smem + table_bytes) + (size_t)group_in_block * PAIRS * letters * COLS;

    long long pid[PAIRS], qs[PAIRS], ts[PAIRS];
    int m[PAIRS], n[PAIRS], Mw, Nw;
    load_pairs(group, n_pairs, q_len, t_len, q_start, t_start, pid, qs, ts, m, n, Mw, Nw);
    // the warp's first diagonal: the schedule is uniform over the warp, as the lengths are
    const int lo = warp_band_low(m, n, WIDTH);
    if (Nw == 0) return;
    // b(i): the window's first block at row i; block cb's rows and the step of its row i
    auto first_block = [&](int i) { return max(0, i + lo - 1) / K; };
    auto first_row = [&](int cb) { return cb - G + 1 <= 0 ? 1 : max(1, (cb - G + 1) * K - lo + 1); };
    auto last_row = [&](int cb) { return min(Mw, (cb + 1) * K - lo); };
    const int b1 = first_block(1);
    const int blocks = (Nw + K - 1) / K;                   // blocks of the longest target
    const int steps = Mw + first_block(Mw) - b1 + G - 1;

    // the profile of block cb into its slot (cb % G), by the whole group
    auto fill_profile = [&](int cb) {
        const int owner = cb % G;
        for (int idx = t; idx < K * PAIRS; idx += G) {
            const int c = idx % K, k = idx / K;
            const int j = cb * K + c;                      // 0-based target residue
            // selects, not n[k]: an array indexed at run time would live in local memory
            const int nk = k ? n[PAIRS - 1] : n[0];
            const long long tk = k ? ts[PAIRS - 1] : ts[0];
            const int code = j < nk ? codes[tk + j] : alpha;
            const P* column = columns + code * letters;
            P* at = prof + k * letters * COLS + profile_slot<W, G>(owner, c);
            for (int letter = 0; letter < letters; ++letter) at[letter * COLS] = column[letter];
        }
    };
    for (int cb = b1; cb < b1 + G && cb < blocks; ++cb) fill_profile(cb);
    // the next block whose profile is due, and the step from which its slot is free (the
    // step after the last one of the block G places to its left)
    int next_fill = b1 + G;
    auto fill_step = [&](int cb) {
        return cb < blocks && first_row(cb) <= Mw ? last_row(cb - G) + (cb - G) - b1 : 1 << 30;
    };
    int next_fill_step = fill_step(next_fill);
    __syncwarp();

    // what a step reads and writes, from places fixed for the whole pair set: each pair's
    // query before its first residue, this thread's profile columns, and its flag words at
    // step 0 (a missing pair's: never read or written)
    const unsigned char* query[PAIRS];
    unsigned char* flag_at[PAIRS];
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        query[k] = codes + qs[k] - 1;
        flag_at[k] = pid[k] < n_pairs ? flags + flag_offset[pid[k]] + t * (4 * FLAG_WORDS) : flags;
    }
    const P* my_prof = prof + t * W;
    const V v_go = L::splat(-go);
    const V v_ge = L::splat(-ge);
    const V v_neg = L::neg();
    End best[PAIRS];
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) best[k] = End{MODE == LOCAL ? 0 : WORST, 0, 0};

    // this thread's block and its state (align_dp.cuh's per-stripe state, per block): the
    // steps of its first and last rows, and the last steps at which the block to its left
    // holds the row this thread's next row needs (its left and its diagonal neighbour)
    int cb = b1 + ((t - b1) % G + G) % G;
    int step_first = 0, step_last = 0, left_until = 0;
    V hg[K], e[K];
    V local_best = v_go;
    int local_row[PAIRS];
    int end_row[PAIRS];
    bool any_last = false;
    unsigned last_lanes = 0, last_row_bits = 0;
    V last_best = v_neg;
    // a block's state as it enters the window (below it: minus infinity, as every block
    // entering after row 1; the first window's blocks start below row 0 instead, set once)
    auto enter = [&]() {
        const int c0 = cb * K;
        const int to_step = cb - b1 - 1;                   // row i of block cb: step i + to_step
        step_first = cb < blocks ? first_row(cb) + to_step : 1 << 30;
        step_last = last_row(cb) + to_step;
        left_until = cb > 0 ? last_row(cb - 1) + to_step : 1 << 30;
#pragma unroll
        for (int c = 0; c < K; ++c) hg[c] = e[c] = v_neg;
        local_best = v_go;
        any_last = false;
        last_lanes = 0;
        last_row_bits = 0;
        last_best = v_neg;
#pragma unroll
        for (int k = 0; k < PAIRS; ++k) {
            local_row[k] = 0;
            const bool has_last = n[k] > c0 && n[k] <= c0 + K;
            any_last = any_last || has_last;
            end_row[k] = (MODE == GLOBAL ? has_last : c0 < n[k]) ? m[k] : -1;
            if (has_last) last_lanes |= PAIRS == 1 ? FULL : 0xffffu << (16 * k);
        }
    };
    // a block's end-cell candidates once the window has left it (local: its best row's first
    // best column; semi-global: its best of column n above row m)
    auto leave = [&]() {
        const int c0 = cb * K;
        if constexpr (MODE == LOCAL)
            local_best_candidates<L, K>(local_best, local_row, c0, go, snapshots, snapshot_at, best);
        if constexpr (MODE == SEMI_GLOBAL) {
#pragma unroll
            for (int k = 0; k < PAIRS; ++k) {
                const int row = PAIRS == 1 ? (int)last_row_bits : (int)((last_row_bits >> (16 * k)) & 0xffff);
                const End cand{L::lane(last_best, k) + go, row, n[k]};
                if (row > 0 && beats(cand, best[k])) best[k] = cand;
            }
        }
    };
    enter();
#pragma unroll
    for (int c = 0; c < K; ++c) hg[c] = L::splat(boundary<MODE>(cb * K + c + 1, go, ge) - go);

    // the row's letters, a byte a pair (the padding letter below a pair's last row). A thread's
    // rows are 1, 2, 3, ... across its blocks (block cb + G's first row follows block cb's
    // last), so each row's letters are loaded a working step ahead: the load's latency passes
    // during the step before, not at the head of the row's dependent chain
    auto letter_of = [&](int row) {
        return row_letters(query, m, row, alpha, [](unsigned char code) { return (unsigned)code; });
    };
    unsigned q_next = letter_of(1);
    // the left neighbour's last column (hg, F) as sent at the last step, and hg the step before
    V recv_h = v_neg, recv_f = v_neg, recv_diag = v_neg;
    for (int s = 0; s < steps; ++s) {
        // the profiles of blocks about to enter the window, into the slots of blocks that
        // have left it (uniform over the warp)
        if (s >= next_fill_step) {
            do {
                fill_profile(next_fill++);
                next_fill_step = fill_step(next_fill);
            } while (s >= next_fill_step);
            __syncwarp();
        }
        if (__builtin_expect(s > step_last && cb < blocks, 0)) {
            leave();
            cb += G;
            enter();
        }
        const int i = s - cb + b1 + 1;                     // this thread's row
        V f = v_neg;
        if (s >= step_first && s <= step_last) {
            // the left neighbour (block cb - 1 at rows i and i - 1): sent by its thread,
            // column 0 for block 0, minus infinity where it has left the window; row 0 is
            // the boundary for every block
            V left = s > left_until ? v_neg : recv_h;
            V f_left = s > left_until ? v_neg : recv_f;
            V diag_left = s > left_until + 1 ? v_neg : recv_diag;
            if (i == 1) diag_left = L::splat(boundary<MODE>(cb * K, go, ge) - go);
            if (cb == 0) {
                left = L::splat(boundary<MODE>(i, go, ge) - go);
                f_left = v_neg;
                diag_left = L::splat(boundary<MODE>(i - 1, go, ge) - go);
            }
            const unsigned q = q_next;
            q_next = letter_of(i + 1);
            V sub[K];
            profile_scores<L, K, G>(my_prof, q, letters, sub);
            // align_dp.cuh's row and flags
            constexpr int CELLS = packed_cells<AFFINE, L>();
            unsigned packed[(K + CELLS - 1) / CELLS] = {};
            f = f_left;
            fused_row<MODE, AFFINE, L, K, true>(hg, e, sub, diag_left, left, f, v_go, v_ge, packed);
            const int c0 = cb * K;
#pragma unroll
            for (int k = 0; k < PAIRS; ++k) {
                unsigned words[FLAG_WORDS];
                pair_flags<L>(packed, k, words);
                if (i <= m[k] && c0 < n[k]) {
                    store_words(flag_at[k] + (long long)s * (G * 4 * FLAG_WORDS), words);
                }
            }

            // end cells, as align_dp.cuh's
            if constexpr (MODE == LOCAL) {
                track_local_best<L, K>(hg, local_best, local_row, i, snapshots, snapshot_at);
            } else {
                if (MODE == SEMI_GLOBAL && any_last) {
                    unsigned open, masks[pick_levels<K>()];
                    if constexpr (PAIRS == 2)  // c0 moves with the band: every row
                        pick_masks<K>(n[0] - c0 - 1, n[1] - c0 - 1, masks);
                    const V x = last_column<L, K>(hg, n, m, c0, i, masks, open);
                    keep_greater<L>(x, open & last_lanes, i, last_best, last_row_bits);
                }
#pragma unroll
                for (int k = 0; k < PAIRS; ++k) {
                    if (i != end_row[k]) continue;
                    if (MODE == GLOBAL) {
                        best[k] = End{L::lane(pick<L, K>(hg, n[k] - c0 - 1), k) + go, m[k], n[k]};
                    } else {
                        last_row_candidate<K>(c0, n[k], i, go,
                                              [&](int c) { return L::lane(hg[c], k); }, best[k]);
                    }
                }
            }
        }
        // every thread sends its last column to the thread of the next block (its row i at
        // the next step); the one sent the step before is that row's diagonal neighbour
        const int from = (t + G - 1) % G;
        recv_diag = recv_h;
        recv_h = L::from_bits(__shfl_sync(FULL, L::bits(hg[K - 1]), from, G));
        recv_f = AFFINE ? L::from_bits(__shfl_sync(FULL, L::bits(f), from, G)) : v_neg;
    }
    if (cb < blocks) leave();

#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        const End e_best = group_best<G>(best[k]);
        if (t == 0 && pid[k] < n_pairs) {
            out[3 * pid[k] + 0] = e_best.score;
            out[3 * pid[k] + 1] = e_best.i;
            out[3 * pid[k] + 2] = e_best.j;
            band_lo[pid[k]] = lo;
        }
    }
}

}  // namespace seqwarp

#endif  // SEQWARP_ALIGN_BAND_CUH
