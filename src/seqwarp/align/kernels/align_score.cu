// align_score.cu — score and end cell of batched pairwise alignments, exactly as
// seqwarp.align.cpu computes them. The dynamic programming (AnySeq/GPU §4: register tiling,
// warp shuffles, shared-memory subject profile, striped long subjects, packed lanes) is
// align_dp.cuh; this kernel runs it without direction flags.
//
// Template parameters: MODE, AFFINE, Lane, K, G as in align_dp.cuh.

#include "align_dp.cuh"

namespace seqwarp {

template <int MODE, bool AFFINE, class L, int K, int G>
__global__ void __launch_bounds__(128) align_score(
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
    align_dp<MODE, AFFINE, L, K, G, false>(codes, q_start, q_len, t_start, t_len, n_pairs, matrix,
                                           alpha, go, ge, scratch, scratch_stride, out, nullptr,
                                           nullptr);
}

}  // namespace seqwarp
