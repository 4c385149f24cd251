// align_score.cu - score and end cell of batched pairwise alignments, exactly as
// seqwarp.align.cpu computes them. The dynamic programming (AnySeq/GPU section 4: register tiling,
// warp shuffles, shared-memory subject profile, striped long subjects, packed lanes) is
// align_dp.cuh; this kernel runs it without direction flags.
//
// Template parameters: MODE, AFFINE, Lane, K, G, SPLIT, ENDS as in align_dp.cuh (blocks of 128
// threads, 384 for the class-table lane, whose table is one a block; SPLIT > 1: blocks of
// SPLIT warps, one pair set each). align_score_cluster runs a pair set on a cluster of
// CLUSTER such blocks (Hopper and later).

#include "align_dp.cuh"

namespace seqwarp {

// Blocks a multiprocessor must hold (ptxas then bounds the registers), as measured on the H200:
// the class-table lane 2 of 384 threads (24 warps, beside a table each and local mode's snapshots;
// 3 of 256, before the snapshots, ran about 6 % faster than unbounded; 1 of 384 with 20, 24 or
// 32 columns a thread, 144-168 registers and no spills, ran the protein search 6-13 % slower
// than 2 with 12 columns, its fewer instructions a cell waiting at 3 warps a scheduler:
// bench/results/align-gpu-profile-experiment-h200-2026-12-04.log), global linear gaps 1
// (ptxas then allocates 80 registers instead of 72 and the 512 bp kernel ran 13 % faster; the
// other kernels ran 1-6 % slower so), the rebased lane's global affine scores with a byte profile
// 4 (128 registers instead of 150, 16 warps instead of 12: 40,000 pairs of 8 kbp ran 4.22 TCUPS
// against 4.12; semi-global scores and 16-bit profiles then spill), split warps of 32 columns a
// thread 2 (128 registers instead of 151-162, 16 warps instead of 8, at most 68 bytes of spills;
// unbounded, such wide stripes lost to narrower ones, bounded they win:
// _gpu_backend._split_columns), the rest none
template <int MODE, bool AFFINE, class L, int K, int SPLIT>
constexpr int min_blocks() {
    if constexpr (SPLIT > 1) return K == 32 ? 2 : 0;
    if constexpr (L::TABLE) return 2;
    if constexpr (L::REBASED && sizeof(typename L::P) == 1 && MODE == GLOBAL && AFFINE) return 4;
    return MODE == GLOBAL && !AFFINE ? 1 : 0;
}

template <int MODE, bool AFFINE, class L, int K, int G, int SPLIT = 1, bool ENDS = true>
__global__ void __launch_bounds__(block_threads<L, SPLIT>(),
                                  min_blocks<MODE, AFFINE, L, K, SPLIT>()) align_score(
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
    int* __restrict__ out) {
    align_dp<MODE, AFFINE, L, K, G, false, SPLIT, 1, ENDS>(
        codes, q_start, q_len, t_start, t_len, n_pairs, matrix, alpha, go, ge, scratch,
        scratch_stride, out, nullptr, nullptr);
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
template <int MODE, bool AFFINE, class L, int K, int SPLIT, int CLUSTER, bool ENDS = true>
__global__ void __cluster_dims__(CLUSTER, 1, 1)
    __launch_bounds__(block_threads<L, SPLIT>(), (min_blocks<MODE, AFFINE, L, K, SPLIT>()))
    align_score_cluster(
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
    int* __restrict__ out) {
    align_dp<MODE, AFFINE, L, K, 32, false, SPLIT, CLUSTER, ENDS>(
        codes, q_start, q_len, t_start, t_len, n_pairs, matrix, alpha, go, ge, scratch,
        scratch_stride, out, nullptr, nullptr);
}
#endif

}  // namespace seqwarp
