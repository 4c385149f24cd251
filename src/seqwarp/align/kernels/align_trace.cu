// align_trace.cu - full alignments on the GPU: end cell, begin cell and the CIGAR operations,
// identical to seqwarp.align.cpu's traceback.
//
// The kernels of a batch of pairs:
//   align_fill<MODE, AFFINE, Lane, K, G>  the forward pass of align_dp.cuh (AnySeq/GPU section 4)
//       writing every cell's direction flags (4 bits a cell with affine gaps, 2 with linear
//       ones, laid out by stripe and anti-diagonal step: align_dp.cuh) and each pair's score
//       and end cell; or
//   band_fill<MODE, AFFINE, Lane, K, G>  the same over a band of diagonals (align_band.cuh);
//   trace_walk<MODE, AFFINE, BANDED>  one thread per pair walks its flags back from the end
//       cell (AnySeq/GPU's traceback from stored cell predecessors), writing the pair's CIGAR
//       text and fields; after band_fill it first checks that the band held the pair's
//       optimal paths, and marks the pairs it did not hold for the whole matrix;
//   gather_missed, scatter_missed  the pairs a band did not hold, through align_fill and
//       trace_walk on the whole matrix in the same chunk, before
//   pack_text  the CIGARs side by side, for one copy to the host.
// The walk follows cpu.trace's rules on align_dp.cuh's flag bits (in H: F when F beat both,
// else E when E beat the diagonal, else the diagonal; local stops at a zero cell; in a gap,
// leave it where it was opened; global alignments finish along row 0 or column 0), so the
// CIGARs are the CPU engine's. A local walk knows the score of each cell on its path (the end
// cell's, less each step's substitution or gap), which says where it reaches zero.
//
// Template parameters: MODE, AFFINE, Lane (LaneS32, LaneS16x2, LaneS16x2Bytes: the fused
// lanes), K, G as in align_dp.cuh and align_band.cuh (the walk: AFFINE sets the flags' width);
// BANDED: the flags are band_fill's.

#include "align_band.cuh"

namespace seqwarp {

// CIGAR op codes and letters, as in seqwarp.align.cpu
constexpr int OP_MATCH = 0;
constexpr int OP_MISMATCH = 1;
constexpr int OP_INSERT = 2;
constexpr int OP_DELETE = 3;
// "=XID", a byte an op from the lowest: a shift, where an array in device memory was a load
constexpr unsigned CIGAR_LETTERS = '=' | 'X' << 8 | 'I' << 16 | 'D' << 24;
// align_dp.cuh's flag bits
constexpr int E_BEAT_DIAGONAL = 1;
constexpr int F_BEAT_BOTH = 2;
constexpr int E_GOES_ON = 4;
constexpr int F_GOES_ON = 8;

template <int MODE, bool AFFINE, class L, int K, int G>
__global__ void __launch_bounds__(block_threads<L, 1>()) align_fill(
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
    align_dp<MODE, AFFINE, L, K, G, true>(codes, q_start, q_len, t_start, t_len, n_pairs, matrix,
                                          alpha, go, ge, scratch, scratch_stride, out, flags,
                                          flag_offset);
}

// at least one block a multiprocessor, said outright: with the block size alone ptxas held the
// fill to 80 registers and spilled a query pointer to local memory, a round trip to L2 at the
// head of each step (measured while all of L1 was shared memory); at least 6 (72 registers, 28
// warps), with L1 left beside the blocks' shared memory, the 125 bp global linear fill took
// 5.10 ms a million pairs against 4.55
// (bench/results/align-gpu-carveout-experiment-h200-2026-12-04.log)
template <int MODE, bool AFFINE, class L, int K, int G>
__global__ void __launch_bounds__(block_threads<L, 1>(), 1) band_fill(
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
    band_dp<MODE, AFFINE, L, K, G>(codes, q_start, q_len, t_start, t_len, n_pairs, matrix, alpha,
                                   go, ge, out, band_lo, flags, flag_offset);
}

// 16 bytes of global memory held in registers, for reads that move back a byte at a time
// (the walk's residues and flags): one aligned 16-byte load each time a read leaves the bytes
// held. Read a byte at a time, each thread's lines did not stay in the L1 cache from one step
// to the next, and the walk was bound by L2 traffic. `base` is 16-byte aligned, and every
// aligned 16 bytes that hold a byte read lie inside its buffer. `fetch` and `byte` apart: a
// step fetches all its windows first, so that their loads wait together, not one after another.
// `wide`: the bytes have mostly left L2 by the time they are read (the flags, written by the
// fill long before their walk), so a load that misses L2 has it fetch the aligned 256 bytes
// around it from DRAM (PTX's L2::256B prefetch size, Ampere and later), not the 32-byte sector:
// one round trip then serves every step of a walk back through them whose flags lie in those
// 256 bytes, not one or two (see WIDE_FETCH_STEP_BYTES). The residues take plain loads (with
// the wider fetch for them too, the walks ran 2-12 % longer).
struct Window {
    const unsigned char* base;
    bool wide;
    long long held = -1;  // bytes 16 held ... 16 held + 15 are in w
    unsigned w[4];

    __device__ Window(const unsigned char* b, bool wide_fetch) : base(b), wide(wide_fetch) {}
    // the aligned 16 bytes that hold `offset` into w, unless they are there
    __device__ void fetch(long long offset) {
        if (offset >> 4 != held) {
            held = offset >> 4;
            const unsigned char* at = base + (held << 4);
#if __CUDA_ARCH__ >= 800
            if (wide) {
                asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                    : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                    : "l"(at));
                return;
            }
#endif
            load_words<4>(at, w);
        }
    }
    // the byte at `offset`, fetched before
    __device__ unsigned byte(long long offset) const {
        const int r = (int)(offset & 15);
        return (pick_bits<4>(w, r >> 2) >> (8 * (r & 3))) & 0xffu;
    }
};

// The most bytes of a step's flags (a stripe's threads' flags of a row: the walk reads 16 of
// them a step) for which the walk fetches them 256 bytes at a time. As the steps grow, more of
// each fetch is other threads' flags the walk never reads, and the walk turns from waiting on
// DRAM round trips to filling DRAM with bytes it does not use. Measured on an H200: 16 to 96
// bytes a step, walks 8-26 % shorter; 128 (512 bp semi-global and local affine bands of 16
// threads) 11 % longer.
constexpr int WIDE_FETCH_STEP_BYTES = 96;

// The CIGAR written backwards into 4-byte aligned words (the walk meets runs last to first;
// pack_text turns the text around): bytes gather in a register, stored a word at a time.
struct ReversedText {
    unsigned* out;
    unsigned word = 0;
    int length = 0;  // bytes so far

    __device__ explicit ReversedText(unsigned char* at) : out(reinterpret_cast<unsigned*>(at)) {}
    __device__ void put(unsigned c) {
        word |= c << (8 * (length & 3));
        if ((++length & 3) == 0) {
            out[(length >> 2) - 1] = word;
            word = 0;
        }
    }
    // one run "<length><letter>", letter first, then the digits from the last
    __device__ void run(int op, int times) {
        if (times == 0) return;
        put((CIGAR_LETTERS >> (8 * op)) & 0xffu);
        do {
            put('0' + times % 10);
            times /= 10;
        } while (times > 0);
    }
    __device__ void flush() {
        if (length & 3) out[length >> 2] = word;
    }
};

// ends         per pair: score, query end, target end (align_fill's out)
// columns, group  the fill's K and G: where a cell's flags are (align_dp.cuh's layout, or
//              BANDED align_band.cuh's)
// matrix, alpha, go, ge  the scores (local: the walk follows the score along its path)
// unknown      the alphabet's wildcard code (N, X): a diagonal step between two of them is a
//              mismatch, as cpu.trace has it
// codes        the residues, readable up to 16 bytes past the last (the walk reads them in
//              aligned 16-byte windows)
// text         per pair: 2 (m + n) bytes rounded up to 4, from text_offset[pair] (4-byte
//              aligned); receives the CIGAR backwards, whose length goes to text_len[pair] (a
//              run of L operations takes at most 2 L bytes)
// fields       8 rows of field_stride: row k, column slot[pair] receives the pair's field k
//              (score, query begin, query end, target begin, target end, operations, matches,
//              mismatches: seqwarp.align.cpu._align_pair's fields), so that the host takes
//              a whole device's fields in one copy, in its own order of pairs
// BANDED: t_len and band_lo (each pair's target length and its set's first diagonal), best
//              (the highest substitution score): a pair whose band may not hold its optimal
//              paths gets operations -1 and no CIGAR (align_band.cuh's bound), and is listed
//              in missed (missed[0] counts them, missed[1 + k] the first missed_cap of them)
template <int MODE, bool AFFINE, bool BANDED>
__global__ void __launch_bounds__(128) trace_walk(
    const unsigned char* __restrict__ codes,
    const long long* __restrict__ q_start,
    const long long* __restrict__ t_start,
    int n_pairs,
    const unsigned char* __restrict__ flags,
    const long long* __restrict__ flag_offset,
    const int* __restrict__ q_len,
    int columns,
    int group,
    const int* __restrict__ matrix,
    int alpha,
    int unknown,
    int go,
    int ge,
    const int* __restrict__ ends,
    unsigned char* __restrict__ text,
    const long long* __restrict__ text_offset,
    int* __restrict__ text_len,
    const long long* __restrict__ slot,
    long long field_stride,
    int* __restrict__ fields,
    const int* __restrict__ t_len,
    const int* __restrict__ band_lo,
    int best,
    int* __restrict__ missed,
    int missed_cap) {
    const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_pairs) return;
    int* f = fields + slot[p];
    // BANDED: block b(1), the first of row 1's window (align_band.cuh)
    const int first_block = BANDED ? max(0, band_lo[p]) / columns : 0;
    if (BANDED) {
        const int lo = band_lo[p], hi = lo + (group - 1) * columns;
        if (!band_holds<MODE>(q_len[p], t_len[p], ends[3 * p], best, min(go, ge), lo, hi)) {
            text_len[p] = 0;
            f[5 * field_stride] = -1;
            const int k = atomicAdd(missed, 1);
            if (k < missed_cap) missed[1 + k] = (int)p;
            return;
        }
    }
    // a thread's bytes of a row and a step's bytes of a stripe (align_dp.cuh's layout)
    constexpr int BITS = flag_bits<AFFINE>(), PER_BYTE = 8 / BITS;
    const int thread_bytes = 4 * ((columns * BITS + 31) / 32);
    const long long step_bytes = (long long)group * thread_bytes;
    // the residues and the flags through 16-byte windows in registers
    const long long q_first = q_start[p] - 1, t_first = t_start[p] - 1;  // residue 1 at + 1
    Window q(codes, false), t(codes, false);
    Window cells(flags + flag_offset[p], step_bytes <= WIDE_FETCH_STEP_BYTES);
    const long long stripe_steps = q_len[p] + group - 1;
    ReversedText out(text + text_offset[p]);
    const int q_end = ends[3 * p + 1], t_end = ends[3 * p + 2];
    int i = q_end, j = t_end, state = 0, count = 0, matches = 0, mismatches = 0;
    // column j's place: its stripe, the stripe's thread `owner` and that thread's column c
    // (BANDED: its block, the block's thread and column); divided out once, then followed as
    // j moves left
    const int within = BANDED ? 0 : (j - 1) % (columns * group);
    int stripe = BANDED ? (j - 1) / columns : (j - 1) / (columns * group);
    int owner = BANDED ? stripe % group : within / columns;
    int c = BANDED ? (j - 1) % columns : within % columns;
    auto move_left = [&]() {
        --j;
        if (--c < 0) {
            c = columns - 1;
            if (--owner < 0) owner = group - 1;
            if (BANDED || owner == group - 1) --stripe;
        }
    };
    // the byte of cell (i, j)'s flags: thread `owner` wrote row i at step i - 1 + owner
    // (BANDED: block `stripe` wrote it at step i + stripe - b(1) - 1)
    auto flag_byte = [&](int i) {
        const long long step = BANDED ? (long long)i + stripe - first_block - 1
                                      : stripe * stripe_steps + i - 1 + owner;
        return step * step_bytes + owner * thread_bytes + c / PER_BYTE;
    };
    int score = ends[3 * p];  // local: the score of cell (i, j) in the current state's matrix
    int run_op = 0, run = 0;
    auto put = [&](int op, int times) {
        if (op != run_op) {
            out.run(run_op, run);
            run_op = op;
            run = 0;
        }
        run += times;
        count += times;
    };
    while (true) {
        if (state == 0 && (i == 0 || j == 0)) {
            if (MODE == GLOBAL) {
                if (j > 0) put(OP_DELETE, j);
                if (i > 0) put(OP_INSERT, i);
                i = j = 0;
            }
            break;
        }
        if (MODE == LOCAL && state == 0 && score == 0) break;
        // the cell's flags and, for a diagonal step, its residues: loaded together
        const long long at = flag_byte(i);
        cells.fetch(at);
        if (i > 0 && j > 0) {
            q.fetch(q_first + i);
            t.fetch(t_first + j);
        }
        const int cell = (int)(cells.byte(at) >> (BITS * (c % PER_BYTE))) & ((1 << BITS) - 1);
        if (state == 0) {
            if (cell & F_BEAT_BOTH) {
                state = 2;
            } else if (cell & E_BEAT_DIAGONAL) {
                state = 1;
            } else {
                const int a = q.byte(q_first + i), b = t.byte(t_first + j);
                const bool same = a == b && a != unknown;
                put(same ? OP_MATCH : OP_MISMATCH, 1);
                matches += same;
                mismatches += !same;
                if (MODE == LOCAL) score -= matrix[a * alpha + b];
                --i;
                move_left();
            }
        } else if (state == 1) {
            put(OP_INSERT, 1);
            if (!(cell & E_GOES_ON)) state = 0;
            if (MODE == LOCAL) score += state == 0 ? go : ge;
            --i;
        } else {
            put(OP_DELETE, 1);
            if (!(cell & F_GOES_ON)) state = 0;
            if (MODE == LOCAL) score += state == 0 ? go : ge;
            move_left();
        }
    }
    out.run(run_op, run);
    out.flush();
    text_len[p] = out.length;
    f[0] = ends[3 * p];
    f[field_stride] = i;
    f[2 * field_stride] = q_end;
    f[3 * field_stride] = j;
    f[4 * field_stride] = t_end;
    f[5 * field_stride] = count;
    f[6 * field_stride] = matches;
    f[7 * field_stride] = mismatches;
}

// The pairs a band did not hold (trace_walk's list), gathered for align_fill and trace_walk on
// the whole matrix within their chunk, so that their CIGARs are packed with the others' and no
// host pass or splice is needed. The grid is fixed (`cap` entries, the host never waits for
// the count): entry k < min(count, cap) is listed pair k's, with its text place and field
// column; the others are a stand-in 1 x 1 pair (the chunk's first pair's first residues) whose
// text and fields go to spare places. Each entry's flags take `flag_stride` bytes.
__global__ void __launch_bounds__(128) gather_missed(
    const int* __restrict__ missed,
    int cap,
    const long long* __restrict__ q_start,
    const int* __restrict__ q_len,
    const long long* __restrict__ t_start,
    const int* __restrict__ t_len,
    const long long* __restrict__ slot,
    const long long* __restrict__ text_offset,
    long long spare_slot,
    long long spare_text,
    long long flag_stride,
    long long* __restrict__ to_q_start,
    int* __restrict__ to_q_len,
    long long* __restrict__ to_t_start,
    int* __restrict__ to_t_len,
    long long* __restrict__ to_slot,
    long long* __restrict__ to_text_offset,
    long long* __restrict__ to_flag_offset) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= cap) return;
    const bool listed = k < min(missed[0], cap);
    const int p = listed ? missed[1 + k] : 0;
    to_q_start[k] = q_start[p];
    to_t_start[k] = t_start[p];
    to_q_len[k] = listed ? q_len[p] : 1;
    to_t_len[k] = listed ? t_len[p] : 1;
    to_slot[k] = listed ? slot[p] : spare_slot;
    to_text_offset[k] = listed ? text_offset[p] : spare_text;
    to_flag_offset[k] = k * flag_stride;
}

// the gathered pairs' CIGAR lengths back to their places in the chunk (gather_missed's order)
__global__ void __launch_bounds__(128) scatter_missed(
    const int* __restrict__ missed, int cap, const int* __restrict__ from_len,
    int* __restrict__ text_len) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < min(missed[0], cap)) text_len[missed[1 + k]] = from_len[k];
}

// every pair's CIGAR turned around (the walk wrote it backwards) and moved next to the
// previous one's (packed_offset: exclusive prefix sums of text_len), so only the text itself
// crosses to the host. A warp takes 32 consecutive pairs, PACK_AT_ONCE at a time, its lanes
// copying 32 consecutive bytes of each of them at a time, so that their loads wait together
// (a pair a thread, each load and store of a warp touched 32 sectors: a million pairs'
// packing 0.48 -> 0.32 ms; one pair at a time against four, the prefix sums included: a
// million 125 bp pairs' packing 0.21 -> 0.18 ms, 244,140 of 512 bp 0.19 -> 0.15 ms).
constexpr int PACK_AT_ONCE = 4;
__global__ void __launch_bounds__(128) pack_text(
    const unsigned char* __restrict__ text,
    const long long* __restrict__ text_offset,
    const int* __restrict__ text_len,
    const long long* __restrict__ packed_offset,
    int n_pairs,
    unsigned char* __restrict__ packed) {
    const long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) & ~31LL;
    const int lane = threadIdx.x % 32;
    // the warp's pairs' places, a pair a lane, then each pair's from its lane
    const long long mine = first + lane;
    const long long from_mine = mine < n_pairs ? text_offset[mine] : 0;
    const long long to_mine = mine < n_pairs ? packed_offset[mine] : 0;
    const int length_mine = mine < n_pairs ? text_len[mine] : 0;
    for (int k = 0; k < 32; k += PACK_AT_ONCE) {
        int length[PACK_AT_ONCE], most = 0;
        const unsigned char* from[PACK_AT_ONCE];
        unsigned char* to[PACK_AT_ONCE];
#pragma unroll
        for (int i = 0; i < PACK_AT_ONCE; ++i) {
            length[i] = __shfl_sync(FULL, length_mine, k + i);
            from[i] = text + __shfl_sync(FULL, from_mine, k + i);
            to[i] = packed + __shfl_sync(FULL, to_mine, k + i);
            most = max(most, length[i]);
        }
        for (int x = lane; x < most; x += 32) {
            unsigned char byte[PACK_AT_ONCE];
#pragma unroll
            for (int i = 0; i < PACK_AT_ONCE; ++i)
                if (x < length[i]) byte[i] = from[i][length[i] - 1 - x];
#pragma unroll
            for (int i = 0; i < PACK_AT_ONCE; ++i)
                if (x < length[i]) to[i][x] = byte[i];
        }
    }
}

}  // namespace seqwarp
