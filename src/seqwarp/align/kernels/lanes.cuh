// lanes.cuh - lane types of the alignment kernels: one traits struct per way of holding scores.
//
// Paper: AnySeq/GPU (Mueller et al., ICS'22), section 4 "half-precision arithmetic": two
// independent alignments share one 32-bit register, one in each 16-bit half. The DP recurrence
// (align_score.cu) is written once against these traits; a lane type is only the few
// operations below.
//
// Contents
//   1. LaneS32    one pair per group, exact int32 (any score the API accepts)
//   2. LaneS16x2  two pairs per group, Hopper DPX on signed 16-bit halves
//                 (__viaddmax_s16x2 / __vmaxs2 / __viaddmax_s16x2_relu /
//                 __vimax3_s16x2_relu: one SASS op each);
//      LaneS16x2Bytes  the same with an 8-bit substitution profile
//      LaneS16x2Paired the same with a profile of both pairs' scores a word (shared queries)
//      LaneS16x2Table  the same reading its scores from a block's table of letter classes
//   3. LaneHalf2  two pairs per group, half2 arithmetic (__hadd2 / __hmax2); integers are exact
//                 up to +/-2048 and -inf is a true minus infinity
//   4. Offset<Lane>  a fused lane in align_dp.cuh's anti-diagonal offset form
//      Rebased<Lane>  a 16-bit lane in the offset form, its values kept relative to a base
//                     that moves with them (long pairs)
//
// Every struct has: V (the register type), P (the profile's score type), PAIRS, FUSED (add+max
// is one instruction), OFFSET (the offset form), REBASED (values relative to a moving base),
// TABLE (scores from align_dp.cuh's class table instead of a profile), PAIRED (a profile word
// holds both pairs' scores of a letter and column), neg() (below every reachable value),
// splat, to_profile, from_bits / bits (V <-> its 32-bit pattern), add, add_max (max(a + b,
// c)), add_max_relu (max(a + b, c, 0)), max2, max3, improve (the maximum of a best and a
// value, and in which lanes the value is the greater), gt_mask (all ones in each lane where
// a > b), blend (bits of a where mask is set, else of b) and lane (one lane as an int).
// The fused lanes also have differs (1 at each lane's lowest bit where a != b), for the
// traceback's direction flags, and the 16-bit ones max3_relu (max(a, b, c, 0)).

#ifndef SEQWARP_LANES_CUH
#define SEQWARP_LANES_CUH

#include <cuda_fp16.h>

namespace seqwarp {

// ---------------------------------------------------------------------------------------------
// 1. LaneS32
// ---------------------------------------------------------------------------------------------
struct LaneS32 {
    using V = int;             // one score
    using P = int;             // profile element: one int32 score per (letter, column)
    static constexpr int PAIRS = 1;
    static constexpr bool FUSED = true;     // add+max is one instruction
    static constexpr bool OFFSET = false;   // align_dp.cuh's anti-diagonal offset form
    static constexpr bool REBASED = false;  // values relative to a moving base (align_dp.cuh)
    static constexpr bool TABLE = false;    // align_dp.cuh's table of letter classes
    static constexpr bool PAIRED = false;   // a profile word holds both pairs' scores
    static constexpr int NEG = -(1 << 30);  // the CPU engine's minus infinity

    __device__ static V splat(int x) { return x; }
    __device__ static P to_profile(int x) { return x; }
    __device__ static V add(V a, V b) { return a + b; }
    __device__ static V add_max(V a, V b, V c) { return __viaddmax_s32(a, b, c); }
    __device__ static V add_max_relu(V a, V b, V c) { return __viaddmax_s32_relu(a, b, c); }
    __device__ static V max2(V a, V b) { return max(a, b); }
    __device__ static V max3(V a, V b, V c) { return __vimax3_s32(a, b, c); }
    __device__ static V improve(V best, V x, bool (&grew)[PAIRS]) {
        grew[0] = x > best;
        return max(best, x);
    }
    __device__ static unsigned gt_mask(V a, V b) { return a > b ? 0xffffffffu : 0u; }
    // the difference in unsigned arithmetic (it wraps instead of overflowing): 0 only if a == b
    __device__ static unsigned differs(V a, V b) { return min((unsigned)a - (unsigned)b, 1u); }
    __device__ static V blend(unsigned mask, V a, V b) { return mask ? a : b; }
    __device__ static int lane(V v, int) { return v; }
    __device__ static V neg() { return NEG; }
    __device__ static V from_bits(unsigned x) { return (int)x; }
    __device__ static unsigned bits(V v) { return (unsigned)v; }
};

// ---------------------------------------------------------------------------------------------
// 2. LaneS16x2 (DPX)
// ---------------------------------------------------------------------------------------------
struct LaneS16x2 {
    using V = unsigned;             // low half: pair A, high half: pair B (signed 16-bit each)
    using P = unsigned short;       // profile element: one int16 score
    static constexpr int PAIRS = 2;
    static constexpr bool FUSED = true;
    static constexpr bool OFFSET = false;
    static constexpr bool REBASED = false;
    static constexpr bool TABLE = false;
    static constexpr bool PAIRED = false;
    static constexpr int NEG = -(1 << 14);  // NEG - gap_extend stays far from -32768

    __device__ static V splat(int x) { return (unsigned(x) & 0xffffu) * 0x10001u; }
    __device__ static P to_profile(int x) { return (unsigned short)(x & 0xffff); }
    // VIADD.16x2 (wrapping, as VIADDMNMX's add): it issues beside the DPX maxima, which share
    // the ALU pipe, so an add on its own costs that pipe nothing
    __device__ static V add(V a, V b) { return __vadd2(a, b); }
    __device__ static V add_max(V a, V b, V c) { return __viaddmax_s16x2(a, b, c); }
    __device__ static V add_max_relu(V a, V b, V c) { return __viaddmax_s16x2_relu(a, b, c); }
    __device__ static V max2(V a, V b) { return __vmaxs2(a, b); }
    __device__ static V max3(V a, V b, V c) { return __vimax3_s16x2(a, b, c); }
    __device__ static V max3_relu(V a, V b, V c) { return __vimax3_s16x2_relu(a, b, c); }
    // max(best, x), and in which halves x is the greater: where the maximum changed the bits
    __device__ static V improve(V best, V x, bool (&grew)[PAIRS]) {
        const V r = __vmaxs2(best, x);
        const unsigned changed = r ^ best;
        grew[0] = (changed & 0xffffu) != 0u;
        grew[1] = changed > 0xffffu;
        return r;
    }
    __device__ static unsigned gt_mask(V a, V b) { return __vcmpgts2(a, b); }
    // the difference's minimum with 1 in each unsigned half (0 only where the halves are
    // equal): one VIADDMNMX.U16x2 with b negated, where an XOR and then the minimum took two
    // ALU-pipe instructions (__vcmpne2 has no single instruction on Hopper)
    __device__ static unsigned differs(V a, V b) { return __vminu2(__vsub2(a, b), 0x00010001u); }
    __device__ static V blend(unsigned mask, V a, V b) { return (a & mask) | (b & ~mask); }
    __device__ static int lane(V v, int k) { return (int)(short)(k ? v >> 16 : v & 0xffffu); }
    __device__ static V neg() { return splat(NEG); }
    __device__ static V from_bits(unsigned x) { return x; }
    __device__ static unsigned bits(V v) { return v; }
};

// LaneS16x2 with an 8-bit profile: half the shared memory per group, for matrices whose
// scores all fit a signed byte (the kernel widens each byte with a sign-extending byte permute)
struct LaneS16x2Bytes : LaneS16x2 {
    using P = signed char;
    __device__ static P to_profile(int x) { return (signed char)x; }
};

// LaneS16x2 with a profile whose word [letter][column] holds both pairs' scores, s(letter,
// target A's residue) in the low half and s(letter, target B's residue) in the high half, for
// groups whose two pairs share their query (a cross product: one query against many
// targets; the host gives the lane such groups only): a row's K cells of both pairs are K
// loaded words, with no byte permutes
struct LaneS16x2Paired : LaneS16x2 {
    using P = unsigned;
    static constexpr bool PAIRED = true;
};

// LaneS16x2 with CUDASW++4.0's pair-indexed substitution table instead of a profile, for
// large alphabets: one table a block, word [q][a * C + b] holding s(q, a) in the low half and
// s(q, b) in the high half (C letter classes), so that a cell's two scores are one shared
// load, with no profile to build per pair set and no byte permutes (align_dp.cuh)
struct LaneS16x2Table : LaneS16x2 {
    using P = unsigned;
    static constexpr bool TABLE = true;
};

// ---------------------------------------------------------------------------------------------
// 3. LaneHalf2
// ---------------------------------------------------------------------------------------------
struct LaneHalf2 {
    using V = __half2;              // low half: pair A, high half: pair B
    using P = unsigned short;       // profile element: the bits of one half
    static constexpr int PAIRS = 2;
    static constexpr bool FUSED = false;    // add then max: two instructions
    static constexpr bool OFFSET = false;
    static constexpr bool REBASED = false;
    static constexpr bool TABLE = false;
    static constexpr bool PAIRED = false;

    __device__ static V splat(int x) { return __float2half2_rn((float)x); }
    __device__ static P to_profile(int x) { return __half_as_ushort(__int2half_rn(x)); }
    __device__ static V add(V a, V b) { return __hadd2(a, b); }
    __device__ static V add_max(V a, V b, V c) { return __hmax2(__hadd2(a, b), c); }
    __device__ static V add_max_relu(V a, V b, V c) {
        return __hmax2(__hmax2(__hadd2(a, b), c), __float2half2_rn(0.0f));
    }
    __device__ static V max2(V a, V b) { return __hmax2(a, b); }
    __device__ static V max3(V a, V b, V c) { return __hmax2(__hmax2(a, b), c); }
    __device__ static V improve(V best, V x, bool (&grew)[PAIRS]) {
        const unsigned mask = __hgt2_mask(x, best);
        grew[0] = mask & 1u;
        grew[1] = mask >> 31;
        return __hmax2(best, x);
    }
    __device__ static unsigned gt_mask(V a, V b) { return __hgt2_mask(a, b); }
    __device__ static V blend(unsigned mask, V a, V b) {
        unsigned x = (bits(a) & mask) | (bits(b) & ~mask);
        return from_bits(x);
    }
    __device__ static int lane(V v, int k) {
        return (int)__half2float(k ? __high2half(v) : __low2half(v));
    }
    __device__ static V neg() { return from_bits(0xfc00fc00u); }  // (-inf, -inf)
    __device__ static unsigned bits(V v) { return *reinterpret_cast<unsigned*>(&v); }
    __device__ static V from_bits(unsigned x) { return *reinterpret_cast<V*>(&x); }
};

// ---------------------------------------------------------------------------------------------
// 4. Offset<Lane>
// ---------------------------------------------------------------------------------------------
// A fused lane whose registers hold every cell as G = H + (i + j) * ge, the anti-diagonal
// offset form of align_dp.cuh: the gap extensions vanish from the recurrence, leaving two
// DP ops a cell for linear gaps and four for affine ones (global and semi-global scores)
template <class Lane>
struct Offset : Lane {
    static constexpr bool OFFSET = true;
};

// A 16-bit lane in the offset form whose registers hold each value less a base that moves
// with the values (align_dp.cuh, "Rebased lanes"): adjacent cells differ by a bounded
// amount, so a stripe's values near one cell fit 16 bits however long the pair, and long
// pairs run two a register instead of one
template <class Lane>
struct Rebased : Offset<Lane> {
    static_assert(Lane::PAIRS == 2, "rebasing serves the 16-bit lanes");
    static constexpr bool REBASED = true;
};

}  // namespace seqwarp

#endif  // SEQWARP_LANES_CUH
