// CUDA C++ kernels compiled by the host compiler and run on the CPU, for tests on machines
// without a GPU: every CUDA thread of a block is a fiber, a block's fibers take turns on the
// calling thread, and the warp-level primitives (shuffles, votes, reductions, __syncwarp)
// meet the lanes of their mask the way a warp's converged lanes do. Shared memory is the
// block's: `__shared__` variables are thread_local statics, and a block runs on one host
// thread at a time. What this cannot show: timing, the memory model's reorderings, and
// thread block clusters (a cluster launch fails here).
#pragma once

#define SEQWARP_CPU_EMULATOR 1

#include <setjmp.h>
#include <ucontext.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __align__(n) alignas(n)
#define __shared__ static thread_local
#define __constant__ static

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct uint2 {
    unsigned x, y;
};
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
struct int2 {
    int x, y;
};
struct alignas(16) int4 {
    int x, y, z, w;
};
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }

namespace seqwarp_emu {

constexpr int WARP = 32;
constexpr size_t STACK_BYTES = 256 * 1024;

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Block;

// a fiber starts through makecontext and then switches by _setjmp / _longjmp, which unlike
// swapcontext leave the signal mask alone (no system call a switch)
struct Fiber {
    ucontext_t context;
    jmp_buf resume;
    bool started = false;
    Block* block = nullptr;
    dim3 thread;
    unsigned lane = 0, warp = 0;
    bool done = false;
    char* stack = nullptr;
};

// fiber stacks, kept for the next launch on this host thread (left uninitialised)
inline char* stack_for(size_t index) {
    static thread_local std::vector<std::unique_ptr<char[]>> stacks;
    while (stacks.size() <= index) stacks.emplace_back(new char[STACK_BYTES]);
    return stacks[index].get();
}

// a warp-level meeting of the lanes in `mask`: each lane leaves its value, and when every lane
// of the mask that has not exited has arrived, the values are frozen for all to read
struct Meeting {
    unsigned mask = 0;
    unsigned arrived = 0;
    unsigned long long round = 0;
    unsigned long long values[WARP] = {};
    unsigned long long frozen[WARP] = {};
    unsigned present = 0;  // the lanes whose values are frozen
};

struct Warp {
    unsigned exited = 0;
    std::deque<Meeting> meetings;  // a deque: a lane waiting in one keeps its reference
    Meeting& meeting(unsigned mask) {
        for (auto& m : meetings)
            if (m.mask == mask) return m;
        meetings.emplace_back();
        meetings.back().mask = mask;
        return meetings.back();
    }
};

struct Block {
    dim3 index, grid, threads;
    std::vector<Fiber> fibers;
    std::vector<Warp> warps;
    jmp_buf scheduler;
    unsigned char* dynamic_shared = nullptr;
    unsigned long long progress = 0;
    // __syncthreads
    unsigned barrier_arrived = 0;
    unsigned long long barrier_round = 0;
    unsigned live = 0;
};

inline thread_local Fiber* current = nullptr;
inline thread_local std::string failure;

[[noreturn]] inline void fail(const std::string& why) {
    char where[96];
    std::snprintf(where, sizeof where, " (block %u, thread %u)", current ? current->block->index.x : 0u,
                  current ? current->thread.x : 0u);
    failure = why + where;
    throw Failure(failure);
}

inline void yield() {
    if (!_setjmp(current->resume)) _longjmp(current->block->scheduler, 1);
}

template <class T>
inline unsigned long long to_bits(T value) {
    static_assert(sizeof(T) <= 8, "a warp exchange moves at most 8 bytes a lane");
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}

template <class T>
inline T from_bits(unsigned long long bits) {
    T value;
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}

// every lane of `mask` leaves `value`; returns the frozen values of the meeting (lane-indexed)
inline const Meeting& meet(unsigned mask, unsigned long long value) {
    Fiber* self = current;
    if (!(mask >> self->lane & 1u)) fail("a warp primitive's mask leaves out the calling lane");
    Warp& warp = self->block->warps[self->warp];
    Meeting& m = warp.meeting(mask);
    const unsigned long long round = m.round;
    m.values[self->lane] = value;
    m.arrived |= 1u << self->lane;
    ++self->block->progress;
    for (;;) {
        if (m.round != round) break;
        const unsigned needed = mask & ~warp.exited;
        if ((m.arrived & needed) == needed) {
            std::memcpy(m.frozen, m.values, sizeof m.values);
            m.present = m.arrived;
            m.arrived = 0;
            ++m.round;
            ++self->block->progress;
            break;
        }
        yield();
    }
    return m;
}

inline void fiber_main(unsigned low, unsigned high);

}  // namespace seqwarp_emu

#define threadIdx (seqwarp_emu::current->thread)
#define blockIdx (seqwarp_emu::current->block->index)
#define blockDim (seqwarp_emu::current->block->threads)
#define gridDim (seqwarp_emu::current->block->grid)
constexpr int warpSize = 32;

// ---- synchronisation ----------------------------------------------------------------------
inline void __syncwarp(unsigned mask = 0xffffffffu) { seqwarp_emu::meet(mask, 0); }

inline void __syncthreads() {
    using namespace seqwarp_emu;
    Block& b = *current->block;
    const unsigned long long round = b.barrier_round;
    ++b.barrier_arrived;
    ++b.progress;
    for (;;) {
        if (b.barrier_round != round) return;
        if (b.barrier_arrived >= b.live) {
            b.barrier_arrived = 0;
            ++b.barrier_round;
            ++b.progress;
            return;
        }
        yield();
    }
}

inline void __threadfence_block() {}
inline void __threadfence() {}
inline void __nanosleep(unsigned) { seqwarp_emu::yield(); }
[[noreturn]] inline void __trap() { seqwarp_emu::fail("__trap()"); }
template <class T>
inline T __ldcg(const T* p) { return *p; }
template <class T>
inline T __ldg(const T* p) { return *p; }
inline size_t __cvta_generic_to_shared(const void* p) { return (size_t)p; }

template <class T>
inline T atomicAdd(T* address, T value) {
    return __atomic_fetch_add(address, value, __ATOMIC_SEQ_CST);
}
template <class T>
inline T atomicMax(T* address, T value) {
    T old = *address;
    if (value > old) *address = value;
    return old;
}

// ---- warp primitives ----------------------------------------------------------------------
template <class T>
inline T __shfl_sync(unsigned mask, T var, int src, int width = 32) {
    using namespace seqwarp_emu;
    const unsigned lane = current->lane;
    const Meeting& m = meet(mask, to_bits(var));
    const unsigned from = (lane & ~(unsigned)(width - 1)) + ((unsigned)src & (unsigned)(width - 1));
    if (!(m.present >> from & 1u)) fail("__shfl_sync reads a lane outside the meeting");
    return from_bits<T>(m.frozen[from]);
}

template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
    using namespace seqwarp_emu;
    const unsigned lane = current->lane;
    const Meeting& m = meet(mask, to_bits(var));
    if ((lane & (unsigned)(width - 1)) < delta) return var;
    const unsigned from = lane - delta;
    if (!(m.present >> from & 1u)) fail("__shfl_up_sync reads a lane outside the meeting");
    return from_bits<T>(m.frozen[from]);
}

template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
    using namespace seqwarp_emu;
    const unsigned lane = current->lane;
    const Meeting& m = meet(mask, to_bits(var));
    if ((lane & (unsigned)(width - 1)) + delta >= (unsigned)width) return var;
    const unsigned from = lane + delta;
    if (!(m.present >> from & 1u)) fail("__shfl_down_sync reads a lane outside the meeting");
    return from_bits<T>(m.frozen[from]);
}

template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
    using namespace seqwarp_emu;
    const unsigned lane = current->lane;
    const Meeting& m = meet(mask, to_bits(var));
    const unsigned from = lane ^ (unsigned)lane_mask;
    if (from >= ((lane / (unsigned)width) + 1) * (unsigned)width) return var;
    if (!(m.present >> from & 1u)) fail("__shfl_xor_sync reads a lane outside the meeting");
    return from_bits<T>(m.frozen[from]);
}

inline unsigned __ballot_sync(unsigned mask, int predicate) {
    const auto& m = seqwarp_emu::meet(mask, predicate != 0);
    unsigned bits = 0;
    for (int l = 0; l < 32; ++l)
        if ((m.present >> l & 1u) && m.frozen[l]) bits |= 1u << l;
    return bits;
}
inline int __all_sync(unsigned mask, int predicate) {
    const auto& m = seqwarp_emu::meet(mask, predicate != 0);
    for (int l = 0; l < 32; ++l)
        if ((m.present >> l & 1u) && !m.frozen[l]) return 0;
    return 1;
}
inline int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }

template <class T, class Pick>
inline T reduce_sync(unsigned mask, T value, Pick pick) {
    const auto& m = seqwarp_emu::meet(mask, seqwarp_emu::to_bits(value));
    bool first = true;
    T result{};
    for (int l = 0; l < 32; ++l) {
        if (!(m.present >> l & 1u)) continue;
        const T v = seqwarp_emu::from_bits<T>(m.frozen[l]);
        result = first ? v : pick(result, v);
        first = false;
    }
    return result;
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
    return reduce_sync(mask, v, [](unsigned a, unsigned b) { return a > b ? a : b; });
}
inline int __reduce_max_sync(unsigned mask, int v) {
    return reduce_sync(mask, v, [](int a, int b) { return a > b ? a : b; });
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
    return reduce_sync(mask, v, [](unsigned a, unsigned b) { return a < b ? a : b; });
}
inline int __reduce_min_sync(unsigned mask, int v) {
    return reduce_sync(mask, v, [](int a, int b) { return a < b ? a : b; });
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) {
    return reduce_sync(mask, v, [](unsigned a, unsigned b) { return a + b; });
}

// ---- integer arithmetic -------------------------------------------------------------------
template <class A, class B>
inline std::common_type_t<A, B> max(A a, B b) {
    using C = std::common_type_t<A, B>;
    return (C)a > (C)b ? (C)a : (C)b;
}
template <class A, class B>
inline std::common_type_t<A, B> min(A a, B b) {
    using C = std::common_type_t<A, B>;
    return (C)a < (C)b ? (C)a : (C)b;
}

namespace seqwarp_emu {
inline int half(unsigned x, int k) { return (int)(short)(k ? x >> 16 : x & 0xffffu); }
inline unsigned pack(int lo, int hi) { return ((unsigned)lo & 0xffffu) | ((unsigned)hi << 16); }
template <class F>
inline unsigned halves(unsigned a, unsigned b, F f) {
    return pack(f(half(a, 0), half(b, 0)), f(half(a, 1), half(b, 1)));
}
template <class F>
inline unsigned halves(unsigned a, unsigned b, unsigned c, F f) {
    return pack(f(half(a, 0), half(b, 0), half(c, 0)), f(half(a, 1), half(b, 1), half(c, 1)));
}
inline int wrap16(int x) { return (int)(short)(x & 0xffff); }
}  // namespace seqwarp_emu

inline unsigned __vadd2(unsigned a, unsigned b) {
    return seqwarp_emu::halves(a, b, [](int x, int y) { return x + y; });
}
inline unsigned __vsub2(unsigned a, unsigned b) {
    return seqwarp_emu::halves(a, b, [](int x, int y) { return x - y; });
}
inline unsigned __vneg2(unsigned a) { return __vsub2(0u, a); }
inline unsigned __vmaxs2(unsigned a, unsigned b) {
    return seqwarp_emu::halves(a, b, [](int x, int y) { return std::max(x, y); });
}
inline unsigned __vmins2(unsigned a, unsigned b) {
    return seqwarp_emu::halves(a, b, [](int x, int y) { return std::min(x, y); });
}
inline unsigned __vminu2(unsigned a, unsigned b) {
    const unsigned lo = std::min(a & 0xffffu, b & 0xffffu), hi = std::min(a >> 16, b >> 16);
    return lo | hi << 16;
}
inline unsigned __vmaxu2(unsigned a, unsigned b) {
    const unsigned lo = std::max(a & 0xffffu, b & 0xffffu), hi = std::max(a >> 16, b >> 16);
    return lo | hi << 16;
}
inline unsigned __vcmpne2(unsigned a, unsigned b) {
    return ((a & 0xffffu) != (b & 0xffffu) ? 0xffffu : 0u) | ((a >> 16) != (b >> 16) ? 0xffff0000u : 0u);
}
inline unsigned __vcmpeq2(unsigned a, unsigned b) { return ~__vcmpne2(a, b); }
inline unsigned __vcmpgts2(unsigned a, unsigned b) {
    using seqwarp_emu::half;
    return (half(a, 0) > half(b, 0) ? 0xffffu : 0u) | (half(a, 1) > half(b, 1) ? 0xffff0000u : 0u);
}
// DPX (Hopper): the adds wrap, as VIADDMNMX's do
inline unsigned __viaddmax_s16x2(unsigned a, unsigned b, unsigned c) {
    using namespace seqwarp_emu;
    return halves(a, b, c, [](int x, int y, int z) { return std::max(wrap16(x + y), z); });
}
inline unsigned __viaddmax_s16x2_relu(unsigned a, unsigned b, unsigned c) {
    using namespace seqwarp_emu;
    return halves(a, b, c, [](int x, int y, int z) { return std::max({wrap16(x + y), z, 0}); });
}
inline unsigned __viaddmin_s16x2(unsigned a, unsigned b, unsigned c) {
    using namespace seqwarp_emu;
    return halves(a, b, c, [](int x, int y, int z) { return std::min(wrap16(x + y), z); });
}
inline unsigned __viaddmin_u16x2(unsigned a, unsigned b, unsigned c) {
    const unsigned lo = std::min((a + b) & 0xffffu, c & 0xffffu);
    const unsigned hi = std::min(((a >> 16) + (b >> 16)) & 0xffffu, c >> 16);
    return lo | hi << 16;
}
inline unsigned __viaddmax_u16x2(unsigned a, unsigned b, unsigned c) {
    const unsigned lo = std::max((a + b) & 0xffffu, c & 0xffffu);
    const unsigned hi = std::max(((a >> 16) + (b >> 16)) & 0xffffu, c >> 16);
    return lo | hi << 16;
}
inline unsigned __vimax3_s16x2(unsigned a, unsigned b, unsigned c) {
    return seqwarp_emu::halves(a, b, c, [](int x, int y, int z) { return std::max({x, y, z}); });
}
inline unsigned __vimax3_s16x2_relu(unsigned a, unsigned b, unsigned c) {
    return seqwarp_emu::halves(a, b, c, [](int x, int y, int z) { return std::max({x, y, z, 0}); });
}
inline unsigned __vimin3_s16x2(unsigned a, unsigned b, unsigned c) {
    return seqwarp_emu::halves(a, b, c, [](int x, int y, int z) { return std::min({x, y, z}); });
}
inline unsigned __vimax_s16x2_relu(unsigned a, unsigned b) {
    return seqwarp_emu::halves(a, b, [](int x, int y) { return std::max({x, y, 0}); });
}
inline unsigned __vibmax_s16x2(unsigned a, unsigned b, bool* pred_lo, bool* pred_hi) {
    using seqwarp_emu::half;
    *pred_lo = half(a, 0) >= half(b, 0);
    *pred_hi = half(a, 1) >= half(b, 1);
    return __vmaxs2(a, b);
}
inline int __viaddmax_s32(int a, int b, int c) { return std::max((int)((unsigned)a + (unsigned)b), c); }
inline int __viaddmax_s32_relu(int a, int b, int c) {
    return std::max({(int)((unsigned)a + (unsigned)b), c, 0});
}
inline int __viaddmin_s32(int a, int b, int c) { return std::min((int)((unsigned)a + (unsigned)b), c); }
inline int __vimax3_s32(int a, int b, int c) { return std::max({a, b, c}); }
inline int __vimax3_s32_relu(int a, int b, int c) { return std::max({a, b, c, 0}); }
inline int __vimin3_s32(int a, int b, int c) { return std::min({a, b, c}); }
inline int __vimax_s32_relu(int a, int b) { return std::max({a, b, 0}); }

// PTX prmt.b32 in its default mode: result byte k is byte (s >> 4k) & 7 of {b, a} (a's bytes
// 0-3, b's 4-7), replicated from its sign bit where bit 3 of the selector is set
namespace seqwarp_emu {
inline unsigned prmt(unsigned a, unsigned b, unsigned s) {
    const unsigned long long both = (unsigned long long)b << 32 | a;
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) {
        const unsigned selector = s >> (4 * k) & 0xfu;
        unsigned byte = (unsigned)(both >> (8 * (selector & 7u))) & 0xffu;
        if (selector & 8u) byte = byte & 0x80u ? 0xffu : 0u;
        r |= byte << (8 * k);
    }
    return r;
}
}  // namespace seqwarp_emu
// CUDA's __byte_perm: prmt without the sign replication
inline unsigned __byte_perm(unsigned a, unsigned b, unsigned s) { return seqwarp_emu::prmt(a, b, s & 0x7777u); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
    const unsigned long long both = (unsigned long long)hi << 32 | lo;
    return (unsigned)((both << (shift & 31u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    const unsigned long long both = (unsigned long long)hi << 32 | lo;
    return (unsigned)(both >> (shift & 31u));
}

// ---- half precision (IEEE binary16 through the compiler's _Float16) ------------------------
struct __half {
    _Float16 x;
};
struct alignas(4) __half2 {
    _Float16 x, y;
};
inline __half2 __float2half2_rn(float v) { return {(_Float16)v, (_Float16)v}; }
inline __half __int2half_rn(int v) { return {(_Float16)v}; }
inline float __half2float(__half h) { return (float)h.x; }
inline unsigned short __half_as_ushort(__half h) {
    unsigned short bits;
    std::memcpy(&bits, &h, 2);
    return bits;
}
inline __half __low2half(__half2 v) { return {v.x}; }
inline __half __high2half(__half2 v) { return {v.y}; }
inline __half2 __hadd2(__half2 a, __half2 b) { return {(_Float16)(a.x + b.x), (_Float16)(a.y + b.y)}; }
inline _Float16 half_max(_Float16 a, _Float16 b) {
    if (a != a) return b;  // __hmax2: a NaN loses to a number
    if (b != b) return a;
    return a > b ? a : b;
}
inline __half2 __hmax2(__half2 a, __half2 b) { return {half_max(a.x, b.x), half_max(a.y, b.y)}; }
inline unsigned __hgt2_mask(__half2 a, __half2 b) {
    return (a.x > b.x ? 0xffffu : 0u) | (a.y > b.y ? 0xffff0000u : 0u);
}

// ---- launching ----------------------------------------------------------------------------
namespace seqwarp_emu {

struct Launch {
    unsigned grid[3];
    unsigned block[3];
    unsigned long long shared_bytes;
};

inline thread_local void (*entry)(void*) = nullptr;
inline thread_local void* entry_data = nullptr;

inline void fiber_main(unsigned, unsigned) {
    Fiber* self = current;
    try {
        entry(entry_data);
    } catch (const Failure&) {
        // recorded in `failure`; the scheduler stops the block
    }
    self->done = true;
    Block& b = *self->block;
    b.warps[self->warp].exited |= 1u << self->lane;
    --b.live;
    ++b.progress;
    _longjmp(b.scheduler, 1);
}

// run every block of the grid, one after another; returns an empty string or what failed
template <class Body>
inline std::string run_grid(const Launch& launch, Body&& body) {
    failure.clear();
    const unsigned threads = launch.block[0] * launch.block[1] * launch.block[2];
    if (threads == 0 || threads > 1024) return "a block of " + std::to_string(threads) + " threads";
    std::vector<unsigned char> dynamic(launch.shared_bytes + 16);
    Block block;
    block.grid = {launch.grid[0], launch.grid[1], launch.grid[2]};
    block.threads = {launch.block[0], launch.block[1], launch.block[2]};
    block.fibers.resize(threads);
    for (unsigned t = 0; t < threads; ++t) block.fibers[t].stack = stack_for(t);
    auto call = [](void* data) { (*static_cast<std::remove_reference_t<Body>*>(data))(); };
    entry = call;
    entry_data = (void*)&body;
    for (unsigned bz = 0; bz < launch.grid[2]; ++bz)
        for (unsigned by = 0; by < launch.grid[1]; ++by)
            for (unsigned bx = 0; bx < launch.grid[0]; ++bx) {
                block.index = {bx, by, bz};
                block.warps.assign((threads + WARP - 1) / WARP, Warp{});
                if (threads % WARP)  // the last warp's missing lanes count as exited
                    block.warps.back().exited = ~0u << (threads % WARP);
                block.dynamic_shared = dynamic.data();
                block.live = threads;
                block.barrier_arrived = 0;
                for (unsigned t = 0; t < threads; ++t) {
                    Fiber& f = block.fibers[t];
                    f.block = &block;
                    f.done = false;
                    f.started = false;
                    f.thread = {t % launch.block[0], t / launch.block[0] % launch.block[1],
                                t / (launch.block[0] * launch.block[1])};
                    f.lane = t % WARP;
                    f.warp = t / WARP;
                    getcontext(&f.context);
                    f.context.uc_stack.ss_sp = f.stack;
                    f.context.uc_stack.ss_size = STACK_BYTES;
                    f.context.uc_link = nullptr;
                    makecontext(&f.context, (void (*)())fiber_main, 2, 0u, 0u);
                }
                unsigned long long idle_passes = 0, seen = 0;
                for (;;) {
                    bool any = false;
                    for (auto& f : block.fibers) {
                        if (f.done) continue;
                        any = true;
                        current = &f;
                        if (!_setjmp(block.scheduler)) {
                            if (f.started) _longjmp(f.resume, 1);
                            f.started = true;
                            setcontext(&f.context);
                        }
                        current = nullptr;
                        if (!failure.empty()) return failure;
                    }
                    if (!any) break;
                    if (block.progress == seen) {
                        if (++idle_passes > 2000000) return "the block's threads wait on each other forever";
                    } else {
                        idle_passes = 0;
                        seen = block.progress;
                    }
                }
            }
    return "";
}

template <class... A, size_t... I>
inline void call_with(void (*kernel)(A...), void** args, std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_reference_t<A>*>(args[I])...);
}

template <class... A>
inline std::string launch(void (*kernel)(A...), const Launch& l, void** args) {
    auto body = [&] { call_with(kernel, args, std::index_sequence_for<A...>{}); };
    return run_grid(l, body);
}

inline unsigned char* dynamic_shared() { return current->block->dynamic_shared; }

// %globaltimer: a launch runs when it is queued here, so a kernel that waits for the host
// waits out its own time limit
inline unsigned long long nanoseconds() {
    return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace seqwarp_emu
