// hold.cu - a launch that keeps its stream waiting until the host lets it go.
//
// For the benchmarks' kernel timing: CUDA events time a stream, not a kernel, so an event
// recorded while the stream is idle starts the clock before the host has launched the kernel
// it is meant to time, and whatever the host does before that launch (an interpreter lock
// held by another thread, a millisecond or more) counts as kernel time. Holding the stream
// until the host has queued a chunk's kernels and their events lets them run back to back,
// as Nsight Compute's per-kernel durations would time them.
//
// Contents
//   1. hold_stream   spin, sleeping between looks, until gate[0] != 0 or `limit_ns` have
//                    passed (then gate[1] = 1, so the host can tell a hold that timed out)
//
// gate: two words of pinned host memory, mapped into the device's address space (unified
// addressing). One thread; no shared memory.

namespace seqwarp {

__device__ __forceinline__ unsigned long long global_nanoseconds() {
#ifdef SEQWARP_CPU_EMULATOR  // the tests' CPU emulator (tests/emulator)
    return seqwarp_emu::nanoseconds();
#else
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
#endif
}

__global__ void hold_stream(volatile unsigned* gate, unsigned long long limit_ns) {
    const unsigned long long start = global_nanoseconds();
    while (gate[0] == 0) {
        if (global_nanoseconds() - start > limit_ns) {
            gate[1] = 1;
            return;
        }
        __nanosleep(1000);
    }
}

}  // namespace seqwarp
