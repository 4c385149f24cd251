// align_dp.cuh - the dynamic programming of the alignment kernels: score and end cell of
// batched pairwise alignments (global / semi-global / local, linear or affine gaps, any
// substitution matrix), exactly as seqwarp.align.cpu does, and on request every cell's
// direction flags for the traceback (align_trace.cu). align_score.cu is the score-only kernel.
//
// Paper: AnySeq/GPU (Mueller et al., ICS'22), section 4 "GPU implementation": one alignment per
// group of G threads (G = 32: a warp, as in the paper; G = 8 or 16: sub-warp groups for short
// pairs), register tiling of K target columns per thread, warp shuffles for the neighbour's
// boundary cell and for the query characters, the substitution profile of the subject (here:
// the target) in shared memory, and long subjects split into stages (stripes of G*K columns)
// whose boundary column is handed on through global memory. Section 4's half-precision trick
// (two alignments per register) is the lane type; see lanes.cuh. Few long pairs cannot fill
// the chip one group each: with SPLIT > 1 a block's SPLIT warps share one pair set and run
// its stripes as a pipeline along the target (the wavefront of AnySeq/GPU's stages, across
// warps): warp r takes stripes r, r + SPLIT, ..., each one as soon as the rows of the stripe
// before it have been handed on. The longest pairs are still bound by the one SM their block
// runs on; with CLUSTER > 1 a pair set's pipeline spans the CLUSTER blocks of a Hopper thread
// block cluster (co-scheduled, so a warp may wait for any other), which publish their rows
// into each other's shared memory (distributed shared memory) at cluster scope.
//
// Contents
//   1. constants and small helpers
//   2. align_dp<MODE, AFFINE, Lane, K, G, FLAGS>   the body of the kernels
//
// Template parameters
//   MODE    0 global, 1 semi-global, 2 local (seqwarp.align.cpu's GLOBAL, SEMI_GLOBAL, LOCAL)
//   AFFINE  false: linear gaps (gap_open == gap_extend, E and F need no registers)
//   Lane    LaneS32, LaneS16x2, LaneS16x2Bytes, LaneS16x2Paired, LaneS16x2Table or
//           LaneHalf2 (lanes.cuh): what one register holds, and the width of the profile's
//           scores (the paired lane: both pairs' in a word; the table lane: no profile, see
//           below); Offset<a fused lane>: the same in the anti-diagonal offset form;
//           Rebased<a 16-bit lane>: the offset form relative to a moving base (below)
//   K       target columns per thread (register tile), a multiple of 4
//   G       threads per alignment group: 8, 16 or 32
//   FLAGS   also write each cell's 4 direction flags (fused lanes only: s32, s16x2)
//   SPLIT   warps of a block that share one pair set (1: a group per pair set; > 1: G = 32,
//           no FLAGS)
//   CLUSTER blocks of SPLIT warps that share one pair set (> 1: SPLIT > 1, a kernel launched
//           in clusters of CLUSTER consecutive blocks, sm_90 or later)
//   ENDS    also find each pair's end cell (false: local scores alone, for callers that take
//           no ends: a row's best folds into the running best, no snapshots; ends are 0)
//
// The recurrence (i = query row, j = target column; E vertical gap = CIGAR I, F horizontal
// gap = D), with every H kept as hg = H - gap_open. Lanes with a fused add+max (DPX, int32:
// Lane::FUSED) take five such ops per affine cell, two of them on the dependent chain along
// the row:
//   E[i][j]  = max(E[i-1][j] - ge, hg[i-1][j])
//   d        = hg[i-1][j-1] + s(q_i, t_j)                   (local: max(that, -go), i.e. H >= 0)
//   u        = max(E[i][j] - go, d)
//   F[i][j]  = max(F[i][j-1] - ge, hg[i][j-1])
//   hg[i][j] = max(F[i][j] - go, u)
// Linear gaps need three: d, u = max(hg[i-1][j] - g, d), hg[i][j] = max(hg[i][j-1] - g, u).
// half2 has no fused add+max, so it takes the form with the fewest separate ops instead: the
// profile holds s + go and hg[i][j] = max(hg[i-1][j-1] + (s + go), E, F) - go (local: and 0).
//
// The anti-diagonal offset form (Lane = Offset<...>: global and semi-global scores, fused
// lanes, no flags) keeps every cell as G = H + (i + j) * ge instead. A cell's three
// predecessors lie one or two anti-diagonals back, so the extension costs vanish: with the
// profile holding s' = s + 2 ge,
//   E'[i][j] = max(E'[i-1][j], G[i-1][j] - (go - ge))
//   u        = max(G[i-1][j-1] + s', E'[i][j])
//   F'[i][j] = max(F'[i][j-1], G[i][j-1] - (go - ge))
//   G[i][j]  = max(u, F'[i][j])
// four ops a cell for affine gaps and two for linear ones (u = max(G_d + s', G_u), G = max(u,
// G_l)), one of them on the chain along the row. The end cells subtract the offset again. G
// spans up to min(m, n) * max s + (m + n) * ge (plan.offset_bound), at most twice the range
// of the form above, which the 16-bit lanes hold for every pair they take.
//
// Rebased lanes (Lane = Rebased<...>: global and semi-global scores of pairs too long for a
// 16-bit lane's whole range). Adjacent cells differ by at most go + max(s, 0) in H, so by
// one ge more in the offset form (plan.rebased_step), and every value a thread holds lies
// within a few hundred such steps of one cell of its stripe: the registers keep each value
// less a base (per pair, the same in all threads of the group), and every REBASE_EVERY
// rows the group moves the base to thread 0's first cell, subtracting that from what it
// holds (a shift changes no max). Values enter with the base subtracted (rows and columns
// 0) and leave with it added (end cells, in int32); the column handed to the next stripe
// goes as int32 values. The host takes such a lane only where the reach of a stripe,
// (G * K + G + REBASE_EVERY + 1) steps, fits the 16-bit range (plan.rebased_reach).
//
// The class-table lane (LaneS16x2Table, for large alphabets) takes CUDASW++4.0's
// pair-indexed substitution table instead of a profile: letters that score alike are merged
// into C classes (the padding letter one of them), and the block builds, once, C^3 words,
// word [q][a * C + b] holding s(q, a) and s(q, b) in its two halves. A thread keeps each of
// its K columns' offset a * C + b (lane A's and lane B's target letters); a cell's two scores
// are then one shared load from the row of the query letter when the group's two pairs share
// their query (the protein search: one query against a database), or two loads and a byte
// permute otherwise. There is no profile to build per pair set (without that build, a
// 100-residue query against a protein database took a fifth less time).
//
// Each row is two passes over the thread's K columns: first what needs only row i-1 (E, d, u:
// independent across columns), then the chain along the row (F, hg), which overwrites hg in
// place. Registers per thread: hg[K] (the thread's columns), e[K] (affine only), sub[K]
// (the row's profile scores, then u), and the left neighbour's hg/F for the current row.
// Rebased lanes: base[PAIRS] (int32) and the semi-global last column's best in int32.
// Shared memory per group: the profile, (alphabet + 1) letters x G*K columns x PAIRS scores
// of 1, 2 or 4 bytes, laid out so that the G threads' loads fall on distinct banks (the
// class-table lane instead: one table a block, C^3 words for C letter classes).
//
// The paired lane (LaneS16x2Paired, for cross products: the host gives it only groups whose
// two pairs share their query) lays its profile out [letter][column], each word holding
// s(letter, target A's residue) and s(letter, target B's residue) side by side, ready for the
// DPX ops: a row's scores are K/4 16-byte loads from the row of the query letter, where the
// byte profile takes half the loads but a byte permute a column to put the two pairs' scores
// side by side (24 of the 91 ALU-pipe instructions of a global linear row at 8 x 24), at
// twice its shared memory.
//
// Local mode also keeps, per thread and pair, a snapshot of its K registers at the row where
// the pair's best of the stripe last grew (PAIRS x K words a thread, static shared memory):
// stored under a predicate in the rows where it grows, read once a stripe for the best's
// column.
//
// Direction flags (FLAGS): 4 bits a cell with affine gaps, 2 with linear ones, each a test of
// two values the recurrence already has (an XOR and a minimum with 1 in each lane), which
// reproduce the CPU's tie order: bit 0 u != d (E beat the diagonal), bit 1 hg != u (F beat
// both), bit 2 E != hg[i-1][j] (E goes on from the row above: not opened here), bit 3
// F != hg[i][j-1] (F goes on). Linear gaps need only bits 0 and 1 (every gap cell is opened),
// so their flags take half the memory and half the traffic. A local alignment's zero cells
// need no bit: the walk knows each cell's score on its path. The flags are laid out as the
// group writes them, by anti-diagonal step, so that a step's stores are one contiguous run
// (rows, one per thread, would each take a sector of their own): a thread's K cells of a row
// fill B = 4 * ceil(K * BITS / 32) bytes (whole words; K = 20 with 4 bits leaves 2 bytes
// unused), pair p's stripe S holds m + G - 1 steps of G * B bytes, and cell (i, j), column j
// of the stripe's thread t at its c-th column (j - 1 = S * COLS + t * K + c), is the BITS bits
// from bit BITS * (c % (8 / BITS)) (low first) of byte
//   flag_offset[p] + (S * (m + G - 1) + i - 1 + t) * G * B + t * B + c / (8 / BITS).
//
// Ends follow the CPU engine's tie rule: highest score, then smallest query end, then smallest
// target end. Cells outside a pair (padding up to the group's largest pair) score 0 in the
// profile, so they never beat a real cell of an earlier row or column.

#ifndef SEQWARP_ALIGN_DP_CUH
#define SEQWARP_ALIGN_DP_CUH

#include "lanes.cuh"

namespace seqwarp {

// ---------------------------------------------------------------------------------------------
// 1. constants and small helpers
// ---------------------------------------------------------------------------------------------
constexpr int GLOBAL = 0;
constexpr int SEMI_GLOBAL = 1;
constexpr int LOCAL = 2;
constexpr unsigned FULL = 0xffffffffu;
constexpr int WORST = -2147483647 - 1;

struct End {
    int score;
    int i;  // query end (row)
    int j;  // target end (column)
};

// `N` 32-bit words of shared memory in one load (N = 4: 16 bytes, 2: 8 bytes, 1: 4 bytes)
template <int N>
__device__ __forceinline__ void load_words(const void* p, unsigned (&w)[N]) {
    if constexpr (N == 4) {
        const uint4 x = *reinterpret_cast<const uint4*>(p);
        w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
    } else if constexpr (N == 2) {
        const uint2 x = *reinterpret_cast<const uint2*>(p);
        w[0] = x.x, w[1] = x.y;
    } else {
        w[0] = *reinterpret_cast<const unsigned*>(p);
    }
}

// bytes of {b:a} picked by selector s; a selector nibble with bit 3 set replicates the sign
// of its byte (PTX prmt, default mode)
__device__ __forceinline__ unsigned permute(unsigned a, unsigned b, unsigned s) {
#ifdef SEQWARP_CPU_EMULATOR  // the tests' CPU emulator (tests/emulator)
    return seqwarp_emu::prmt(a, b, s);
#else
    unsigned r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
    return r;
#endif
}

// `N` 32-bit words to global memory: one store for 1, 2 or 4 (the counterpart of load_words)
template <int N>
__device__ __forceinline__ void store_words(void* p, const unsigned (&w)[N]) {
    if constexpr (N == 4) {
        *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
    } else if constexpr (N == 2) {
        *reinterpret_cast<uint2*>(p) = make_uint2(w[0], w[1]);
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k) reinterpret_cast<unsigned*>(p)[k] = w[k];
    }
}

// two ints as the low and high 16-bit halves of one register (a two-pair lane's bit pattern)
__device__ __forceinline__ unsigned halves(int low, int high) {
    return ((unsigned)low & 0xffffu) | (unsigned)high << 16;
}

// TABLE: words of the class table of `classes` letter classes, padded to whole 16-byte loads
__host__ __device__ constexpr int table_words(int classes) {
    return (classes * classes * classes + 3) / 4 * 4;
}

// SPLIT > 1: a warp publishes how many rows of its stripes it has handed on into the counter
// of the warp that reads them (release: the rows' stores come first), in shared memory of
// that warp's block (`rank` in the cluster), and the reading warp waits on its own counter
// (acquire); block scope, or cluster scope when the set spans a cluster
template <int CLUSTER>
__device__ __forceinline__ void publish(int* count, int rank, int value) {
#ifdef SEQWARP_CPU_EMULATOR
    static_assert(CLUSTER == 1, "the tests' CPU emulator runs no clusters");
    __atomic_store_n(count, value, __ATOMIC_RELEASE);
#else
    const unsigned at = (unsigned)__cvta_generic_to_shared(count);
    if constexpr (CLUSTER == 1) {
        asm volatile("st.release.cta.shared.s32 [%0], %1;" ::"r"(at), "r"(value) : "memory");
    } else {
        unsigned remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(at), "r"(rank));
        asm volatile("st.release.cluster.shared::cluster.s32 [%0], %1;" ::"r"(remote), "r"(value)
                     : "memory");
    }
#endif
}

template <int CLUSTER>
__device__ __forceinline__ void wait_for(const int* count, int value) {
#ifdef SEQWARP_CPU_EMULATOR
    while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < value) __nanosleep(64);
#else
    const unsigned at = (unsigned)__cvta_generic_to_shared(count);
    for (;;) {
        int seen;
        if constexpr (CLUSTER == 1) {
            asm volatile("ld.acquire.cta.shared.s32 %0, [%1];" : "=r"(seen) : "r"(at) : "memory");
        } else {
            asm volatile("ld.acquire.cluster.shared::cta.s32 %0, [%1];" : "=r"(seen) : "r"(at)
                         : "memory");
        }
        if (seen >= value) return;
        __nanosleep(64);
    }
#endif
}

// this block's place in its cluster; a launch without the kernel's cluster shape traps (its
// warps would wait for blocks that are not there)
__device__ __forceinline__ int cluster_rank(unsigned expected) {
    unsigned rank, size;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (size != expected) __trap();
    return (int)rank;
}

// every thread of the cluster's blocks (release / acquire: shared-memory writes before it are
// seen after it, and a block's shared memory stays alive until all have arrived)
__device__ __forceinline__ void cluster_barrier() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;"
                 ::: "memory");
}

// an End into block `rank`'s copy of the shared variable at `local`
__device__ __forceinline__ void store_end(void* local, int rank, int score, int i, int j) {
    const unsigned at = (unsigned)__cvta_generic_to_shared(local);
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(at), "r"(rank));
    asm volatile("st.shared::cluster.s32 [%0], %1;\n\tst.shared::cluster.s32 [%0+4], %2;\n\t"
                 "st.shared::cluster.s32 [%0+8], %3;"
                 ::"r"(remote), "r"(score), "r"(i), "r"(j) : "memory");
}

// the tie rule: a beats b when it scores higher, or ties with a smaller (row, column)
__device__ __forceinline__ bool beats(const End& a, const End& b) {
    return a.score > b.score || (a.score == b.score && (a.i < b.i || (a.i == b.i && a.j < b.j)));
}

// the least power of two >= k
__host__ __device__ constexpr int power_of_two_above(int k) {
    return k <= 1 ? 1 : 2 * power_of_two_above((k + 1) / 2);
}

// the slots of a select tree over x whose K is not a power of two: the next power of two,
// the slots past K holding x[K - 1]
template <int K>
__device__ __forceinline__ void pad_slots(const unsigned (&x)[K],
                                          unsigned (&padded)[power_of_two_above(K)]) {
#pragma unroll
    for (int k = 0; k < power_of_two_above(K); ++k) padded[k] = x[k < K ? k : K - 1];
}

// x[c] for a c known only at run time, by a tree of selects on c's bits: registers take
// constant indices only, and a select tree has no branch (c outside [0, K): any x[c']).
// Selects on the bit patterns, so that no lane type's array is placed in local memory. K not
// a power of two: the tree of its pad_slots.
template <int K>
__device__ __forceinline__ unsigned pick_bits(const unsigned (&x)[K], int c) {
    if constexpr (K == 1) {
        return x[0];
    } else if constexpr ((K & (K - 1)) != 0) {
        unsigned padded[power_of_two_above(K)];
        pad_slots<K>(x, padded);
        return pick_bits<power_of_two_above(K)>(padded, c);
    } else {
        unsigned half[K / 2];
#pragma unroll
        for (int k = 0; k < K / 2; ++k) half[k] = (c & 1) ? x[2 * k + 1] : x[2 * k];
        return pick_bits<K / 2>(half, c >> 1);
    }
}

template <class L, int K>
__device__ __forceinline__ typename L::V pick(const typename L::V (&x)[K], int c) {
    unsigned b[K];
#pragma unroll
    for (int k = 0; k < K; ++k) b[k] = L::bits(x[k]);
    return L::from_bits(pick_bits<K>(b, c));
}

// levels of pick_halves' tree over K slots
template <int K>
__host__ __device__ constexpr int pick_levels() {
    return K <= 1 ? 0 : 1 + pick_levels<(K + 1) / 2>();
}

// pick_halves' masks for columns a (low half) and b (high half): level l's mask holds all
// ones in the half whose column has bit l set. Opaque to the compiler (an empty asm), so
// that a loop keeps them in registers rather than deriving them again from a and b in
// every pass (3 instructions a level)
template <int K>
__device__ __forceinline__ void pick_masks(int a, int b, unsigned (&masks)[pick_levels<K>()]) {
#pragma unroll
    for (int l = 0; l < pick_levels<K>(); ++l) {
        masks[l] = ((a >> l) & 1 ? 0x0000ffffu : 0u) | ((b >> l) & 1 ? 0xffff0000u : 0u);
        asm("" : "+r"(masks[l]));
    }
}

// two-pair lanes: the low half of x[a] and the high half of x[b] in one tree of selects,
// each level one bitwise select under a mask (pick_masks), where picking each half on its
// own takes two trees and a permute. K not a power of two: the tree of its pad_slots.
template <int K, int LEVEL = 0, int LEVELS>
__device__ __forceinline__ unsigned pick_halves(const unsigned (&x)[K],
                                                const unsigned (&masks)[LEVELS]) {
    if constexpr (K == 1) {
        return x[0];
    } else if constexpr ((K & (K - 1)) != 0) {
        unsigned padded[power_of_two_above(K)];
        pad_slots<K>(x, padded);
        return pick_halves<power_of_two_above(K), LEVEL>(padded, masks);
    } else {
        unsigned half[K / 2];
#pragma unroll
        for (int k = 0; k < K / 2; ++k)
            half[k] = (x[2 * k + 1] & masks[LEVEL]) | (x[2 * k] & ~masks[LEVEL]);
        return pick_halves<K / 2, LEVEL + 1>(half, masks);
    }
}

// ---------------------------------------------------------------------------------------------
// row pieces shared with align_band.cuh (a fused lane's plain form, a profile of the target)
// ---------------------------------------------------------------------------------------------
// a row's query letters, a byte a pair: pair k's residue query[k][row] (`query[k]`: its query
// less one, so that row 1 is its first residue) through `letter` (the residue code itself, or
// its class in the class table), `pad` below the pair's last row
template <int PAIRS, class Letter>
__device__ __forceinline__ unsigned row_letters(const unsigned char* const (&query)[PAIRS],
                                                const int (&m)[PAIRS], int row, unsigned pad,
                                                Letter letter) {
    unsigned packed = 0;
#pragma unroll
    for (int k = 0; k < PAIRS; ++k)
        packed |= (row <= m[k] ? letter(query[k][row]) : pad) << (8 * k);
    return packed;
}

// bytes per profile load of a thread's K scores: the widest of 16, 8 and 4 that divides them
template <class L, int K>
__host__ __device__ constexpr int profile_load() {
    return (K * (int)sizeof(typename L::P)) % 16 == 0  ? 16
           : (K * (int)sizeof(typename L::P)) % 8 == 0 ? 8
                                                        : 4;
}

// where column c of thread `owner`'s K columns lies in a letter's row of the profile (the
// swizzle profile_scores reads: W elements a load, the G threads' loads of each W columns side
// by side, so that a group's loads fall on distinct banks)
template <int W, int G>
__device__ __forceinline__ int profile_slot(int owner, int c) {
    return ((c / W) * G + owner) * W + c % W;
}

// the substitution scores of a row's letter(s) q (a byte a pair) against the thread's K
// columns, from a profile laid out [pair][letter][swizzled column] over G * K columns (the
// paired lane: [letter][swizzled column], a word holding both pairs' scores); `at`: the
// profile plus the thread's first slot (t * W), so that the G threads' loads fall on
// distinct banks (the paired lane's words of the row of q's first letter: a column's two
// scores, the group's two pairs sharing their query)
template <class L, int K, int G>
__device__ __forceinline__ void profile_scores(const typename L::P* at, unsigned q, int letters,
                                               typename L::V (&sub)[K]) {
    using P = typename L::P;
    constexpr int COLS = G * K;
    constexpr int LOAD = profile_load<L, K>();
    constexpr int W = LOAD / (int)sizeof(P);
#pragma unroll
    for (int v = 0; v < K / W; ++v) {
        const int offset = v * G * W;
        unsigned a[LOAD / 4];
        load_words(at + (q & 0xff) * COLS + offset, a);
        if constexpr (L::PAIRS == 1 || L::PAIRED) {
#pragma unroll
            for (int w = 0; w < LOAD / 4; ++w) sub[v * W + w] = L::from_bits(a[w]);
        } else {
            // lane A's and lane B's scores of a column side by side
            unsigned b[LOAD / 4];
            load_words(at + (letters + ((q >> 8) & 0xff)) * COLS + offset, b);
#pragma unroll
            for (int w = 0; w < LOAD / 4; ++w) {
                if constexpr (sizeof(P) == 2) {
                    sub[v * W + 2 * w] = L::from_bits(permute(a[w], b[w], 0x5410));
                    sub[v * W + 2 * w + 1] = L::from_bits(permute(a[w], b[w], 0x7632));
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const unsigned sel = j | (j | 8) << 4 | (4 + j) << 8 | (12 + j) << 12;
                        sub[v * W + 4 * w + j] = L::from_bits(permute(a[w], b[w], sel));
                    }
                }
            }
        }
    }
}

// direction flag bits a cell ("Direction flags"), and a thread's 32-bit words of them a row
template <bool AFFINE>
__host__ __device__ constexpr int flag_bits() {
    return AFFINE ? 4 : 2;
}
template <bool AFFINE, int K>
__host__ __device__ constexpr int flag_words() {
    return (K * flag_bits<AFFINE>() + 31) / 32;
}
// cells a word of fused_row's `packed` holds (with two pairs, each pair's in its half)
template <bool AFFINE, class L>
__host__ __device__ constexpr int packed_cells() {
    return 32 / (flag_bits<AFFINE>() * L::PAIRS);
}

// The row's dependent chain, shortened where that measured faster on the H200 (the values,
// flags included, are the same either way; `bench/README.md`, "Shorter row chains"):
// with affine gaps, F of a column from u of the column before instead of its hg (go >= ge
// makes them equal), one op a column on the chain instead of two: +2-6 % for local affine
// scores on the profile lanes, -1 % on the class table's, which the ALU pipe bounds; not on
// the rebased lanes, whose long reads' split kernels then spilled at their 128 registers
// (semi-global long reads 2.93 TCUPS kernels with it, 3.21 without)
template <class L>
__host__ __device__ constexpr bool short_f_chain() {
    return !L::TABLE && !L::REBASED;
}
// with linear gaps in the offset form, the running maximum along the row two columns a step
// (a three-way maximum): K / 2 ops on the chain; +6 % for all pairs of 512 bp on 16 x 32
// (a chain of 32 columns), -1 % on the 8 x 20 and 8 x 24 tiles
template <int K>
__host__ __device__ constexpr bool two_column_max() {
    return K >= 32;
}

// local rows of a 16-bit lane without flags that hold hg (linear gaps, or end cells: not
// holds_true_h's) take u from max(diag + s + go, up, 0) - go: the same value (no lane wraps:
// values stay far inside 16 bits), one ALU-pipe instruction instead of two, its adds
// VIADD.16x2, which issue beside the ALU pipe (29 T against 16 T instructions a second mixed
// with VIADDMNMX on the H200: bench/results/align-gpu-viadd-pipe-experiment-h200-2026-12-04.log)
template <int MODE, class L, bool FLAGS>
__host__ __device__ constexpr bool relu_row() {
    return MODE == LOCAL && L::PAIRS == 2 && !FLAGS;
}

// local affine rows of a 16-bit lane without flags hold H itself, not hg = H - go (align_dp's
// `shift`): H = max(H_d + s, E, F, 0) is then one VIMNMX3.RELU, and H - go, which both E of
// the next row and F of the next column take, one VIADD.16x2 beside the ALU pipe: 3
// ALU-pipe instructions a column instead of 4 (CUDASW++4.0's DPX rows take the same form),
// the row's chain F -> H -> H - go three instructions a column. The values are those of the
// hg form plus go; none comes nearer the 16-bit limits than the scores themselves. Scores
// alone (!ENDS) only: with end cells the 8 x 24 kernel took 138 registers instead of 114
// (12 warps a multiprocessor instead of 16), not measured on the device; those keep
// relu_row's form
template <int MODE, bool AFFINE, class L, bool FLAGS, bool ENDS>
__host__ __device__ constexpr bool holds_true_h() {
    return MODE == LOCAL && AFFINE && L::FUSED && L::PAIRS == 2 && !FLAGS && !ENDS;
}

// offset-form rows of a 16-bit lane without flags as G = max(G_d + s', up, side): the add a
// VIADD.16x2 beside the ALU pipe and the maxima one VIMNMX3, one ALU-pipe instruction a
// column fewer (with affine gaps F' then comes from G of the column before, a longer chain
// along the row than short_f_chain's, and still faster): 512 bp global linear kernels +14 %,
// global affine +4 %, semi-global +8-11 %
// (bench/results/align-gpu-max3-rows-experiment-h200-2026-12-04.log). Not on split warps
// nor the rebased lane (long pairs): there the longer chain, with 8 warps a pair set, and
// the spills it brought at 128 registers (the rebased semi-global kernel 40 -> 156 bytes of
// spill loads) made PBSIM reads' semi-global affine kernels 3.21 -> 2.68 TCUPS
template <bool AFFINE, class L, int K, bool FLAGS, int SPLIT>
__host__ __device__ constexpr bool max3_row() {
    return L::PAIRS == 2 && !FLAGS && !L::REBASED && SPLIT == 1 &&
           (AFFINE || !two_column_max<K>());
}

// rows of the wavefront one pass of the row loop computes: two where that measured faster on
// the H200 (the loop's bookkeeping, the window check and the register moves between rows
// shared by two rows), one elsewhere. Score kernels, each family timed against one row a pass
// in one process, every result equal
// (bench/results/align-gpu-two-rows-experiment-h200-2026-12-04.log): the class table +3.7 to
// +6.1 % (the protein search's queries of 100-1000 residues), local affine scores alone
// (holds_true_h) +0.9 to +4.6 % on the byte profile (125-4096 bp) and -1.0 / -0.1 / +3.8 % on
// the paired one (all pairs of 125 / 250 / 512 bp reads), global linear scores on tiles of 24
// or 32 columns a thread +0.7 to +3.2 % (512-4096 bp; 20 columns -5 to -6 %, at 125 and 250 bp),
// split warps in the offset and rebased forms (the PBSIM reads' kernels: 8 warps a pair set
// on 32 columns a thread, on clusters of 1, 2 and 4 blocks) global affine +5.0 % and
// semi-global affine +2.1 % (with more spills at their 128 registers; each launch alone 1-4 %
// shorter; the other lanes' split kernels in these forms take the same, not measured apart).
// One row for global affine scores of one group (-4 % at 2 and 4 kbp), semi-global affine of
// one group (-8 % at 512 bp), the DNA profiles' local scores with their end cells (-1 to
// +2 %) and, not measured, direction flags, split kernels outside the offset form and the
// rebased lane's one-group kernels
template <int MODE, bool AFFINE, class L, int K, bool FLAGS, int SPLIT, bool ENDS>
__host__ __device__ constexpr int rows_a_pass() {
    if (FLAGS) return 1;
    if (SPLIT > 1) return L::OFFSET ? 2 : 1;
    if (L::REBASED) return 1;
    if (L::TABLE || holds_true_h<MODE, AFFINE, L, FLAGS, ENDS>()) return 2;
    return L::OFFSET && MODE == GLOBAL && !AFFINE && K >= 24 ? 2 : 1;
}

// holds_true_h's row of the thread's K cells: hg holds H, and e enters as E of row i and
// leaves as that of row i + 1, computed here from the row's H - go (not at the next row from
// H: one add a cell for both E and F). `diag_left` and `left`: H of the left neighbour's last
// column at rows i - 1 and i; `f` enters as its F and leaves as this thread's last column's
template <class L, int K>
__device__ __forceinline__ void true_h_row(typename L::V (&hg)[K], typename L::V (&e)[K],
                                           typename L::V (&sub)[K], typename L::V diag_left,
                                           typename L::V left, typename L::V& f,
                                           typename L::V v_go, typename L::V v_ge) {
    using V = typename L::V;
#pragma unroll
    for (int c = 0; c < K; ++c) sub[c] = L::add(c == 0 ? diag_left : hg[c - 1], sub[c]);
    V gap_left = L::add(left, v_go);  // H - go of the column before
#pragma unroll
    for (int c = 0; c < K; ++c) {
        f = L::add_max(f, v_ge, gap_left);  // F = max(F[i][j-1] - ge, H[i][j-1] - go)
        hg[c] = L::max3_relu(sub[c], e[c], f);
        gap_left = L::add(hg[c], v_go);
        e[c] = L::add_max(e[c], v_ge, gap_left);  // E[i+1][j], off the chain
    }
}

// one row of the thread's K cells, a fused lane in the plain form (the recurrence at the top):
// first what needs only row i - 1 (independent across columns; sub[c] becomes u), then the
// chain along the row, which overwrites hg in place. `diag_left` and `left`: hg of the left
// neighbour's last column at rows i - 1 and i; `f` enters as its F and leaves as this thread's
// last column's. FLAGS: each cell's bits (see "Direction flags") into `packed`,
// packed_cells() cells a word, each pair's at its lowest bit
template <int MODE, bool AFFINE, class L, int K, bool FLAGS, int WORDS>
__device__ __forceinline__ void fused_row(typename L::V (&hg)[K], typename L::V (&e)[K],
                                          typename L::V (&sub)[K], typename L::V diag_left,
                                          typename L::V left, typename L::V& f,
                                          typename L::V v_go, typename L::V v_ge,
                                          unsigned (&packed)[WORDS]) {
    using V = typename L::V;
    unsigned part[FLAGS ? K : 1];
    V go{};  // relu_row: +go in each lane
    if constexpr (relu_row<MODE, L, FLAGS>()) go = L::from_bits(__vneg2(L::bits(v_go)));
#pragma unroll
    for (int c = 0; c < K; ++c) {
        const V diag = c == 0 ? diag_left : hg[c - 1];
        const V hg_up = hg[c];
        if constexpr (AFFINE) e[c] = L::add_max(e[c], v_ge, hg[c]);
        const V up = AFFINE ? e[c] : hg[c];
        // u = max(diag + s, up - go)  (local: and -go, i.e. H >= 0)
        if constexpr (relu_row<MODE, L, FLAGS>()) {
            // u + go = max(diag + s + go, up, 0): one VIADDMNMX.RELU on the ALU pipe and two
            // VIADD.16x2 beside it, for the two maxima of the form below
            const V ds = L::add(diag, sub[c]);
            sub[c] = L::add(L::add_max_relu(ds, go, up), v_go);
        } else {
            const V ds = MODE == LOCAL ? L::add_max(diag, sub[c], v_go) : L::add(diag, sub[c]);
            sub[c] = L::add_max(up, v_go, ds);
            if constexpr (FLAGS) {
                part[c] = L::differs(sub[c], ds);
                if constexpr (AFFINE) part[c] += L::differs(e[c], hg_up) << 2;
            }
        }
    }
    constexpr int CELLS = packed_cells<AFFINE, L>();
    V h_left = left;
#pragma unroll
    for (int c = 0; c < K; ++c) {
        // F = max(F[i][j-1] - ge, hg[i][j-1]); as hg[i][j-1] = max(F[i][j-1] - go, u[j-1]) and
        // go >= ge, F = max(F[i][j-1] - ge, u[j-1]) past the first column (short_f_chain)
        if constexpr (AFFINE)
            f = L::add_max(f, v_ge, c == 0 || !short_f_chain<L>() ? h_left : sub[c - 1]);
        const V side = AFFINE ? f : h_left;
        hg[c] = L::add_max(side, v_go, sub[c]);  // max(side - go, u)
        if constexpr (FLAGS) {
            unsigned word = part[c] + (L::differs(hg[c], sub[c]) << 1);
            if constexpr (AFFINE) word += L::differs(f, h_left) << 3;
            packed[c / CELLS] += word << (flag_bits<AFFINE>() * (c % CELLS));
        }
        h_left = hg[c];
    }
}

// FLAGS: pair k's flags of a row of K cells in whole words, from fused_row's `packed` (two
// pairs: each one's halves side by side; an odd number of packed words: the last word's high
// half is 0)
template <class L, int WORDS, int FLAG_WORDS>
__device__ __forceinline__ void pair_flags(const unsigned (&packed)[WORDS], int k,
                                           unsigned (&words)[FLAG_WORDS]) {
#pragma unroll
    for (int w = 0; w < FLAG_WORDS; ++w) {
        if constexpr (L::PAIRS == 1) {
            words[w] = packed[w];
        } else {
            const unsigned high = 2 * w + 1 < WORDS ? packed[2 * w + 1] : 0u;
            words[w] = permute(packed[2 * w], high, k ? 0x7632 : 0x5410);
        }
    }
}

// the best of a group's G threads' end cells (the tie rule), in every thread of the group
template <int G>
__device__ __forceinline__ End group_best(End e_best) {
#pragma unroll
    for (int delta = G / 2; delta > 0; delta /= 2) {
        const End other{__shfl_xor_sync(FULL, e_best.score, delta, G),
                        __shfl_xor_sync(FULL, e_best.i, delta, G),
                        __shfl_xor_sync(FULL, e_best.j, delta, G)};
        if (beats(other, e_best)) e_best = other;
    }
    return e_best;
}

// local mode: each pair whose row maximum beats the thread's best of its columns (strictly:
// the first row stays) keeps `row` (the row, or align_dp's step, from which the row follows)
// and a snapshot of the thread's K registers, stored under a predicate (no blends on the ALU
// pipe, no registers held); snapshot `at(k, v)`: pair k's words 4v .. 4v + 3
template <class L, int K, class At>
__device__ __forceinline__ void track_local_best(const typename L::V (&hg)[K],
                                                 typename L::V& local_best,
                                                 int (&local_row)[L::PAIRS], int row,
                                                 uint4* snapshots, At at) {
    typename L::V row_max = hg[0];
#pragma unroll
    for (int c = 1; c < K; ++c) row_max = L::max2(row_max, hg[c]);
    bool grew[L::PAIRS];
    local_best = L::improve(local_best, row_max, grew);
#pragma unroll
    for (int k = 0; k < L::PAIRS; ++k) {
        if (grew[k]) {
            local_row[k] = row;
#pragma unroll
            for (int v = 0; v < K / 4; ++v) {
                const unsigned w[4] = {L::bits(hg[4 * v]), L::bits(hg[4 * v + 1]),
                                       L::bits(hg[4 * v + 2]), L::bits(hg[4 * v + 3])};
                store_words<4>(snapshots + at(k, v), w);
            }
        }
    }
}

// local mode, once the thread leaves its columns c0 + 1 .. c0 + K: the first column of the
// snapshot row that holds each pair's best of them, an end cell candidate
template <class L, int K, class At>
__device__ __forceinline__ void local_best_candidates(typename L::V local_best,
                                                      const int (&local_row)[L::PAIRS], int c0,
                                                      int shift, const uint4* snapshots, At at,
                                                      End (&best)[L::PAIRS]) {
#pragma unroll
    for (int k = 0; k < L::PAIRS; ++k) {
        const int b = L::lane(local_best, k);  // H - shift of the best cell
        if (b + shift > 0) {
            int j = 0;
#pragma unroll
            for (int v = K / 4 - 1; v >= 0; --v) {
                unsigned w[4];
                load_words<4>(snapshots + at(k, v), w);
#pragma unroll
                for (int c = 3; c >= 0; --c)
                    if (L::lane(L::from_bits(w[c]), k) == b) j = c0 + 4 * v + c + 1;
            }
            const End cand{b + shift, local_row[k], j};
            if (beats(cand, best[k])) best[k] = cand;
        }
    }
}

// the PAIRS pairs of pair set `group` (a missing pair has length 0 and no output), and the
// longest query and target over the warp: loop bounds uniform over the warp, so that
// shuffles always see all 32 threads
template <int PAIRS>
__device__ __forceinline__ void load_pairs(long long group, int n_pairs,
                                           const int* __restrict__ q_len,
                                           const int* __restrict__ t_len,
                                           const long long* __restrict__ q_start,
                                           const long long* __restrict__ t_start,
                                           long long (&pid)[PAIRS], long long (&qs)[PAIRS],
                                           long long (&ts)[PAIRS], int (&m)[PAIRS],
                                           int (&n)[PAIRS], int& Mw, int& Nw) {
    int M = 0, N = 0;
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        pid[k] = group * PAIRS + k;
        const bool real = pid[k] < n_pairs;
        m[k] = real ? q_len[pid[k]] : 0;
        n[k] = real ? t_len[pid[k]] : 0;
        qs[k] = real ? q_start[pid[k]] : 0;
        ts[k] = real ? t_start[pid[k]] : 0;
        M = max(M, m[k]);
        N = max(N, n[k]);
    }
    Mw = (int)__reduce_max_sync(FULL, (unsigned)M);
    Nw = (int)__reduce_max_sync(FULL, (unsigned)N);
}

// global / semi-global: the first of a thread's end rows below row `row` (-1: none), so that a
// row tests one of them
template <int PAIRS>
__device__ __forceinline__ int end_row_after(const int (&end_row)[PAIRS], int row) {
    int next = -1;
#pragma unroll
    for (int k = 0; k < PAIRS; ++k)
        if (end_row[k] > row && (next < 0 || end_row[k] < next)) next = end_row[k];
    return next;
}

// semi-global: hg of column n of each pair whose column n this thread holds (columns c0 + 1
// ... c0 + K), a lane a pair (two pairs: by pick_halves on the stripe's masks of their
// columns), and in `open` the lanes whose row i lies above row m
template <class L, int K>
__device__ __forceinline__ typename L::V last_column(const typename L::V (&hg)[K],
                                                     const int (&n)[L::PAIRS],
                                                     const int (&m)[L::PAIRS], int c0, int i,
                                                     const unsigned (&masks)[pick_levels<K>()],
                                                     unsigned& open) {
    open = i < m[0] ? FULL : 0u;
    if constexpr (L::PAIRS == 2) {
        unsigned bits[K];
#pragma unroll
        for (int c = 0; c < K; ++c) bits[c] = L::bits(hg[c]);
        open = (open & 0xffffu) | (i < m[1] ? 0xffff0000u : 0u);
        return L::from_bits(pick_halves<K>(bits, masks));
    }
    return pick<L, K>(hg, n[0] - c0 - 1);
}

// semi-global: in the lanes of `lanes` where x beats the best of column n so far (strictly:
// the first row stays), x and row i become the best and its row (a row a lane)
template <class L>
__device__ __forceinline__ void keep_greater(typename L::V x, unsigned lanes, int i,
                                             typename L::V& last_best, unsigned& last_row) {
    const unsigned mask = L::gt_mask(x, last_best) & lanes;
    last_best = L::blend(mask, x, last_best);
    const unsigned row = L::PAIRS == 1 ? (unsigned)i : (unsigned)i * 0x10001u;
    last_row = (row & mask) | (last_row & ~mask);
}

// semi-global, row m: the best of pair k's row in the thread's columns c0 + 1 .. c0 + K (the
// first on ties) as an end cell candidate; value(c): column c0 + c + 1's H - go in pair k's
// lane (the form's own offsets removed)
template <int K, class Value>
__device__ __forceinline__ void last_row_candidate(int c0, int n, int i, int go, Value value,
                                                   End& best) {
    int x_best = WORST, j_best = 0;
#pragma unroll
    for (int c = 0; c < K; ++c) {
        const int x = value(c);
        if (c0 + c + 1 <= n && x > x_best) {
            x_best = x;
            j_best = c0 + c + 1;
        }
    }
    const End cand{x_best + go, i, j_best};
    if (j_best > 0 && beats(cand, best)) best = cand;
}

// threads of a block of the kernels (align_score.cu, align_trace.cu): 128, 384 for the
// class-table lane (its table is one a block), a warp for each of SPLIT warps sharing a pair set
template <class L, int SPLIT>
__host__ __device__ constexpr int block_threads() {
    return SPLIT > 1 ? 32 * SPLIT : L::TABLE ? 384 : 128;
}

// H on row 0 / column 0, k residues into the other sequence
template <int MODE>
__device__ __forceinline__ int boundary(int k, int go, int ge) {
    return (MODE != GLOBAL || k == 0) ? 0 : -(go + (k - 1) * ge);
}

// the same cell in the anti-diagonal offset form, G = H + k * ge on row 0 / column 0
template <int MODE>
__device__ __forceinline__ int offset_boundary(int k, int go, int ge) {
    return boundary<MODE>(k, go, ge) + k * ge;
}

// ---------------------------------------------------------------------------------------------
// 2. the body of the kernels
// ---------------------------------------------------------------------------------------------
// codes        all residues (queries and targets) in one buffer
// q_start/...  per pair: first residue of the query / target in `codes`, and lengths (>= 1)
// matrix       alpha x alpha substitution scores, row = query letter
// scratch      per group: two buffers of (rows + 1) x (hg, F) bit patterns, the last column of
//              a stripe handed to the next stripe (read only when the target needs > 1 stripe);
//              SPLIT > 1: two such buffers per warp of the pair set
// out          per pair: score, query end, target end
// flags        FLAGS only: the direction flags, at flag_offset[pair] (16-byte aligned)
template <int MODE, bool AFFINE, class L, int K, int G, bool FLAGS, int SPLIT = 1,
          int CLUSTER = 1, bool ENDS = true>
__device__ __forceinline__ void align_dp(
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
    unsigned* __restrict__ scratch,
    long long scratch_stride,
    int* __restrict__ out,
    unsigned char* __restrict__ flags,
    const long long* __restrict__ flag_offset) {
    using V = typename L::V;
    using P = typename L::P;
    constexpr int PAIRS = L::PAIRS;
    constexpr int COLS = G * K;                            // columns per stripe
    constexpr int W = profile_load<L, K>() / (int)sizeof(P);  // profile elements per load
    constexpr int FLAG_WORDS = flag_words<AFFINE, K>();   // FLAGS: a thread's words of a row
    static_assert(K % 4 == 0, "K must be a multiple of 4");
    static_assert(!FLAGS || L::FUSED, "direction flags need a fused add+max lane");
    static_assert(SPLIT == 1 || (G == 32 && !FLAGS), "split pair sets take whole warps, no flags");
    static_assert(CLUSTER == 1 || SPLIT > 1, "a cluster shares split pair sets");
    constexpr int WARPS = SPLIT * CLUSTER;                 // warps sharing a pair set

    extern __shared__ __align__(16) unsigned char smem[];
    // LOCAL: each thread's snapshots of its registers (below, "end cells"); pair k's, words
    // 4v .. 4v + 3 of a thread, at slot snapshot_at(k, v), the block's threads side by side (a
    // store instruction is 4 conflict-free wavefronts)
    constexpr int THREADS = block_threads<L, SPLIT>();
    __shared__ uint4 snapshots[MODE == LOCAL && ENDS ? PAIRS * K / 4 * THREADS : 1];
    auto snapshot_at = [&](int k, int v) { return (k * (K / 4) + v) * THREADS + threadIdx.x; };
    // SPLIT > 1: per warp of the block, the rows handed to it so far (by the warp before it)
    __shared__ int handed_rows[SPLIT];
    // TABLE: `alpha` is the number of letter classes C (the last one the padding letter) and
    // `matrix` the block's table followed by each residue code's class: table_words(C) words,
    // word [q][a * C + b] = s(q, a) | s(q, b) << 16 (0 where a letter is the padding; the
    // offset form's scores plus 2 ge), built once on the host (_gpu_backend.class_words) and
    // copied 16 bytes a load before any group's work (computed by every block, it took 3 % of
    // the benchmark's protein search and 9 % of a 100-residue query's kernel time)
    if constexpr (L::TABLE) {
        const uint4* from = reinterpret_cast<const uint4*>(matrix);
        uint4* into = reinterpret_cast<uint4*>(smem);
        for (int idx = threadIdx.x; idx < table_words(alpha) / 4; idx += blockDim.x)
            into[idx] = from[idx];
        __syncthreads();
    }
    const int t = threadIdx.x % G;                         // thread index inside the group
    const int group_in_block = threadIdx.x / G;
    // a cluster is CLUSTER consecutive blocks; rank: the block's place in it
    const int rank = CLUSTER > 1 ? cluster_rank(CLUSTER) : 0;
    // the block's (or cluster's) pair set with SPLIT > 1, else the group's; member: this
    // warp's place in the set
    const long long group = SPLIT > 1 ? (long long)(blockIdx.x / CLUSTER)
                                      : (long long)blockIdx.x * (blockDim.x / G) + group_in_block;
    const int member = SPLIT > 1 ? rank * SPLIT + group_in_block : 0;
    // the warp that reads what this one hands on
    const int downstream = (member + 1) % WARPS;
    if constexpr (SPLIT > 1) {
        if (threadIdx.x < SPLIT) handed_rows[threadIdx.x] = 0;
        if constexpr (CLUSTER > 1) {
            cluster_barrier();
        } else {
            __syncthreads();
        }
    }
    constexpr bool TABLE = L::TABLE;
    static_assert(!TABLE || (PAIRS == 2 && !FLAGS), "the class table serves two-pair scores");
    const int letters = TABLE ? alpha : alpha + 1;         // + the padding letter (scores 0)
    const int pad = letters - 1;
    const int* const class_of = matrix + table_words(alpha);  // TABLE only
    const int table_row = alpha * alpha * 4;               // TABLE: bytes of one query class
    constexpr bool PAIRED = L::PAIRED;
    static_assert(!PAIRED || (PAIRS == 2 && !FLAGS), "the paired profile serves two-pair scores");
    constexpr int PROFILES = PAIRED ? 1 : PAIRS;           // a paired word holds both pairs'
    P* prof = reinterpret_cast<P*>(smem) + (size_t)group_in_block * PROFILES * letters * COLS;

    // the PAIRS pairs of this group
    long long pid[PAIRS], qs[PAIRS], ts[PAIRS];
    int m[PAIRS], n[PAIRS], Mw, Nw;
    load_pairs(group, n_pairs, q_len, t_len, q_start, t_start, pid, qs, ts, m, n, Mw, Nw);
    if (Nw == 0) return;
    // TABLE: whether every group of the warp aligns its two pairs to one query (a missing
    // second pair counts as sharing it): one table load then gives a cell's two scores
    // (PAIRED: the host gives the lane such groups only)
    const bool one_query =
        TABLE && __all_sync(FULL, (qs[0] == qs[PAIRS - 1] && m[0] == m[PAIRS - 1]) ||
                                      m[PAIRS - 1] == 0);

    constexpr bool OFFSET = L::OFFSET;
    static_assert(!OFFSET || (L::FUSED && !FLAGS && MODE != LOCAL),
                  "the offset form is for global and semi-global scores on fused lanes");
    // REBASED: the registers hold values less base[k] (pair k's lane), moved every
    // REBASE_EVERY rows; the handed-on column goes as int32 values (4 words a row)
    constexpr bool REBASED = L::REBASED;
    constexpr int REBASE_EVERY = 64;
    // the column goes on in windows of rows (below) from the offset form's one-group kernels
    // (global and semi-global scores: +2-7 % on three stripes and more) and the rebased lane's
    // split warps; row by row from the rest: with windows the local kernels measured -2 to
    // +2 % (and -5 % on one stripe, from the code around them), the class table -1 %, the
    // traceback's fills +-0.5 %; the offset form's wide split kernel would take 147 registers
    // instead of 128 (past 2 blocks a multiprocessor), and the other split kernels are not
    // measured with it
    constexpr bool HAND_WINDOWS = OFFSET && (SPLIT == 1 || REBASED);
    static_assert(!HAND_WINDOWS || REBASE_EVERY % G == 0, "a rebase starts a window of rows");
    static_assert(HAND_WINDOWS || !REBASED, "the rebased lane hands its column on in windows");
    // row by row, rows are published one at a time in a block; across a cluster every 32
    // rows (and the last), as each publication there waits for the rows' stores to reach the
    // other SMs
    constexpr int PUBLISH_EVERY = CLUSTER > 1 ? 32 : 1;
    constexpr int HANDED_WORDS = REBASED ? 4 : 2;
    const V v_go = L::splat(-go);                          // - gap open
    // the registers hold H - shift (the plain form's hg = H - go, or holds_true_h's H)
    constexpr bool TRUE_H = holds_true_h<MODE, AFFINE, L, FLAGS, ENDS>();
    const int shift = TRUE_H ? 0 : go;
    const V v_reopen = L::splat(ge - go);                  // offset form: opening less extending
    const V v_ge = L::splat(-ge);                          // - gap extend
    const V v_neg = L::neg();                              // minus infinity of the lane
    End best[PAIRS];
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) best[k] = End{MODE == LOCAL ? 0 : WORST, 0, 0};

    const int stripes = (Nw + COLS - 1) / COLS;
    // the column handed into stripe S >= 1: written by the warp of stripe S - 1, in one of its
    // two buffers (by the parity of that warp's stripe count; SPLIT = 1: of S)
    const long long half_stride = scratch_stride / (2 * WARPS);
    auto handed_into = [&](int S) {
        if constexpr (SPLIT == 1) return scratch + group * scratch_stride + (S & 1) * half_stride;
        const int from = (S - 1) % WARPS, round = (S - 1) / WARPS;
        return scratch + group * scratch_stride + (2 * from + ((round + 1) & 1)) * half_stride;
    };
    for (int stripe = member; stripe < stripes; stripe += WARPS) {
        const int s0 = stripe * COLS;                      // columns s0+1 .. s0+COLS
        const int c0 = s0 + t * K;                         // this thread: columns c0+1 .. c0+K
        unsigned* sc_read = handed_into(SPLIT == 1 ? stripe : max(stripe, 1));
        unsigned* sc_write = handed_into(stripe + 1);
        // SPLIT > 1: rows handed on before this stripe by the warp of the stripe before it
        // (each of its stripes hands on Mw rows) and by this warp
        const int read_base = ((stripe - 1) / WARPS) * Mw;
        const int write_base = (stripe / WARPS) * Mw;

        // --- the subject profile of this stripe: prof[pair][letter][swizzled column] -------
        // (TABLE: instead, each column's byte offset in a row of the table)
        int column_at[TABLE ? K : 1];
        if constexpr (TABLE) {
#pragma unroll
            for (int c = 0; c < K; ++c) {
                const int j = c0 + c;                      // 0-based target residue
                const int a = j < n[0] ? class_of[codes[ts[0] + j]] : pad;
                const int b = j < n[1] ? class_of[codes[ts[1] + j]] : pad;
                column_at[c] = (a * alpha + b) * 4;
            }
        }
        __syncwarp();
        // a column a thread at a time, its residues and swizzled slot found once for all its
        // letters, one letter an iteration (a letter and column an iteration spent most of its
        // instructions on index arithmetic: a tenth of a 512 bp kernel's, by Nsight Compute's
        // counts; on one H200 the 125 bp score kernels +7.8 %, 512 bp -0.8 to +3.1 %; the
        // letters unrolled by ptxas 0.5-2.3 % slower than one at a time)
        for (int col = t; !TABLE && col < COLS; col += G) {
            const int owner = col / K, c = col % K;
            const int at = profile_slot<W, G>(owner, c);  // in each letter's row
            const int j = s0 + col;                        // 0-based target residue
            const int* column[PAIRS];                      // the residue's matrix column
#pragma unroll
            for (int k = 0; k < PAIRS; ++k) column[k] = j < n[k] ? matrix + codes[ts[k] + j] : nullptr;
#pragma unroll 1
            for (int letter = 0; letter < letters; ++letter) {
                const int slot = letter * COLS + at;
                int score[PAIRS];
#pragma unroll
                for (int k = 0; k < PAIRS; ++k) {
                    // padding: substitution 0 (offset form: 0 in G, so G never grows there)
                    score[k] = L::FUSED ? 0 : go;
                    if (letter < alpha && column[k] != nullptr)
                        score[k] += column[k][letter * alpha] + (OFFSET ? 2 * ge : 0);
                }
                if constexpr (PAIRED) {
                    prof[slot] = halves(score[0], score[PAIRS - 1]);
                } else {
#pragma unroll
                    for (int k = 0; k < PAIRS; ++k)
                        prof[k * letters * COLS + slot] = L::to_profile(score[k]);
                }
            }
        }
        __syncwarp();

        // --- row 0 of this stripe's columns ---------------------------------------------------
        // REBASED: the stripe starts with both pairs' base at G[0][s0 + 1]
        int base[PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; ++k) base[k] = REBASED ? offset_boundary<MODE>(s0 + 1, go, ge) : 0;
        V hg[K], e[K];
#pragma unroll
        for (int c = 0; c < K; ++c) {
            hg[c] = L::splat(OFFSET ? offset_boundary<MODE>(c0 + c + 1, go, ge) - base[0]
                                    : boundary<MODE>(c0 + c + 1, go, ge) - shift);
            // TRUE_H: E of row 1, as true_h_row keeps it
            e[c] = TRUE_H ? L::splat(boundary<MODE>(c0 + c + 1, go, ge) - go) : v_neg;
        }
        V diag_left = L::splat(OFFSET ? offset_boundary<MODE>(c0, go, ge) - base[0]
                                      : boundary<MODE>(c0, go, ge) - shift);  // hg[i-1][c0]
        V left = v_neg, f_left = v_neg;                   // hg[i][c0], F[i][c0] from the left
        // local: the running best, from H = 0 (ENDS: snapshots record only rows that
        // beat it); without ends from the lane's floor (H >= 0 comes from best's start at 0):
        // from -go, CUDA 13's ptxas compiled the linear kernels' fold of their first row as a
        // VIMNMX3 with +go (the uniform register of go without its negation)
        V local_best = ENDS ? L::splat(-shift) : v_neg;
        int local_row[PAIRS] = {};                        // local: the step of each one
        // global / semi-global: whether this thread holds column n of a pair, and the row at
        // which it records an end (-1: none)
        int end_row[PAIRS];
        bool any_last = false;
        // semi-global: the lanes of the pairs whose column n this thread holds, the best hg
        // of that column above row m and the first row holding it (one row per lane); they
        // are compared with the pair's best once, after the rows
        unsigned last_lanes = 0, last_row = 0;
        V last_best = v_neg;
        // semi-global, two pairs: the select masks of their column n among the thread's
        unsigned last_masks[pick_levels<K>()];
        if constexpr (MODE == SEMI_GLOBAL && PAIRS == 2)
            pick_masks<K>(n[0] - c0 - 1, n[1] - c0 - 1, last_masks);
        // REBASED: the same in int32 (H - go of the best cell and its row, per pair)
        int last_int[PAIRS], last_int_row[PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; ++k) last_int[k] = WORST, last_int_row[k] = 0;
        // offset form: -(n + i) * ge - go per lane at row i (here row 0), to take G back to hg
        V last_shift = L::splat(-(n[0] * ge + go));
        if constexpr (PAIRS == 2)
            last_shift = L::from_bits(halves((int)L::bits(last_shift), -(n[1] * ge + go)));
#pragma unroll
        for (int k = 0; k < PAIRS; ++k) {
            const bool has_last = n[k] > c0 && n[k] <= c0 + K;
            any_last = any_last || has_last;
            end_row[k] = (MODE == GLOBAL ? has_last : c0 < n[k]) ? m[k] : -1;
            if (has_last) last_lanes |= PAIRS == 1 ? FULL : 0xffffu << (16 * k);
        }
        int next_end = end_row_after(end_row, 0);

        // --- windows of G rows: query letters (and the handed-on column for thread 0) -------
        // window w holds row w*G + 1 + t in thread t; `cur` is the window of the current
        // iteration (thread 0 takes its rows from it), `next` is loaded a whole window ahead
        const unsigned char* query[PAIRS];
#pragma unroll
        for (int k = 0; k < PAIRS; ++k) query[k] = codes + qs[k] - 1;
        // (TABLE: the class loads right after the code's, which waits for it once a window;
        // codes loaded two windows ahead and their classes one, so that no load is waited for,
        // ran the protein search 3-4 % slower: a value more to hold, more work a window)
        auto letter_of = [&](int row) {
            return row_letters(query, m, row, pad, [&](unsigned char code) {
                return TABLE ? (unsigned)class_of[code] : (unsigned)code;
            });
        };
        const bool handed = stripe > 0;
        // HAND_WINDOWS: row `row` of the column handed on, from bit patterns of hg and F:
        // REBASED (hg A, hg B, F A, F B) as int32 values, else the bit patterns (linear gaps:
        // hg alone; the reader takes F from its second word with affine gaps only)
        auto hand_row = [&](int row, unsigned h, unsigned fv) {
            if constexpr (REBASED) {
                const V hv = L::from_bits(h), fvv = L::from_bits(fv);
                const unsigned w[4] = {(unsigned)(L::lane(hv, 0) + base[0]),
                                       (unsigned)(L::lane(hv, 1) + base[1]),
                                       (unsigned)(L::lane(fvv, 0) + base[0]),
                                       (unsigned)(L::lane(fvv, 1) + base[1])};
                store_words<4>(sc_write + 4 * row, w);
            } else if constexpr (AFFINE) {
                const unsigned w[2] = {h, fv};
                store_words<2>(sc_write + 2 * row, w);
            } else {
                sc_write[2 * row] = h;
            }
        };
        auto column_of = [&](int row, unsigned (&x)[HANDED_WORDS]) {
            if (handed && row <= Mw) {
                if constexpr (SPLIT > 1) wait_for<CLUSTER>(&handed_rows[group_in_block], read_base + row);
                const unsigned* at = sc_read + HANDED_WORDS * row;
                if constexpr (REBASED && CLUSTER > 1) {  // written on another SM: from L2
                    const uint4 w = __ldcg(reinterpret_cast<const uint4*>(at));
                    x[0] = w.x, x[1] = w.y, x[2] = w.z, x[3] = w.w;
                } else if constexpr (REBASED) {
                    load_words<4>(at, x);
                } else if constexpr (CLUSTER > 1) {
                    x[0] = __ldcg(at);
                    x[1] = __ldcg(at + 1);
                } else {
                    x[0] = at[0];
                    x[1] = HAND_WINDOWS && !AFFINE ? 0u : at[1];  // hand_row: hg alone
                }
            } else {
#pragma unroll
                for (int w = 0; w < HANDED_WORDS; ++w) x[w] = 0;
            }
        };
        unsigned q_cur = letter_of(1 + t), q_next = letter_of(G + 1 + t);
        unsigned q = 0;  // this thread's row letter(s)
        unsigned kept_h = 0, kept_f = 0;  // HAND_WINDOWS: a row of the handed-on column
        unsigned col_cur[HANDED_WORDS], col_next[HANDED_WORDS];
        column_of(1 + t, col_cur);
        column_of(G + 1 + t, col_next);

        // hg of column 0 at thread 0's row (s + 1): -(go + s * ge) - go in global mode, else -go
        // (offset form: G of column 0, ge - go in global mode, (s + 1) * ge else)
        unsigned edge_bits = L::bits(L::splat(OFFSET ? offset_boundary<MODE>(1, go, ge) - base[0]
                                                     : boundary<MODE>(1, go, ge) - shift));
        const int iterations = Mw + G - 1;
        // whether this thread hands its last column on to the next stripe, row by row
        const bool hands_on = !HAND_WINDOWS && t == G - 1 && stripe + 1 < stripes;
#pragma unroll(rows_a_pass<MODE, AFFINE, L, K, FLAGS, SPLIT, ENDS>())
        for (int s = 0; s < iterations; ++s) {
            const int s_in = s % G;
            if (s_in == 0 && s > 0) {
                q_cur = q_next;
                q_next = letter_of(s + G + 1 + t);
#pragma unroll
                for (int w = 0; w < HANDED_WORDS; ++w) col_cur[w] = col_next[w];
                column_of(s + G + 1 + t, col_next);
            }
            if constexpr (REBASED) {
                // every REBASE_EVERY rows of thread 0 (uniform over the group): the base moves
                // to its first cell, G[s][s0 + 1], and every value held moves by as much
                if (s > 0 && s % REBASE_EVERY == 0 && s <= Mw) {
                    const unsigned moved = __shfl_sync(FULL, L::bits(hg[0]), 0, G);
                    const int a = L::lane(L::from_bits(moved), 0), b = L::lane(L::from_bits(moved), 1);
                    base[0] += a;
                    base[1] += b;
                    const V down = L::from_bits(halves(-a, -b));
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        hg[c] = L::add(hg[c], down);
                        if constexpr (AFFINE) e[c] = L::add(e[c], down);
                    }
                    diag_left = L::add(diag_left, down);
                    left = L::add(left, down);
                    f_left = L::add(f_left, down);
                    edge_bits = L::bits(L::add(L::from_bits(edge_bits), down));
                }
            }
            const int i = s - t + 1;                       // this thread's row
            // the row letters move down the group with the rows: thread t takes thread t - 1's
            // of the step before, thread 0 the next row's from the window
            const unsigned from_window = __shfl_sync(FULL, q_cur, s_in, G);
            const unsigned from_above = __shfl_up_sync(FULL, q, 1, G);
            q = t == 0 ? from_window : from_above;
            // thread 0's left neighbour: column 0 (stripe 0) or the handed-on column; selects,
            // not branches, so the warp never splits here
            unsigned col_h = edge_bits, col_f = L::bits(v_neg);
            if (handed) {                                  // uniform over the warp
                if constexpr (REBASED) {
                    // int32 values, less this group's bases
                    auto relative = [&](unsigned a, unsigned b) {
                        return halves((int)a - base[0], (int)b - base[1]);
                    };
                    col_h = relative(__shfl_sync(FULL, col_cur[0], s_in, G),
                                     __shfl_sync(FULL, col_cur[1], s_in, G));
                    if constexpr (AFFINE)
                        col_f = relative(__shfl_sync(FULL, col_cur[2], s_in, G),
                                         __shfl_sync(FULL, col_cur[3], s_in, G));
                } else {
                    col_h = __shfl_sync(FULL, col_cur[0], s_in, G);
                    col_f = AFFINE ? __shfl_sync(FULL, col_cur[1], s_in, G) : 0u;
                }
            }
            left = t == 0 ? L::from_bits(col_h) : left;
            f_left = t == 0 ? L::from_bits(col_f) : f_left;
            if (OFFSET ? MODE == SEMI_GLOBAL : MODE == GLOBAL)
                edge_bits = L::bits(L::add(L::from_bits(edge_bits), OFFSET ? L::splat(ge) : v_ge));
            V f = f_left;
            if ((unsigned)(i - 1) < (unsigned)Mw) {      // 1 <= i <= Mw, one compare
                // substitution scores of this row's letter(s) against the K columns
                V sub[K];
                if constexpr (TABLE) {
                    const unsigned char* row_a = smem + (q & 0xff) * table_row;
                    if (one_query) {
#pragma unroll
                        for (int c = 0; c < K; ++c)
                            sub[c] = L::from_bits(*reinterpret_cast<const unsigned*>(row_a + column_at[c]));
                    } else {
                        // two queries: lane B's half from its own query's row
                        const unsigned char* row_b = smem + ((q >> 8) & 0xff) * table_row;
#pragma unroll
                        for (int c = 0; c < K; ++c) {
                            const unsigned a = *reinterpret_cast<const unsigned*>(row_a + column_at[c]);
                            const unsigned b = *reinterpret_cast<const unsigned*>(row_b + column_at[c]);
                            sub[c] = L::from_bits(permute(a, b, 0x7610));
                        }
                    }
                }
                if constexpr (!TABLE) profile_scores<L, K, G>(prof + t * W, q, letters, sub);
                // the K cells of row i in two passes: first everything that needs only row
                // i-1 (independent across columns; sub[c] becomes u), then the chain along
                // the row, which overwrites hg in place
                // FLAGS: this row's flags, CELLS a word (with two pairs, each in its half)
                constexpr int CELLS = packed_cells<AFFINE, L>();
                unsigned packed[FLAGS ? (K + CELLS - 1) / CELLS : 1] = {};
                if constexpr (OFFSET) {
                    constexpr bool MAX3 = max3_row<AFFINE, L, K, FLAGS, SPLIT>();
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        // E' = max(E'[i-1][j], G[i-1][j] - (go - ge)); u = max(G_d + s', up)
                        // (max3_row: sub[c] = G_d + s' alone, the maximum below)
                        const V diag = c == 0 ? diag_left : hg[c - 1];
                        if constexpr (AFFINE) e[c] = L::add_max(hg[c], v_reopen, e[c]);
                        sub[c] = MAX3 ? L::add(diag, sub[c])
                                      : L::add_max(diag, sub[c], AFFINE ? e[c] : hg[c]);
                    }
                    V h_left = left;
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        // F' = max(F'[i][j-1], G[i][j-1] - (go - ge)); G = max(u, F'). As
                        // G[i][j-1] = max(u[j-1], F'[i][j-1]) and go >= ge, F' = max(F'[i][j-1],
                        // u[j-1] - (go - ge)) past the first column (short_f_chain)
                        if constexpr (AFFINE) {
                            const V before =
                                c == 0 || !short_f_chain<L>() || MAX3 ? h_left : sub[c - 1];
                            f = L::add_max(before, v_reopen, f);
                        }
                        // linear: G = max(u, G[i][j-1]), a running maximum along the row
                        // (two_column_max: every second column max(G[i][j-2], u[j-1], u[j]),
                        // the columns between hanging off that chain)
                        if constexpr (MAX3) {
                            hg[c] = L::max3(sub[c], AFFINE ? e[c] : hg[c], AFFINE ? f : h_left);
                        } else if (!AFFINE && two_column_max<K>() && c % 2 == 1) {
                            hg[c] = L::max3(c == 1 ? left : hg[c - 2], sub[c - 1], sub[c]);
                        } else {
                            hg[c] = L::max2(sub[c], AFFINE ? f : h_left);
                        }
                        h_left = hg[c];
                    }
                } else if constexpr (TRUE_H) {
                    true_h_row<L, K>(hg, e, sub, diag_left, left, f, v_go, v_ge);
                } else if constexpr (L::FUSED) {
                    fused_row<MODE, AFFINE, L, K, FLAGS>(hg, e, sub, diag_left, left, f, v_go,
                                                         v_ge, packed);
                } else {
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        const V diag = c == 0 ? diag_left : hg[c - 1];
                        if constexpr (AFFINE) e[c] = L::add_max(e[c], v_ge, hg[c]);
                        const V up = AFFINE ? e[c] : hg[c];
                        // the profile holds s + go: u = max(diag + (s + go), up)  (local: and 0)
                        sub[c] = MODE == LOCAL ? L::add_max_relu(diag, sub[c], up)
                                               : L::add_max(diag, sub[c], up);
                    }
                    V h_left = left;
#pragma unroll
                    for (int c = 0; c < K; ++c) {
                        if constexpr (AFFINE) f = L::add_max(f, v_ge, h_left);
                        const V side = AFFINE ? f : h_left;
                        hg[c] = L::add(L::max2(sub[c], side), v_go);
                        h_left = hg[c];
                    }
                }
                diag_left = left;
                if constexpr (FLAGS) {
                    // the thread's K columns of row i: FLAG_WORDS words at step s of the
                    // stripe, where the pair has them
#pragma unroll
                    for (int k = 0; k < PAIRS; ++k) {
                        unsigned words[FLAG_WORDS];
                        pair_flags<L>(packed, k, words);
                        if (i <= m[k] && s0 < n[k]) {
                            const long long step = (long long)stripe * (m[k] + G - 1) + s;
                            store_words(flags + flag_offset[pid[k]] + step * (G * 4 * FLAG_WORDS) +
                                            t * (4 * FLAG_WORDS),
                                        words);
                        }
                    }
                }

                // --- end cells ---------------------------------------------------------------
                if constexpr (MODE == LOCAL) {
                    if constexpr (ENDS) {
                        // the step, not the row: one register a warp holds (the row follows)
                        track_local_best<L, K>(hg, local_best, local_row, s, snapshots,
                                               snapshot_at);
                    } else {
#pragma unroll
                        for (int c = 0; c < K; ++c) local_best = L::max2(local_best, hg[c]);
                    }
                } else {
                    // semi-global: column n above row m, in every row: a select tree picks
                    // each pair's column (two pairs: one tree, pick_halves), and a strictly
                    // higher hg replaces the best (the first row stays), as local mode's row
                    // maximum does
                    if (REBASED && MODE == SEMI_GLOBAL && any_last) {
                        // in int32: H - go = G + base - (i + n) * ge - go, the first row on ties
#pragma unroll
                        for (int k = 0; k < PAIRS; ++k) {
                            const bool here = n[k] > c0 && n[k] <= c0 + K && i < m[k];
                            const int x = L::lane(pick<L, K>(hg, n[k] - c0 - 1), k) + base[k] -
                                          (i + n[k]) * ge - go;
                            if (here && x > last_int[k]) {
                                last_int[k] = x;
                                last_int_row[k] = i;
                            }
                        }
                    } else if (MODE == SEMI_GLOBAL && any_last) {
                        unsigned open;
                        V x = last_column<L, K>(hg, n, m, c0, i, last_masks, open);
                        if constexpr (OFFSET) {
                            // G - (i + n) * ge - go: the H - go of the other forms
                            last_shift = L::add(last_shift, v_ge);
                            x = L::add(x, last_shift);
                        }
                        keep_greater<L>(x, open & last_lanes, i, last_best, last_row);
                    }
                    // row m: the end cell (global) or the last row (semi-global), once a pair
                    if (i == next_end) {
                        next_end = end_row_after(end_row, i);
#pragma unroll
                        for (int k = 0; k < PAIRS; ++k) {
                            if (MODE == GLOBAL && i == end_row[k]) {
                                const int x = L::lane(pick<L, K>(hg, n[k] - c0 - 1), k);
                                best[k] = End{OFFSET ? x + base[k] - (m[k] + n[k]) * ge : x + go,
                                              m[k], n[k]};
                            }
                            if (MODE == SEMI_GLOBAL && i == end_row[k]) {
                                last_row_candidate<K>(c0, n[k], i, go, [&](int c) {
                                    return L::lane(hg[c], k) + base[k] -
                                           (OFFSET ? (i + c0 + c + 1) * ge + go : 0);
                                }, best[k]);
                            }
                        }
                    }
                }
                // the last thread hands its last column on to the next stripe, row by row (as
                // (hg, F) bit patterns: the rebased lane always goes in windows)
                if (hands_on) {
                    sc_write[2 * i] = L::bits(hg[K - 1]);
                    sc_write[2 * i + 1] = L::bits(f);
                    if constexpr (SPLIT > 1) {
                        if (PUBLISH_EVERY == 1 || i % PUBLISH_EVERY == 0 || i == Mw)
                            publish<CLUSTER>(&handed_rows[downstream % SPLIT], downstream / SPLIT,
                                             write_base + i);
                    }
                }
            }
            // HAND_WINDOWS: the last thread's column goes on a window of G rows at a time,
            // stored by the whole warp (not by one thread a row, a divergent block whose
            // address the warp rebuilt every row): lane s % G keeps the row the last thread
            // finished at step s, and at a window's last step (and the stripe's) every lane
            // stores its row, side by side (the rebased lane's as int32 values); split warps
            // then publish them, one release a window (not a fence and a release a row)
            if constexpr (HAND_WINDOWS) {
                if (stripe + 1 < stripes) {                // uniform over the warp
                    const unsigned last_h = __shfl_sync(FULL, L::bits(hg[K - 1]), G - 1, G);
                    const unsigned last_f = AFFINE ? __shfl_sync(FULL, L::bits(f), G - 1, G) : 0u;
                    if (t == s_in) {
                        kept_h = last_h;
                        kept_f = last_f;
                    }
                    if (s_in == G - 1 || s == iterations - 1) {
                        const int row = s - s_in + t - G + 2;  // the row lane t keeps
                        // REBASED: the base has not moved since the window began
                        if (t <= s_in && row >= 1 && row <= Mw) hand_row(row, kept_h, kept_f);
                        // split warps: the warp's stores (fenced at the readers' scope), then
                        // one release of the rows through the last (one group: the stripe's
                        // closing __syncwarp orders them before the next stripe's reads)
                        if constexpr (SPLIT > 1) {
                            if constexpr (CLUSTER > 1) {
                                asm volatile("fence.acq_rel.cluster;" ::: "memory");
                            } else {
                                __threadfence_block();
                            }
                            __syncwarp();
                            const int through = min(s - G + 2, Mw);
                            if (t == 0 && through >= 1)
                                publish<CLUSTER>(&handed_rows[downstream % SPLIT],
                                                 downstream / SPLIT, write_base + through);
                        }
                    }
                }
            }
            // hand row i's last column to the right neighbour (its row i at the next iteration)
            const unsigned up_h = __shfl_up_sync(FULL, L::bits(hg[K - 1]), 1, G);
            const unsigned up_f = AFFINE ? __shfl_up_sync(FULL, L::bits(f), 1, G) : 0u;
            left = L::from_bits(up_h);  // thread 0's: column 0's instead, at the next step
            f_left = L::from_bits(up_f);
        }

        if constexpr (MODE == SEMI_GLOBAL) {
#pragma unroll
            for (int k = 0; k < PAIRS; ++k) {
                const int row = REBASED     ? last_int_row[k]
                                : PAIRS == 1 ? (int)last_row
                                             : (int)((last_row >> (16 * k)) & 0xffff);
                const End cand{(REBASED ? last_int[k] : L::lane(last_best, k)) + go, row, n[k]};
                if (row > 0 && beats(cand, best[k])) best[k] = cand;
            }
        }
        if constexpr (MODE == LOCAL && ENDS) {
#pragma unroll
            for (int k = 0; k < PAIRS; ++k) local_row[k] += 1 - t;  // step s held row s - t + 1
            local_best_candidates<L, K>(local_best, local_row, c0, shift, snapshots, snapshot_at,
                                        best);
        } else if constexpr (MODE == LOCAL) {
#pragma unroll
            for (int k = 0; k < PAIRS; ++k)
                best[k].score = max(best[k].score, L::lane(local_best, k) + shift);
        }
        __syncwarp();  // the next stripe reads what this one wrote
    }

    // --- reduce the group's candidates (and a split set's warps', in its first block) ---------
    __shared__ End warp_best[SPLIT > 1 ? WARPS : 1][PAIRS];
#pragma unroll
    for (int k = 0; k < PAIRS; ++k) {
        const End e_best = group_best<G>(best[k]);
        if constexpr (CLUSTER > 1) {
            if (t == 0) store_end(&warp_best[member][k], 0, e_best.score, e_best.i, e_best.j);
        } else if constexpr (SPLIT > 1) {
            if (t == 0) warp_best[member][k] = e_best;
        } else if (t == 0 && pid[k] < n_pairs) {
            out[3 * pid[k] + 0] = e_best.score;
            out[3 * pid[k] + 1] = e_best.i;
            out[3 * pid[k] + 2] = e_best.j;
        }
    }
    if constexpr (SPLIT > 1) {
        if constexpr (CLUSTER > 1) {
            cluster_barrier();
        } else {
            __syncthreads();
        }
        if (rank == 0 && threadIdx.x == 0) {
#pragma unroll
            for (int k = 0; k < PAIRS; ++k) {
                End e_best = warp_best[0][k];
                for (int r = 1; r < WARPS; ++r)
                    if (beats(warp_best[r][k], e_best)) e_best = warp_best[r][k];
                if (pid[k] < n_pairs) {
                    out[3 * pid[k] + 0] = e_best.score;
                    out[3 * pid[k] + 1] = e_best.i;
                    out[3 * pid[k] + 2] = e_best.j;
                }
            }
        }
    }
}

}  // namespace seqwarp

#endif  // SEQWARP_ALIGN_DP_CUH
