// microbench.cu - issue rate of the instructions the alignment kernels are built from.
//
// Paper: AnySeq/GPU (Mueller et al., ICS'22), section 5: the peak of a DP kernel is the chip's
// rate of the instructions one cell update needs; this kernel measures those rates on the
// device at hand, so benchmark results can be given as a fraction of them.
//
// Contents
//   1. op_rate<OP>   8 independent chains per thread of one operation, `steps` times
//        OP 0  __viaddmax_s16x2   one DPX instruction, two 16-bit lanes
//        OP 1  __hadd2, __hmax2   two half2 instructions, two lanes each
//        OP 2  __viaddmax_s32     one fused int32 add+max
//        OP 3  __vadd2            a packed 16-bit add on its own
//
// Registers: the 8 chains (a[8]); no shared memory. `out` keeps the chains alive.

#include <cuda_fp16.h>

namespace seqwarp {

template <int OP>
__global__ void op_rate(unsigned* out, int steps) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned b = 0x00010001u * ((tid & 3) + 1);   // small positive steps, no overflow
    const unsigned c = 0x80008000u | (tid & 7);         // a floor the chains stay above
    unsigned a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = (tid + k) & 0x00ff00ffu;
    if constexpr (OP == 1) {
        __half2 h[8];
        const __half2 hb = __float2half2_rn(1.0f / 1024.0f * (float)((tid & 3) + 1));
        const __half2 hc = __float2half2_rn(-1.0f);
#pragma unroll
        for (int k = 0; k < 8; ++k) h[k] = __float2half2_rn((float)k * 0.001f);
        for (int s = 0; s < steps; ++s) {
#pragma unroll
            for (int k = 0; k < 8; ++k) h[k] = __hmax2(__hadd2(h[k], hb), hc);
        }
#pragma unroll
        for (int k = 0; k < 8; ++k) a[k] = *reinterpret_cast<unsigned*>(&h[k]);
    } else {
        for (int s = 0; s < steps; ++s) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                if constexpr (OP == 0) a[k] = __viaddmax_s16x2(a[k], b, c);
                else if constexpr (OP == 2)
                    a[k] = (unsigned)__viaddmax_s32((int)a[k], (int)(b & 0xff), (int)(c & 0xff));
                else a[k] = __vadd2(a[k], b);
            }
        }
    }
    unsigned fold = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) fold ^= a[k];
    out[tid] = fold;
}

}  // namespace seqwarp
