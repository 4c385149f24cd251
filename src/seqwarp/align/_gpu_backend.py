"""GPU backend of ``seqwarp.align``: CuPy launches of ``kernels/align_score.cu``.

Same interface as ``_cpu_backend`` (``use``, ``prepare``, ``score``, ``align``) and the same
answers, byte for byte. How a batch of pairs runs:

1. pairs with an empty query or target are answered on the host (closed formulas);
2. each remaining pair gets a lane type: two pairs per register in 16-bit lanes (DPX s16x2 by
   default, half2 on request) when :func:`plan.score_bound` proves every value fits; else,
   for global and semi-global scores, the s16x2 lane rebased (values kept relative to a base
   that moves with them, so that a pair's length no longer matters) when
   :func:`plan.rebased_reach` proves its values fit; else exact int32 (the overflow guard: a
   16-bit result is never an approximation); the s16x2 lane of a large alphabet (protein)
   reads its scores from a block's table of letter classes (:func:`letter_classes`) rather
   than a profile built per pair set;
3. pairs are sorted once by shape (a counting sort on a 16-bit key, skipped when all pairs
   share one; this and the other per-pair scans of the host are numba loops in
   ``_host_scan`` that release the interpreter lock, so several devices' threads run them
   at once),
   given a tile (threads per group x columns per thread) by target length, the one of least
   estimated work counting padded stripes (``plan.tile_runs``), and
   launched in chunks: contiguous ranges of that one order, so every per-pair argument is
   copied to the device once (per stage, step 5) and each chunk reads a slice of it; few
   pairs of long targets, too few to fill the device one group each, run on several warps
   a pair (``_split_long``: a block of warps, or on Hopper a cluster of blocks, working
   through the target's stripes as a pipeline), longest target first;
4. the residues the pairs use (the span of each code buffer they touch) go to the device
   once per call, as one flat buffer, in pieces: a few copy threads stage them through
   pinned buffers and queue their DMA on copy streams of their own, starting before the
   planning; a chunk's kernel waits (on the device) only for the pieces holding its pairs'
   residues, so copies, planning and kernels overlap;
5. a large share is planned and queued in stages (contiguous ranges of near-equal cells),
   planned at once by the planner threads and queued in order: the device runs one
   stage's chunks while the later ones are still being planned, and the chunks take
   two compute streams in turn, so that one kernel's last blocks overlap the next one's
   first (split launches go first, each on a stream of its own: ``StreamTurns``);
6. every chunk writes its pairs' rows of a stage's device result array; the rows are put
   back in call order, widened on the device and copied to pinned host memory
   asynchronously, field by field; as each stage's copy completes, the host moves it into
   the call's column-major result while the later stages run (the columns are the
   caller's, without another copy);
7. with several devices (``Aligner(gpus=N)``) the call's pairs are split into N contiguous
   ranges of near-equal cells, one per device, and each device runs steps 2-6 on its range
   alone, driven by a host thread of its own: its residue span, upload, stages, kernels and
   its slice of the pinned result. Host work and transfers are divided by N with the
   kernels, and every pair's row depends only on the pair, so the answer does not depend
   on N. An ordinal may appear more than once (``(0, 0)``: two streams of work on one GPU).
   A share whose residues or per-pair buffers do not fit the device's free memory runs in
   halves of near-equal cells, one after the other (a chunk's launch splits the same way).

A cross product's blocks (``score_matrix``, ``top_hits``) skip the per-pair host arrays of
steps 3-6: :func:`score_block` hands each to ``_gpu_cross``, which runs the same kernels on
the same lanes and tiles from the block's sorted queries and targets, the device spelling out
the pairs.

Every copy and kernel of a call goes on streams the call's threads own (``_pools``), all
non-blocking: none waits for CuPy's default stream, so nothing of a call may be queued there
(the scoring matrix once was, and a chunk could read its block before the copy landed).

``align`` (CIGAR output) runs the GPU traceback of ``_gpu_traceback``: the same forward
pass keeping direction flags, walked back on the device with the CPU engine's rules.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future, wait
from dataclasses import dataclass, replace
from functools import cache, partial
from typing import Any, TypeVar

import numpy as np

from .. import cuda
from ..devices import Backend
from ..errors import InvalidParameter
from ..scoring import check_gaps
from ..sequences import SequenceBatch
from . import _cpu_backend
from ._host_scan import (
    extent,
    gather_pairs,
    is_consecutive,
    one_query_sets,
    running_cells,
    shape_sort,
    take,
)
from ._pools import pool, thread_streams
from .plan import (
    CallBudget,
    Multiprocessor,
    PairShapes,
    identity_index,
    rebased_reach,
    resident_blocks,
    score_bound,
    shape_key,
    shared_carveout,
    tile_runs,
)
from .results import Cigars

__all__ = ["LANES", "Staged", "align", "kernel_name", "prepare", "score", "stage", "use"]

LANES = ("auto", "s16x2", "half2", "s32")
_MODES = {"global": 0, "semi-global": 1, "local": 2}
# kernel lane -> (traits struct in lanes.cuh, bytes per profile score); "s16x2-bytes" is the
# s16x2 lane with an 8-bit profile, used when every substitution score fits a signed byte;
# "-offset": the same lane in align_dp.cuh's anti-diagonal offset form (global and
# semi-global scores); "-rebased": the offset form relative to a moving base (pairs too long
# for the whole 16-bit range); "s16x2-table" reads its scores from a block's table of letter
# classes (large alphabets: no profile per pair set); "s16x2-paired" holds both pairs' scores
# of a letter and column in one profile word (pair sets that share their query)
_LANE_STRUCT = {
    "s32": ("LaneS32", 4),
    "s16x2": ("LaneS16x2", 2),
    "s16x2-bytes": ("LaneS16x2Bytes", 1),
    "s16x2-paired": ("LaneS16x2Paired", 2),
    "s16x2-table": ("LaneS16x2Table", 4),
    "half2": ("LaneHalf2", 2),
    "s32-offset": ("Offset<seqwarp::LaneS32>", 4),
    "s16x2-offset": ("Offset<seqwarp::LaneS16x2>", 2),
    "s16x2-bytes-offset": ("Offset<seqwarp::LaneS16x2Bytes>", 1),
    "s16x2-paired-offset": ("Offset<seqwarp::LaneS16x2Paired>", 2),
    "s16x2-table-offset": ("Offset<seqwarp::LaneS16x2Table>", 4),
    "s16x2-rebased": ("Rebased<seqwarp::LaneS16x2>", 2),
    "s16x2-bytes-rebased": ("Rebased<seqwarp::LaneS16x2Bytes>", 1),
    "s16x2-table-rebased": ("Rebased<seqwarp::LaneS16x2Table>", 4),
}
# rows between two moves of a rebased lane's base (align_dp.cuh's REBASE_EVERY)
_REBASE_EVERY = 64
# alphabets of more letters than this take the s16x2 lane's class table, when its C^3 words
# (C letter classes, the padding letter one of them) let 2 blocks of _TABLE_BLOCK threads
# share a multiprocessor beside local mode's snapshots (the kernel's launch bounds ask for 2;
# up to 26 classes). Measured on one H200 (one real query against 1 M proteins, BLOSUM62
# 11/1, local): 100 / 300 / 600 / 995 residues 1.01 / 1.55 / 1.79 / 1.92 TCUPS on the byte
# profile, 1.28 / 1.73 / 1.90 / 1.98 on the table (25 classes)
_TABLE_ABOVE_LETTERS = 8
# the s16x2 lane takes the paired profile when this share of sampled pair sets (of at most
# _PAIRED_SAMPLE) align both their pairs to one query, on tiles of at most
# _PAIRED_MOST_COLUMNS columns a thread. Measured on one H200, the kernels of all pairs of a
# read set against the byte profile's: 125 bp on 8 x 16 +5 / +13 % (global linear / local
# affine), 250 bp on 16 x 16 +7 / +9 / +15 % (global linear / global affine / local affine),
# 512 bp on 8 x 16 +2.5 / +6 / +7 / +14 % (global linear, global and semi-global affine,
# local affine), but on 16 x 32, the tile 512 bp reads take, -2 / +1 / -3 / +4 % (its words
# take 768 bytes of shared memory a thread: 9 warps a multiprocessor), and on the same stripe
# as 32 x 16 -1 / +0 / -13 / +4 % (16 warps, but latency-bound: fewer ALU instructions a cell,
# more in all)
_PAIRED_SHARE = 0.75
_PAIRED_SAMPLE = 4096
_PAIRED_MOST_COLUMNS = 16
_TABLE_MAX_BYTES = 75 * 1024
_TABLE_BLOCK = 384
# the largest |value| each lane type holds exactly (lanes.cuh: s16x2 keeps -16384 as minus
# infinity; half represents every integer up to 2048)
_LANE_LIMIT = {"s16x2": 12000, "half2": 2048}
# packed lanes keep local alignments' end rows in 16 bits (rebased lanes: in int32)
_PACKED_MAX_LENGTH = 32767
_BLOCK = 128
# the shared memory a block may take, static and dynamic (sm_90's opt-in limit, 227 KiB)
_SHARED_PER_BLOCK = 227 * 1024
# few long pairs cannot fill a device one group each: the pairs of a launch of fewer than
# _SPLIT_BELOW_GROUPS groups whose targets span at least _SPLIT stripes run _SPLIT warps to a
# pair set, one block each, as a pipeline along the target (align_dp.cuh's SPLIT). About
# 6,000 16-thread groups fill an H200 once; 30 k pairs of 4 kbp (15 k groups) ran at 4.4
# TCUPS as one group each and 2.8 split, and 15 k pairs of 8 kbp (7.6 k groups of the rebased
# lane) at 3.6 as one group each and 2.1 split (global affine)
_SPLIT = 8
_SPLIT_BELOW_GROUPS = 1 << 12
# from compute capability 9.0 a split pair set spans a cluster of 8, 4 or 2 such blocks (on
# as many SMs) when its target gives each of the cluster's warps at least _CLUSTER_ROUNDS
# stripes: one block's SM bounded the longest pairs (2,500 PBSIM reads: the longest pair set,
# 2 x 3 x 10^9 cells, took about as long as the whole call). Measured on one H200, global
# affine, int32 lanes, whole calls: one block 304 ms; clusters of 4 and 2 from 1 round 195
# ms, from 2 rounds 209 ms; of 2 only 205 ms; of 8, 4 and 2 from 1 round 202 ms. With the
# long pairs two a register (rebased s16x2) the longest sets bound the call more: kernels of
# the benchmark's long reads 1.44 TCUPS with clusters of 4 and 2, 1.95 with 8, 4 and 2
# (int32: 1.61, 1.56). A size counts stripes at the width its warps take (_split_columns).
# One block a set is the most efficient: alone, the long reads' sets of up to 16 kbp ran
# 3.41 TCUPS on one block each, those of 8-16 kbp 2.39 on clusters of 2; so clusters take
# only the sets that would otherwise bound a call. Each size is one more launch, on a stream
# of its own (StreamTurns): taking the call's streams in turn, a launch of few long sets
# queued ahead of the large one-block launch held that one back. The long reads' kernels
# (global / semi-global affine, two alternating rounds), split launches on streams of their
# own: clusters of 8, 4 and 2 (the 10 sets from 31.7 kbp on 4, none long enough for 8) 3.37
# / 3.10 TCUPS; Hopper's non-portable 16 (at the tile's stripe width) with 2 3.29 / 3.02,
# with 4 and 2 3.28 / 3.02, with 4 only 2.25 / 2.13. On the streams taken in turn, 16 and 2
# had led (3.10 / 2.82, then the engine's sizes on Hopper); 16 ahead of 8 had gained 2-4 %
_CLUSTERS = (8, 4, 2)
_CLUSTER_ROUNDS = 1
# a split launch's warps keep the stripe width of the pairs' tile (16 x 32 for DNA: 16
# columns a thread), except where _split_columns gives them the tile's 32 columns a
# thread (stripes of 1,024, kernels bounded to 128 registers: align_score.cu's min_blocks):
# the 16-bit lanes with a byte profile in the offset form, and in the rebased form where
# its reach over such a stripe holds. Measured on one H200, the
# benchmark's long reads, two alternating rounds, kernels TCUPS (global affine / semi-global
# affine), the cluster sizes' thresholds of the time: stripe width kept 2.54 / 2.11; wide on
# clusters of 8 only (the longest sets) 2.54 / 2.10; wide up to clusters of 8 2.67 / 2.38;
# clusters of 4 kept at the tile's width 2.96 / 2.65 against 3.01 / 2.74 wide. The offset
# form's semi-global kernel bounded too: 151 -> 128 registers, its launch alone 9.6 -> 7.1
# ms. Unbounded (151-162 registers, 8 warps a multiprocessor) wide stripes on every split
# launch had lost: 1.80 / 1.65 against 1.94 / 1.78 (before the windows of handed-on rows)
# (threads per group, columns per thread) by the widest target each holds in one stripe
# (measured on the H200: 16 x 32 beats 32 x 16 by 8-16 % at 512 bp, more columns per thread
# amortising each row's shuffles and profile loads). Tiles of 20 and 24 columns a thread fit
# the short reads' windows with less padding (a 138-residue window: one stripe of 160 columns
# instead of 256; a 564-residue one: three of 192 instead of five of 128); measured kernels,
# the short reads of every mode and gap model: 24 columns against the power-of-two tiles
# alone, 125 bp +24-53 %, 512 bp +10-23 %, 1,024 bp +2-13 %, 250 bp -8 to +10.5 %; 20
# columns beside them, 125 bp +6-24 %, 250 bp +5-23 % (plan.tile_cost picked the fastest
# tile of each length that bench align-tiles timed). The traceback's fills take the same
# tiles: their forward passes 125 bp 35-42 % and 512 bp 10-23 % shorter than on the
# power-of-two tiles alone
_TILES_DNA = ((8, 16), (8, 20), (8, 24), (16, 16), (16, 20), (16, 24), (16, 32))
_TILES_PROTEIN = ((8, 8), (16, 8), (32, 8))
# the class table's lane builds no profile, so its threads may hold more columns: 12 a thread,
# and 16 on 32 threads for targets past three 384-column stripes (the power-of-two stripes
# that split launches take). Measured on one H200, kernels, one query against 1 M proteins
# (BLOSUM62 11/1, local, every score equal to the int32 kernel's), queries of 100 / 300 /
# 995 residues: _TILES_PROTEIN 1.65 / 2.13 / 2.35 TCUPS, 12 columns a thread (8, 16 and 32
# threads) 2.01 / 2.43 / 2.60, with 32 x 16 beside them 2.06 / 2.61 / 2.85, with 32 x 8
# instead 1.77 / 2.41 / 2.74; 16 columns on 8, 16 and 32 threads 1.97 / 2.33 / 2.48 (80
# registers, two blocks of 384 threads a multiprocessor, the ALU pipe 81 % busy on 32 x 8).
# Since two rows a pass: 16 columns beside 12 (tile_cost choosing) -0.3 to +0.9 %, 16 alone
# -7 to -12 %, 20-32 columns at one block of 384 (align_score.cu's min_blocks) -6 to -13 %
# (bench/results/align-gpu-profile-experiment-h200-2026-12-04.log)
_TILES_TABLE = ((8, 12), (16, 12), (32, 12), (32, 16))
_MAX_CHUNK_PAIRS = 1 << 22
_SCRATCH_BYTES = 1 << 30
# split launches' handed-on columns (two columns of the longest query per warp) bound their
# chunks: 2,500 PBSIM reads of up to 60 kbp took 529 ms with 1 GiB (chunks of about a wave),
# 332 ms with 4 GiB and 328 ms with 8 GiB on one H200 (a chunk that does not fit is halved)
_SPLIT_SCRATCH_BYTES = 1 << 32
# a large launch runs in at least this many chunks, of at least _MIN_CHUNK_PAIRS pairs, so
# that its first kernels start while the later chunks' residues are still being copied (on
# the call's streams in turn the chunks' tails overlap: the kernels of 8 chunks took at most
# 0.9 % longer than of 1 at 125 and 512 bp, 1.5 % on the protein search, H200)
_MIN_CHUNKS = 8
_MIN_CHUNK_PAIRS = 1 << 14
# a device's first launch starts with a chunk of this many pairs, each next one twice as large
_LEAD_PAIRS = 1 << 14
# residues go to the device in pieces of this size, each of a device's _COPY_THREADS copy
# threads staging the next piece in turn through two pinned buffers of its own (measured on a
# 4 x H200 host, 4 M pairs of 512 bp, whole calls on 1 / 2 / 4 GPUs, with pieces growing
# from 8 to 32 MiB: 2 / 3 / 4 threads per device 548 / 453 / 399 ms on 1 GPU, 313 / 249 /
# 233 ms on 2, 241 / 247 / 214 ms on 4; 2 threads with 8 MiB pieces 416 / 241 / 217 ms. A
# thread copies about 7 GB/s into pinned memory there, and these copies bound a call)
_PIECE_BYTES = 1 << 23
_COPY_THREADS = 4
# a device's share of a call is planned and queued in stages of these relative sizes (in
# cells), each of at least _MIN_STAGE_PAIRS pairs (the device runs a stage while the later
# ones are still being planned): a short first stage starts the kernels sooner, a short
# last one leaves little to copy back after them (measured on a 2 x H200 host, 4 M pairs of
# 512 bp, medians of 9 calls: 1 GPU 283 ms against 291 ms with four equal stages and 283 ms
# with 1-7-7-1, 2 GPUs 156 against 162 and 159 ms). Its chunks alternate between _STREAMS
# compute streams (one kernel's tail overlaps the next), its split launches' beside them
_STAGE_SHARES = (2, 6, 6, 2)
_MIN_STAGE_PAIRS = 1 << 15
_STREAMS = 2

# CUDA devices in use, one per share of a score() call; an ordinal may repeat
_devices: tuple[int, ...] = (0,)

T = TypeVar("T")


def use(backend: Backend) -> None:
    """Run on the backend's CUDA devices (a repeated ordinal gets a share of its own)."""
    global _devices
    _devices = backend.ordinals or (0,)


def prepare(threads: int | None) -> CallBudget:
    """Set the host threads (the CIGAR path runs on them); returns how much one call takes:
    per device, 2^41 cells (0.5-1 s of kernels on an H200: the fixed costs of a call, its
    first stage's planning, first copies and last kernels, are then small beside them; on one
    H200, 4 M pairs of 512 bp took 343 ms as one call against 395-411 ms as two of 2^39
    cells, and the 10 x 1 M protein search 1.61 s against 1.71-1.75 s) and at most 2^22
    pairs (bounding the residues and per-pair arguments a call puts on a device)."""
    _cpu_backend.prepare(threads)
    return CallBudget(cells=len(_devices) << 41, pairs=len(_devices) << 22)


def kernel_name(
    mode: str,
    affine: bool,
    lane: str,
    columns: int,
    group: int,
    split: int = 1,
    cluster: int = 1,
    *,
    ends: bool = True,
) -> str:
    """The template instantiation (an NVRTC name expression) for one configuration; ``lane``
    is a key of ``_LANE_STRUCT``, ``split`` the warps of a block sharing a pair set and
    ``cluster`` the blocks (a thread block cluster) sharing it. ``ends=False``: local scores
    without their end cells (the other modes find theirs at no cost and keep them)."""
    head = f"{_MODES[mode]}, {'true' if affine else 'false'}, seqwarp::{_LANE_STRUCT[lane][0]}"
    scores_only = not ends and mode == "local"
    if cluster > 1:
        tail = ", false" if scores_only else ""
        return f"seqwarp::align_score_cluster<{head}, {columns}, {split}, {cluster}{tail}>"
    tail = f", {split}, false" if scores_only else f", {split}" if split > 1 else ""
    return f"seqwarp::align_score<{head}, {columns}, {group}{tail}>"


@dataclass(frozen=True)
class _Launch:
    """One kernel configuration and the pairs (positions in the call) it runs."""

    lane: str  # what the caller asked for: s32, s16x2 or half2
    kernel_lane: str  # a key of _LANE_STRUCT
    group: int
    columns: int
    pairs: np.ndarray
    start: int = 0  # where ``pairs`` begins in the call's order of pairs
    split: int = 1  # warps of a block sharing a pair set (> 1: group is 32)
    cluster: int = 1  # blocks sharing a pair set (> 1: split > 1)

    @property
    def table(self) -> bool:
        """Whether the launch reads the class table (no profile; ``alpha`` counts classes)."""
        return "table" in self.kernel_lane

    @property
    def lane_pairs(self) -> int:
        """Pairs a register holds: one in the int32 lane, two in the 16-bit ones."""
        return 1 if self.lane == "s32" else 2

    def profile_bytes(self, alpha: int, width: int) -> int:
        """Shared memory of one pair set's profile over a stripe of ``width`` columns
        (``alpha`` letters and the padding one)."""
        return self.lane_pairs * (alpha + 1) * width * _LANE_STRUCT[self.kernel_lane][1]

    @property
    def handed_words(self) -> int:
        """32-bit words a row of the column handed between stripes takes: (hg, F) bit
        patterns, or a rebased lane's two pairs' hg and F as int32 values."""
        return 4 if "rebased" in self.kernel_lane else 2

    @property
    def name_args(self) -> tuple[str, int, int, int, int]:
        """The lane, columns, group, split and cluster of :func:`kernel_name`."""
        return self.kernel_lane, self.columns, self.group, self.split, self.cluster


def _empty_pairs(m: np.ndarray, n: np.ndarray, mode: str, gap_open: int, gap_extend: int):
    """(score, q_end, t_end) of pairs with an empty side, as the CPU engine defines them."""
    if mode == "local":
        return np.zeros(len(m), dtype=np.int64), np.zeros_like(m), np.zeros_like(n)
    if mode == "semi-global":
        return np.zeros(len(m), dtype=np.int64), m, n
    k = m + n
    score = np.where(k > 0, -(gap_open + (k - 1) * gap_extend), 0)
    return score.astype(np.int64), m, n


def _plan(
    m: np.ndarray,
    n: np.ndarray,
    matrix: np.ndarray,
    gap_open: int,
    gap_extend: int,
    lanes: str,
    tiles: tuple[tuple[int, int], ...] | None = None,
    offset: bool = False,
    table: bool = True,
    query_starts: np.ndarray | None = None,
) -> list[_Launch]:
    """Lane type and tile of every pair with both sides non-empty; ``tiles`` overrides the
    (threads per group, columns per thread) choices, narrowest first; ``offset`` (global and
    semi-global scores) runs the fused lanes in the anti-diagonal offset form, and the pairs
    too long for the s16x2 lane its rebased form where that holds them; ``table`` lets a
    large alphabet's s16x2 lane read the class table (score kernels); ``query_starts`` (each
    pair's query offset) lets the s16x2 lane take the paired profile where pair sets share
    their query (:func:`_shares_queries`). The launches' pairs are consecutive slices of one
    array (``_Launch.start`` says where each begins)."""
    shortest_m, longest_m = int(m.min()), int(m.max())
    shortest_n, longest_n = int(n.min()), int(n.max())
    if shortest_m == longest_m > 0 and shortest_n == longest_n > 0:
        # one shape: the pairs are in order already
        work = identity_index(len(m))
        keys = np.full(len(m), shape_key(m[:1], n[:1])[0])
    else:
        work, keys = shape_sort(m, n)
        if len(work) == 0:
            return []
    if lanes == "s32":
        narrow = np.zeros(len(work), dtype=bool)
        packed = "s16x2"
    else:
        packed = "s16x2" if lanes == "auto" else lanes
        # the bound grows with both lengths: when the longest pair fits, all do
        if _narrow(longest_m, longest_n, matrix, gap_open, gap_extend, packed).all():
            narrow = np.ones(len(work), dtype=bool)
        else:
            narrow = _narrow(m[work], n[work], matrix, gap_open, gap_extend, packed)
    # one array for every launch: the narrow lane's pairs, then the others' (rebased s16x2 or
    # int32); the fused lanes in the offset form when asked (plan.offset_bound: it holds
    # whatever they hold)
    table = table and _class_table(matrix) is not None
    plain_lane = _kernel_lane(packed, offset, matrix, gap_extend, table)
    paired = (
        not table
        and query_starts is not None
        and _shares_queries(query_starts, work if narrow.all() else work[narrow])
    )
    packed_lane = _kernel_lane(packed, offset, matrix, gap_extend, table, paired)
    if narrow.all():
        parts = [(packed_lane, packed, 0, work, keys)]
    else:
        chosen = (work[narrow], keys[narrow])
        rest = (work[~narrow], keys[~narrow])
        rebased = plain_lane.replace("-offset", "-rebased")
        widest = max(g * w for g, w in tiles or _tiles(matrix, rebased))
        if (
            offset
            and packed == "s16x2"
            and lanes != "s32"
            and _rebased_holds(matrix, gap_open, gap_extend, widest)
        ):
            wide = (rebased, packed)
        else:
            wide = (_kernel_lane("s32", offset, matrix, gap_extend), "s32")
        parts = [(packed_lane, packed, 0, *chosen), (*wide, len(chosen[0]), *rest)]
    order = np.concatenate([part[3] for part in parts]) if len(parts) > 1 else parts[0][3]
    launches = []
    for kernel_lane, lane, base, _, lane_keys in parts:
        lane_tiles = tiles or _tiles(matrix, kernel_lane)
        chosen_tiles, bounds = tile_runs(
            lane_keys, lane_tiles, profile_letters(kernel_lane, matrix)
        )
        for tile, a, b in zip(chosen_tiles.tolist(), bounds[:-1], bounds[1:], strict=True):
            group, columns = lane_tiles[tile]
            start = base + int(a)
            pairs = order[start : base + int(b)]
            runs = [(kernel_lane, pairs)]
            if not takes_paired(kernel_lane, columns):
                runs = [(plain_lane, pairs)]
            elif "paired" in kernel_lane:
                # the paired profile takes the pair sets of one query, the plain one the rest
                pairs, sets = one_query_sets(pairs, query_starts)
                runs = [(kernel_lane, pairs[:sets]), (plain_lane, pairs[sets:])]
            for each_lane, each in runs:
                if len(each):
                    launches.append(_Launch(lane, each_lane, group, columns, each, start))
                    start += len(each)
    return launches


def profile_letters(kernel_lane: str, matrix: np.ndarray) -> int:
    """Rows of a pair set's profile, as ``plan.tile_runs`` weighs them: the alphabet's
    letters and the padding one (the class table's lane builds none: its column offsets
    are a load a column)."""
    return 1 if "table" in kernel_lane else matrix.shape[0] + 1


def takes_paired(kernel_lane: str, columns: int) -> bool:
    """Whether a tile of ``columns`` a thread runs ``kernel_lane`` as it is: the paired
    profile only on tiles of up to ``_PAIRED_MOST_COLUMNS`` (its words' shared memory), the
    plain profile on wider ones."""
    return "paired" not in kernel_lane or columns <= _PAIRED_MOST_COLUMNS


def _tiles(matrix: np.ndarray, kernel_lane: str = "") -> tuple[tuple[int, int], ...]:
    """The (threads per group, columns per thread) tiles of ``kernel_lane`` (a
    ``_LANE_STRUCT`` key; none: a profile lane's) on ``matrix``'s alphabet: the class
    table's in its plain and offset forms, else DNA's or protein's (the profile lanes, and
    the class table's rebased form, whose reach is established over their stripes)."""
    if "table" in kernel_lane and not kernel_lane.endswith("-rebased"):
        return _TILES_TABLE
    return _TILES_PROTEIN if matrix.shape[0] > _TABLE_ABOVE_LETTERS else _TILES_DNA


def _rebased_holds(matrix: np.ndarray, gap_open: int, gap_extend: int, columns: int) -> bool:
    """Whether the rebased s16x2 lane holds every value of any pair under this scoring: its
    reach over stripes of ``columns``, run by groups of up to 32 threads, within the lane's
    limit."""
    reach = rebased_reach(
        int(matrix.max()), int(matrix.min()), gap_open, gap_extend, columns, 32, _REBASE_EVERY
    )
    return reach <= _LANE_LIMIT["s16x2"]


def _kernel_lane(
    lane: str,
    offset: bool,
    matrix: np.ndarray,
    ge: int,
    table: bool = False,
    paired: bool = False,
) -> str:
    """The ``_LANE_STRUCT`` key of ``lane``: s16x2 with the class table when ``table``, with
    the paired profile when ``paired``, else with an 8-bit profile where every profile score
    fits a byte (the offset form's profile holds s + 2 ge), the fused lanes in the offset form
    when ``offset`` (half2 has no such form)."""
    if lane != "s16x2":
        return f"{lane}-offset" if offset and lane == "s32" else lane
    if table:
        kernel_lane = "s16x2-table"
    elif paired:
        kernel_lane = "s16x2-paired"
    else:
        low, high = int(matrix.min()), int(matrix.max()) + (2 * ge if offset else 0)
        kernel_lane = "s16x2-bytes" if low >= -128 and high <= 127 else "s16x2"
    return f"{kernel_lane}-offset" if offset else kernel_lane


def _shares_queries(query_starts: np.ndarray, order: np.ndarray) -> bool:
    """Whether at least ``_PAIRED_SHARE`` of the pair sets (consecutive pairs of ``order``)
    align their two pairs to one query, judged on up to ``_PAIRED_SAMPLE`` sets spread over
    them: a cross product's, whose paired profile gives a cell's two scores in one load."""
    sets = len(order) // 2
    if sets == 0:
        return False
    firsts = 2 * np.unique(np.linspace(0, sets - 1, min(sets, _PAIRED_SAMPLE)).astype(np.int64))
    same = query_starts[order[firsts]] == query_starts[order[firsts + 1]]
    return np.count_nonzero(same) >= _PAIRED_SHARE * len(firsts)


def letter_classes(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The letters of ``matrix`` merged into classes of interchangeable letters (equal rows
    and columns: BLOSUM62's X, J, O and U are one), with one more class for the kernels'
    padding letter: (each letter's class, the classes' scores, the padding's row and column
    0)."""
    keys = [(matrix[a].tobytes(), matrix[:, a].tobytes()) for a in range(len(matrix))]
    first: dict[tuple[bytes, bytes], int] = {}
    for letter, key in enumerate(keys):
        first.setdefault(key, letter)
    index = {key: k for k, key in enumerate(first)}
    class_of = np.array([index[key] for key in keys], dtype=np.int32)
    chosen = np.array(list(first.values()), dtype=np.int64)
    scores = np.zeros((len(chosen) + 1, len(chosen) + 1), dtype=np.int32)
    scores[:-1, :-1] = matrix[np.ix_(chosen, chosen)]
    return class_of, scores


def _class_table(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`letter_classes` of ``matrix`` when the s16x2 lane reads it through the class
    table (a large alphabet whose table fits a block's shared memory), else None."""
    if matrix.shape[0] <= _TABLE_ABOVE_LETTERS:
        return None
    classes = letter_classes(np.asarray(matrix))
    return classes if 4 * table_words(len(classes[1])) <= _TABLE_MAX_BYTES else None


def _split_long(
    launches: list[_Launch],
    n: np.ndarray,
    clusters: tuple[int, ...] = (),
    scoring: tuple[np.ndarray, int, int] | None = None,
) -> list[_Launch]:
    """``launches`` with their pairs of long targets (each split warp gets a stripe) moved to
    split launches of ``_SPLIT`` warps a pair set (fewer where their shared memory would not
    fit a block, :func:`_split_warps`), longest targets first, when they are too
    few to fill a device one group each; the longest of them span clusters of blocks of the
    sizes ``clusters`` (widest first, :func:`_cluster_sizes`): a size takes the sets whose
    stripes, as wide as the warps take them (``_split_columns``), give each warp of its
    cluster ``_CLUSTER_ROUNDS`` stripes or more.
    ``n``: the target lengths of the launches' pairs, which run in the order of their
    32-residue bins, capped at bin 255: a binary search finds the first long one. ``scoring``
    (matrix, gap open, gap extend) lets the rebased lane take wide stripes where its reach
    allows; the paired profile's long pairs split on the plain profile (longest first would
    part its pair sets), so a paired launch needs ``scoring``. The split launches come first,
    the widest clusters first (their sets run longest: each then starts at once, on a stream
    of its own, :class:`StreamTurns`), and every launch's ``start`` is counted again in that
    order."""
    split: list[_Launch] = []
    result = []
    for launch in launches:
        cols = launch.group * launch.columns
        # longer than _SPLIT - 1 stripes: bins from this one on (a multiple of 32 columns)
        first_bin = (_SPLIT - 1) * cols // 32
        count = len(launch.pairs)
        cut = count
        if first_bin <= 255 and cols // 32 % 8 == 0:
            cut = bisect.bisect_left(
                launch.pairs, first_bin, key=lambda p: min((int(n[p]) - 1) >> 5, 255)
            )
        splits = launch
        if "paired" in launch.kernel_lane:
            plain = _kernel_lane("s16x2", launch.kernel_lane.endswith("-offset"), *scoring[::2])
            splits = replace(launch, kernel_lane=plain)
        columns = _split_columns(splits, scoring)
        warps = _SPLIT if scoring is None else _split_warps(splits, columns, len(scoring[0]))
        if (
            cut == count
            or -(-(count - cut) // launch.lane_pairs) >= _SPLIT_BELOW_GROUPS
            or warps == 1
        ):
            result.append(launch)
            continue
        if cut:
            result.append(replace(launch, pairs=launch.pairs[:cut]))
        # longest first: the sets that take longest start first, the last ones are short
        moved = launch.pairs[cut:]
        moved = moved[np.argsort(-n[moved], kind="stable")]
        stripes = -(-n[moved] // (32 * columns))
        at = 0
        for blocks in clusters:
            fewest = _CLUSTER_ROUNDS * warps * blocks
            end = int(np.searchsorted(-stripes, -fewest, side="right"))
            if end > at:
                split.append(_split_launch(splits, moved[at:end], blocks, columns, warps))
                at = end
        if at < len(moved):
            split.append(_split_launch(splits, moved[at:], 1, columns, warps))
    ordered = sorted(split, key=lambda each: -each.cluster) + result
    # each launch starts where the ones before it end (one more total than launches)
    starts = itertools.accumulate((len(each.pairs) for each in ordered), initial=0)
    return [replace(each, start=at) for each, at in zip(ordered, starts, strict=False)]


def _split_columns(launch: _Launch, scoring: tuple[np.ndarray, int, int] | None) -> int:
    """Columns a thread of ``launch``'s pairs takes on split warps: the tile's own (a stripe
    of 32 of them, wider than the tile's) for the 16-bit lane with a byte profile in the
    offset form, and in the rebased form where its reach over such a stripe holds; else as
    many as keep the tile's stripe width (measured: beside ``_TILES_DNA``; a 16-bit profile
    would double the profiles' shared memory)."""
    lane = launch.kernel_lane
    wide = lane.startswith("s16x2-bytes") and (
        lane.endswith("-offset")
        or (
            lane.endswith("-rebased")
            and scoring is not None
            and _rebased_holds(*scoring, 32 * launch.columns)
        )
    )
    return launch.columns if wide else launch.group * launch.columns // 32


def _split_warps(launch: _Launch, columns: int, alpha: int) -> int:
    """The most warps, up to ``_SPLIT``, of ``launch``'s lane and ``columns`` columns a thread
    whose profiles (one a warp, ``alpha`` letters and the padding one) and local mode's
    snapshots of their registers (align_dp.cuh) fit one block's shared memory: the int32
    lane's profiles of a protein alphabet take 28 KiB a warp, so 7 warps share such a set (1:
    not even 2 fit, the pairs run one group each)."""
    if launch.table:
        return _SPLIT
    per_warp = launch.profile_bytes(alpha, 32 * columns) + 32 * launch.lane_pairs * columns * 4
    return max(1, min(_SPLIT, (_SHARED_PER_BLOCK - 1024) // per_warp))


def _split_launch(
    launch: _Launch, pairs: np.ndarray, blocks: int, columns: int, warps: int
) -> _Launch:
    """The split launch of ``pairs``, some of ``launch``'s: 32-thread groups of ``columns``
    columns a thread (``_split_columns``), ``warps`` warps a block (``_split_warps``),
    ``blocks`` blocks a pair set (its ``start`` is set by :func:`_split_long`)."""
    return replace(launch, group=32, columns=columns, pairs=pairs, split=warps, cluster=blocks)


def _current_device() -> int:
    """CuPy's current device ordinal."""
    import cupy as cp

    return int(cp.cuda.Device().id)


@cache
def _multiprocessor(ordinal: int) -> Multiprocessor:
    """What a multiprocessor of device ``ordinal`` holds (its CUDA device attributes)."""
    import cupy as cp

    attributes = cp.cuda.Device(ordinal).attributes
    return Multiprocessor(
        registers=attributes["MaxRegistersPerMultiprocessor"],
        threads=attributes["MaxThreadsPerMultiProcessor"],
        blocks=attributes["MaxBlocksPerMultiprocessor"],
        shared=attributes["MaxSharedMemoryPerMultiprocessor"],
        reserved=attributes["ReservedSharedMemoryPerBlock"],
    )


@cache
def _capability(ordinal: int) -> int:
    """Device ``ordinal``'s compute capability (90 for 9.0)."""
    import cupy as cp

    return int(cp.cuda.Device(ordinal).compute_capability)


def _cluster_sizes(ordinal: int) -> tuple[int, ...]:
    """The cluster sizes that device ``ordinal`` launches: ``_CLUSTERS`` from compute
    capability 9.0 (thread block clusters), none before."""
    return _CLUSTERS if _capability(ordinal) >= 90 else ()


def _narrow(
    m: np.ndarray | int, n: np.ndarray | int, matrix: np.ndarray, go: int, ge: int, lane: str
) -> np.ndarray:
    """Which pairs a 16-bit ``lane`` holds exactly (the overflow guard)."""
    bound = score_bound(
        np.atleast_1d(m), np.atleast_1d(n), int(matrix.max()), int(matrix.min()), go, ge
    )
    return (bound <= _LANE_LIMIT[lane]) & (np.maximum(m, n) <= _PACKED_MAX_LENGTH)


@dataclass(frozen=True)
class _Kernels:
    """A call's compiled kernels: its mode, gap model and whether they find end cells."""

    module: Any
    mode: str
    affine: bool
    ends: bool

    def of(self, launch: _Launch) -> Any:
        """The kernel of one launch."""
        name = kernel_name(self.mode, self.affine, *launch.name_args, ends=self.ends)
        return self.module.function(name)


def _module(mode: str, affine: bool, launches: list[_Launch], ends: bool) -> _Kernels:
    """The compiled module holding exactly the instantiations these launches need."""
    names = sorted({kernel_name(mode, affine, *x.name_args, ends=ends) for x in launches})
    module = cuda.compile_module("seqwarp.align", "align_score.cu", names)
    return _Kernels(module, mode, affine, ends)


@dataclass
class Staged:
    """One chunk's kernel launch with its arguments already on the device."""

    lane: str
    kernel: Any
    blocks: int
    shared: int
    args: tuple
    out: Any
    pairs: np.ndarray
    threads: int = _BLOCK  # per block
    kernel_lane: str = ""  # a key of _LANE_STRUCT (lane: what the caller asked for)
    # threads a group, columns a thread, warps and blocks a pair set (_Launch's)
    shape: tuple[int, int, int, int] = (0, 0, 1, 1)

    def launch(self) -> None:
        """Queue the kernel on the current stream (asynchronous)."""
        self.kernel((self.blocks,), (self.threads,), self.args, shared_mem=self.shared)

    def blocks_per_sm(self) -> int:
        """Resident blocks per multiprocessor, from the kernel's registers and shared memory."""
        block_shared = self.shared + self.kernel.shared_size_bytes
        sm = _multiprocessor(_current_device())
        return resident_blocks(self.kernel.num_regs, self.threads, block_shared, sm)

    def result(self) -> np.ndarray:
        """The chunk's (pairs, 3) int32 results, copied to the host."""
        return self.out.get().reshape(-1, 3)


def _first(index: np.ndarray) -> int | None:
    """``index[0]`` when ``index`` is ``first, first + 1, ...`` (a batch aligned pair by pair,
    the common case: then slices replace gathers), else None."""
    if len(index) == 0 or int(index[-1]) - int(index[0]) != len(index) - 1:
        return None
    return int(index[0]) if is_consecutive(index) else None


def firsts_of(q_index: np.ndarray, t_index: np.ndarray) -> tuple[int | None, int | None]:
    """:func:`_first` of a call's query and target index (one scan when they are one array)."""
    first = _first(q_index)
    return first, first if t_index is q_index else _first(t_index)


def firsts_and_shapes(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    shapes: PairShapes | None,
) -> tuple[tuple[int | None, int | None], PairShapes]:
    """A call's first indices (see :func:`_first`) and pair shapes: what the caller's
    ``shapes`` know, the rest from scans of the indices and lengths."""
    if shapes is not None and shapes.firsts is not None:
        return shapes.firsts, shapes
    firsts = firsts_of(q_index, t_index)
    if shapes is not None:
        return firsts, shapes
    m = _lengths(queries, q_index, firsts[0])
    n = _lengths(targets, t_index, firsts[1])
    return firsts, PairShapes(m, n, *running_cells(m, n))


def _take(values: np.ndarray, index: np.ndarray, first: int | None) -> np.ndarray:
    """``values[index]``: a view when ``index`` is consecutive from ``first``."""
    return values[first : first + len(index)] if first is not None else take(values, index)


def _lengths(batch: SequenceBatch, index: np.ndarray, first: int | None) -> np.ndarray:
    """Lengths of ``batch``'s sequences ``index`` (int64), from the offsets they need only."""
    lengths = batch.lengths
    if first is None:
        return lengths[index].astype(np.int64, copy=False)
    return lengths[first : first + len(index)].astype(np.int64, copy=False)


@dataclass(frozen=True)
class _Spans:
    """The residues a call reads: the span of each code buffer its pairs touch (one buffer
    when queries and targets share theirs), laid out one after the other on the device. A
    pair's residues start at ``q_offsets - q_shift`` (``t_offsets - t_shift``) there."""

    sources: list[np.ndarray]
    q_offsets: np.ndarray  # per pair of the call: the batch's offsets (a view when consecutive)
    t_offsets: np.ndarray
    q_shift: int
    t_shift: int
    t_source: int  # where the targets' source begins on the device (0 when shared)
    monotone: bool  # both indices consecutive: residue positions grow with the pair


def _spans(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    firsts: tuple[int | None, int | None],
    m: np.ndarray,
    n: np.ndarray,
) -> _Spans:
    """Where every pair's residues lie on the device (see :class:`_Spans`)."""
    q_offsets = _take(queries.offsets, q_index, firsts[0])
    t_offsets = _take(targets.offsets, t_index, firsts[1])
    q_lo, q_hi = _extent(queries, q_offsets, m, firsts[0])
    t_lo, t_hi = _extent(targets, t_offsets, n, firsts[1])
    monotone = firsts[0] is not None and firsts[1] is not None
    if queries.codes is targets.codes:
        lo, hi = min(q_lo, t_lo), max(q_hi, t_hi)
        return _Spans([queries.codes[lo:hi]], q_offsets, t_offsets, lo, lo, 0, monotone)
    t_source = q_hi - q_lo
    sources = [queries.codes[q_lo:q_hi], targets.codes[t_lo:t_hi]]
    return _Spans(sources, q_offsets, t_offsets, q_lo, t_lo - t_source, t_source, monotone)


def _extent(
    batch: SequenceBatch, offsets: np.ndarray, lengths: np.ndarray, first: int | None
) -> tuple[int, int]:
    """The first and one-past-last code of ``batch`` these sequences use (offsets grow, so a
    consecutive run spans from its first offset to its last one's end)."""
    if first is not None:
        return int(batch.offsets[first]), int(batch.offsets[first + len(offsets)])
    return extent(offsets, lengths)


class _Pairs:
    """The per-pair arguments of one call in launch order, in one pinned host buffer (copied
    to each device in one transfer): residue starts in the device's flat code buffer, and
    lengths. Chunks read slices of the device copies."""

    def __init__(
        self, cp: Any, spans: _Spans, m: np.ndarray, n: np.ndarray, order: np.ndarray
    ) -> None:
        count = len(order)
        self.order = order
        self.identity = count == len(m) and _first(order) == 0
        self.host = _pinned(cp, np.uint8, (24 * count,))
        self.q_start = self.host[: 8 * count].view(np.int64)
        self.t_start = self.host[8 * count : 16 * count].view(np.int64)
        self.m = self.host[16 * count : 20 * count].view(np.int32)
        self.n = self.host[20 * count :].view(np.int32)
        gather_pairs(
            order,
            (spans.q_offsets, spans.t_offsets),
            (spans.q_shift, spans.t_shift),
            (m, n),
            (self.q_start, self.t_start, self.m, self.n),
        )
        self.shared = len(spans.sources) == 1
        self.t_source = spans.t_source
        self.monotone = self.identity and spans.monotone

    def needs(self, a: int, b: int) -> list[int]:
        """Bytes of each source (from its start) that the pairs ``a:b`` read."""
        if self.monotone:
            q = int(self.q_start[b - 1]) + int(self.m[b - 1])
            t = int(self.t_start[b - 1]) + int(self.n[b - 1])
        else:
            q = extent(self.q_start[a:b], self.m[a:b])[1]
            t = extent(self.t_start[a:b], self.n[a:b])[1]
        return [max(q, t)] if self.shared else [q, t - self.t_source]

    def to_device(self, cp: Any) -> dict[str, Any]:
        """The arguments on the current device (one copy, queued on the current stream)."""
        count = len(self.order)
        data = cp.empty(max(1, 24 * count), dtype=np.uint8)
        data[: 24 * count].set(self.host, stream=cp.cuda.get_current_stream())
        return {
            "q_start": data[: 8 * count].view(np.int64),
            "t_start": data[8 * count : 16 * count].view(np.int64),
            "m": data[16 * count : 20 * count].view(np.int32),
            "n": data[20 * count : 24 * count].view(np.int32),
        }


class _Upload:
    """Host buffers copied into one flat device buffer in pieces, by a few tasks on the copy
    threads: each takes the next piece not yet taken, copies it into one of its two pinned
    staging buffers (numpy releases the GIL) and queues its DMA on a copy stream of its own,
    so host copies, DMAs, the caller's planning and its kernels all overlap. The pieces of the
    sources are ordered by the fraction of their source they complete, so the first chunks
    start early; taken in turn rather than dealt out in advance, they arrive in that order
    even when one thread is slowed (with every 4th piece dealt to each of four threads, one
    late thread held a device's kernels back by 10-50 ms on a 2 x H200 host). The pieces are
    kept in a few arrays rather than an object each: thousands of short-lived objects per
    call made the interpreter's cyclic garbage collector pause every thread of a call (a
    two-GPU call took 167-169 ms with it off, up to 274 ms with it on)."""

    def __init__(self, cp: Any, device: int, sources: list[np.ndarray], threads: int) -> None:
        # 16 bytes more than the residues: the traceback's walk reads them in aligned
        # 16-byte windows (align_trace.cu)
        self.codes = cp.empty(sum(len(x) for x in sources) + 16, dtype=np.uint8)
        self._cp = cp
        self._device = device
        self._sources = sources
        self._bases = np.cumsum([0] + [len(x) for x in sources]).tolist()
        counts = np.array([-(-len(x) // _PIECE_BYTES) for x in sources], dtype=np.int64)
        source = np.repeat(np.arange(len(sources)), counts)
        piece = np.concatenate([np.arange(c) for c in counts])
        order = np.lexsort((piece, source, (piece + 1) / counts[source]))
        self._source, self._piece = source[order].tolist(), piece[order].tolist()
        # per source, the position of each of its pieces in that order
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        self._where = np.split(position, np.cumsum(counts)[:-1])
        self._events: list[Any] = [None] * len(order)
        self._copied = np.zeros(len(order), dtype=bool)
        self._arrival = threading.Condition()
        self._waited: dict[int, int] = {}  # per compute stream: pieces it already waits for
        self._error: BaseException | None = None
        self._untaken = itertools.count()  # next() is atomic: one piece per call
        threads = max(1, min(threads, len(order)))
        copiers = pool("copy")
        self._tasks = [copiers.submit(self._run) for _ in range(threads)]

    def _run(self) -> None:
        cp = self._cp
        runtime = cp.cuda.runtime
        size = _PIECE_BYTES
        try:
            with cp.cuda.Device(self._device):
                (stream,) = thread_streams(cp, self._device, 1)
                room = min(size, max(len(x) for x in self._sources))
                slots = [cp.cuda.alloc_pinned_memory(max(1, room)) for _ in range(2)]
                views = [np.frombuffer(slot, np.uint8, room) for slot in slots]
                busy: list[Any] = [None, None]
                count = len(self._events)
                for i, g in enumerate(itertools.takewhile(lambda g: g < count, self._untaken)):
                    s, k = self._source[g], self._piece[g]
                    part = self._sources[s][k * size : (k + 1) * size]
                    if busy[i % 2] is not None:
                        busy[i % 2].synchronize()
                    np.copyto(views[i % 2][: len(part)], part)
                    # the DMA queued by the runtime itself: no array views to build while
                    # the call's other host threads wait for the interpreter lock
                    runtime.memcpyAsync(
                        self.codes.data.ptr + self._bases[s] + k * size,
                        slots[i % 2].ptr,
                        len(part),
                        runtime.memcpyHostToDevice,
                        stream.ptr,
                    )
                    busy[i % 2] = self._events[g] = stream.record()
                    with self._arrival:
                        self._copied[g] = True
                        self._arrival.notify_all()
                stream.synchronize()
        except BaseException as error:  # handed to the caller by wait() and join()
            with self._arrival:
                self._error = error
                self._arrival.notify_all()

    def wait(self, stream: Any, needs: list[int]) -> None:
        """Make ``stream`` wait until the first ``needs[s]`` bytes of each source arrived."""
        last = max(
            (
                int(where[(need - 1) // _PIECE_BYTES])
                for where, need in zip(self._where, needs, strict=True)
                if need > 0
            ),
            default=-1,
        )
        waited = self._waited.get(stream.ptr, 0)
        if last < waited:
            return
        with self._arrival:
            self._arrival.wait_for(
                lambda: self._error is not None or self._copied[waited : last + 1].all()
            )
        if self._error is not None:
            raise self._error
        for g in range(waited, last + 1):
            stream.wait_event(self._events[g])
        self._waited[stream.ptr] = last + 1

    def join(self) -> None:
        """Wait for the copy tasks (every piece copied)."""
        for task in self._tasks:
            task.result()
        if self._error is not None:
            raise self._error


@dataclass(frozen=True)
class _Grid:
    """The launch shape of one chunk of a launch."""

    blocks: int
    threads: int  # per block
    shared: int  # bytes of dynamic shared memory per block (the groups' profiles)
    stride: int  # scratch words per pair set (0: every target fits one stripe)
    scratch: int  # scratch words of the whole grid
    # all of L1 as shared memory instead of what the blocks take (the class table's kernels:
    # fitted, the protein search's kernels ran 0.5-3.3 % slower on one H200)
    all_shared: bool = False

    @classmethod
    def of(
        cls, launch: _Launch, count: int, longest_query: int, longest_target: int, alpha: int
    ) -> _Grid:
        """The grid for ``count`` pairs of ``launch`` (lengths bound the handed-on columns): a
        pair set (one or two pairs) per group, ``_BLOCK`` threads a block (``_TABLE_BLOCK``
        for the class table, whose ``alpha`` counts letter classes); a split launch's pair
        sets take ``cluster`` blocks of ``split`` warps each, and two handed-on columns per
        warp."""
        split, cluster = launch.split, launch.cluster
        block = _TABLE_BLOCK if launch.table else _BLOCK
        sets_per_block = block // launch.group if split == 1 else 1
        threads = block if split == 1 else 32 * split
        groups = -(-count // launch.lane_pairs)
        set_blocks = -(-groups // sets_per_block)  # blocks of pair sets (a cluster: one set)
        cols = launch.group * launch.columns
        if launch.table:  # one table a block; ``alpha``: the letter classes
            shared = 4 * table_words(alpha)
        else:  # a profile a group
            shared = sets_per_block * split * launch.profile_bytes(alpha, cols)
        words = launch.handed_words
        stride = cluster * split * 2 * words * (longest_query + 1) if longest_target > cols else 0
        # every group of the grid gets scratch: a group past the last pair still runs (idle)
        # beside the real groups of its warp
        scratch = max(1, set_blocks * sets_per_block * stride)
        return cls(set_blocks * cluster, threads, shared, stride, scratch, launch.table)

    def configure(self, kernel: Any) -> None:
        """Let ``kernel`` take this grid's shared memory (past 48 KiB with its static shared
        memory, a kernel must be allowed its dynamic shared memory first), and carve out of
        the current device's L1 just the shared memory of the blocks a multiprocessor holds
        (:func:`plan.shared_carveout`), or all of it (``all_shared``)."""
        block_shared = self.shared + kernel.shared_size_bytes
        if block_shared > 48 * 1024:
            kernel.max_dynamic_shared_size_bytes = self.shared
        percent = 100
        if not self.all_shared:
            sm = _multiprocessor(_current_device())
            percent = shared_carveout(kernel.num_regs, self.threads, block_shared, sm)
        kernel.preferred_shared_memory_carveout = percent


def _stage_chunk(
    cp: Any,
    kernel: Any,
    launch: _Launch,
    a: int,
    b: int,
    pairs: _Pairs,
    d: dict[str, Any],
    codes: Any,
    out: Any,
    data: dict,
) -> Staged:
    """Size one chunk's launch (pairs ``a:b`` of the call's order) over its argument slices."""
    arrays = (d["q_start"][a:b], d["m"][a:b], d["t_start"][a:b], d["n"][a:b])
    longest = (int(pairs.m[a:b].max()), int(pairs.n[a:b].max()))
    result = out[a:b]
    grid, args = kernel_call(cp, kernel, launch, arrays, longest, codes, result, data)
    return Staged(
        launch.lane,
        kernel,
        grid.blocks,
        grid.shared,
        args,
        result,
        pairs.order[a:b],
        grid.threads,
        launch.kernel_lane,
        (launch.group, launch.columns, launch.split, launch.cluster),
    )


def kernel_call(
    cp: Any,
    kernel: Any,
    launch: _Launch,
    arrays: tuple[Any, Any, Any, Any],
    longest: tuple[int, int],
    codes: Any,
    result: Any,
    data: dict,
) -> tuple[_Grid, tuple]:
    """The grid and arguments of ``kernel`` over one chunk of ``launch``: ``arrays`` its
    pairs' residue starts and lengths on the device (query start, m, target start, n),
    ``longest`` its longest query and target, ``result`` its (pairs, 3) int32 output;
    ``kernel`` is allowed the grid's shared memory."""
    count = len(result)
    matrix, alpha = data["matrix"], data["alpha"]
    if launch.table:
        matrix, alpha = data["table"], data["classes"]
    grid = _Grid.of(launch, count, *longest, alpha)
    args = (
        codes,
        *arrays,
        np.int32(count),
        matrix,
        np.int32(alpha),
        np.int32(data["gap_open"]),
        np.int32(data["gap_extend"]),
        cp.empty(grid.scratch, dtype=np.uint32),
        np.int64(grid.stride),
        result,
    )
    grid.configure(kernel)
    return grid, args


def _ranges(launch: _Launch, longest_query: int, lead: int = 0) -> list[tuple[int, int]]:
    """Chunks of a launch, as ranges of the call's order, of :func:`chunk_pairs` pairs.
    With ``lead``, the first chunk has that many pairs and each next one twice as many, up
    to the normal size: a device's first kernel then waits for a few MiB of residues rather
    than a whole chunk's."""
    count = len(launch.pairs)
    size = chunk_pairs(launch, longest_query, count)
    step = min(lead, size) if lead > 1 else size
    chunks, at = [], 0
    while at < count:
        chunks.append((launch.start + at, launch.start + min(at + step, count)))
        at += step
        step = min(2 * step, size)
    return chunks


def chunk_pairs(launch: _Launch, longest_query: int, count: int) -> int:
    """Pairs a chunk of ``count`` pairs of ``launch`` holds: few enough that the handed-on
    columns stay under their memory budget, and at least ``_MIN_CHUNKS`` chunks of a large
    launch (so that copies overlap kernels). An even number where the launch takes several
    chunks: a two-pair lane's pair sets stay whole (the paired profile's share a query); all
    ``count`` where one holds them (rounded down, an odd count's last pair ran alone in a
    chunk of its own: one long read's pipeline after the rest, 0.047 s against 0.043 for
    1,681 of them on an H200)."""
    per_pair = (4 * launch.handed_words * (longest_query + 1) + 64) * launch.split * launch.cluster
    budget = _SCRATCH_BYTES if launch.split == 1 else _SPLIT_SCRATCH_BYTES
    wanted = _MIN_CHUNKS if count >= _MIN_CHUNKS * _MIN_CHUNK_PAIRS else 1
    size = min(_MAX_CHUNK_PAIRS, budget // per_pair, -(-count // wanted))
    return count if size >= count else max(2, size & ~1)


def _data(cp: Any, matrix: np.ndarray, gap_open: int, gap_extend: int, offset: bool) -> dict:
    """The scoring arguments every chunk on the current device shares, copied on the current
    stream (a chunk's stream must wait for it); for the class table's lane, the table
    (:func:`class_words`; ``offset``: the offset form's, which global and semi-global scores
    read) followed by each letter's class. Refuses a gap extension above the opening: the
    kernels' rows take F from u of the column before (``align_dp.cuh``, ``short_f_chain``),
    equal to the recurrence only when opening costs at least as much."""
    check_gaps(gap_open, gap_extend)
    data = {
        "matrix": cp.asarray(np.ascontiguousarray(matrix, dtype=np.int32)),
        "alpha": int(matrix.shape[0]),
        "gap_open": gap_open,
        "gap_extend": gap_extend,
    }
    classes = _class_table(matrix)
    if classes is not None:
        class_of, scores = classes
        words = class_words(scores, 2 * gap_extend if offset else 0)
        data["table"] = cp.asarray(np.concatenate([words, class_of]))
        data["classes"] = len(scores)
    return data


def table_words(classes: int) -> int:
    """Words of the class table of ``classes`` letter classes, padded to whole 16-byte loads
    (``align_dp.cuh``'s ``table_words``)."""
    return -(-(classes**3) // 4) * 4


def class_words(scores: np.ndarray, extra: int = 0) -> np.ndarray:
    """The class table a block copies into shared memory (``align_dp.cuh``), as int32: word
    ``[q][a * C + b]`` holds ``s(q, a) + extra`` in its low half and ``s(q, b) + extra`` in
    its high half, 0 where a letter is the padding class (the last), for the ``C`` classes
    of ``scores``; padded with zeros to whole 16-byte loads (``table_words``)."""
    c = len(scores)
    halves = (scores.astype(np.int64) + extra) & 0xFFFF
    halves[-1, :] = halves[:, -1] = 0
    words = np.zeros(table_words(c), dtype=np.uint32)
    words[: c**3] = (halves[:, :, None] | halves[:, None, :] << 16).ravel()
    return words.view(np.int32)


def stage(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    lanes: str = "auto",
    tiles: tuple[tuple[int, int], ...] | None = None,
    table: bool = True,
    ends: bool = True,
    paired: bool = True,
) -> list[Staged]:
    """Every launch of a score call, its arguments on the first device, not yet run (for
    timing the kernels alone on any stream, trying other ``tiles``, or the profile where the
    class table would serve: ``table=False``, or the byte profile where the paired one would:
    ``paired=False``; :func:`score` is the normal path; ``ends`` as there)."""
    import cupy as cp

    firsts = firsts_of(q_index, t_index)
    m = _lengths(queries, q_index, firsts[0])
    n = _lengths(targets, t_index, firsts[1])
    spans = _spans(queries, targets, q_index, t_index, firsts, m, n)
    plan = _plan(
        m, n, matrix, gap_open, gap_extend, lanes, tiles, mode != "local", table,
        spans.q_offsets if paired else None,
    )  # fmt: skip
    launches = _split_long(plan, n, _cluster_sizes(_devices[0]), (matrix, gap_open, gap_extend))
    if not launches:
        return []
    affine = gap_open != gap_extend
    staged = []
    with cp.cuda.Device(_devices[0]):
        pairs = _Pairs(cp, spans, m, n, _order(launches))
        kernels = _module(mode, affine, launches, ends)
        codes = cp.asarray(np.concatenate(spans.sources))
        device = pairs.to_device(cp)
        out = cp.empty((len(pairs.order), 3), dtype=np.int32)
        data = _data(cp, matrix, gap_open, gap_extend, mode != "local")
        for launch in launches:
            kernel = kernels.of(launch)
            for a, b in _ranges(launch, _longest_query(launch, pairs)):
                staged.append(
                    _stage_chunk(cp, kernel, launch, a, b, pairs, device, codes, out, data)
                )
        # the copies above went on the current stream: wait for them, so that the launches
        # may run on any stream (the benchmark times them on non-blocking streams, where a
        # first kernel once read its arguments before they had landed)
        cp.cuda.get_current_stream().synchronize()
    return staged


def _longest_query(launch: _Launch, pairs: _Pairs) -> int:
    """The longest query of a launch's pairs."""
    return int(pairs.m[launch.start : launch.start + len(launch.pairs)].max())


def _order(launches: list[_Launch]) -> np.ndarray:
    """The call's order of pairs: every launch's ``pairs``, one after the other."""
    if len(launches) == 1:
        return launches[0].pairs
    return np.concatenate([launch.pairs for launch in launches])


def _partition(cumulative: np.ndarray, parts: int, base: int = 0) -> np.ndarray:
    """Boundaries ``0 = b[0] <= b[1] <= ... <= b[parts] = len(cumulative)`` of ``parts``
    contiguous ranges of pairs (range ``k`` is ``b[k]:b[k + 1]``) with near-equal cells;
    ``cumulative - base`` is the running total of the pairs' cells (``base``: the cells
    before them, when ``cumulative`` is a slice of a longer total). Each boundary is the pair
    boundary nearest its share of the total (ties to the earlier one), so every range's cells
    are within one pair's cells of ``total / parts``; with fewer pairs than parts some ranges
    are empty. Reads ``cumulative`` at a few places only (one search per boundary)."""
    count = len(cumulative)
    total = int(cumulative[-1]) - base if count else 0
    # boundary i has prefix(i) = cells of pairs before it; in integers, boundary k is the i
    # whose prefix(i) * parts is nearest k * total
    goals = [-(-k * total // parts) for k in range(1, parts)]
    reaching = (np.searchsorted(cumulative, [base + g for g in goals], side="left") + 1).tolist()
    bounds = [0]
    for k, (goal, above) in enumerate(zip(goals, reaching, strict=True), 1):
        if goal == 0:  # no cells at all
            bounds.append(0)
            continue
        below = above - 1
        short = k * total - (int(cumulative[below - 1]) - base if below else 0) * parts
        over = (int(cumulative[above - 1]) - base) * parts - k * total
        bounds.append(below if short <= over else above)
    # pairs of no cells after the last boundary still belong to the last range
    bounds.append(count)
    return np.array(bounds, dtype=np.int64)


class StreamTurns:
    """Which of a call's compute streams each chunk goes on, in the order they are queued
    (``slot``: an index into the thread's streams). A split launch's chunks go on a stream
    of its own, after the first ``_STREAMS``: its few long pair sets run longest, and queued
    behind another launch (the streams taken in turn) they started late; the other chunks
    take the first ``_STREAMS`` in turn, so that one chunk's last blocks overlap the next
    one's first."""

    def __init__(self, kinds: set[tuple]) -> None:
        """``kinds``: the name arguments (:attr:`_Launch.name_args`) of the split launches."""
        self._own = {kind: _STREAMS + k for k, kind in enumerate(sorted(kinds))}
        self._turn = itertools.count()

    @property
    def streams(self) -> int:
        """How many streams the chunks take."""
        return _STREAMS + len(self._own)

    def slot(self, kind: tuple) -> int:
        """The stream of the next chunk, whose launch has name arguments ``kind``."""
        own = self._own.get(kind)
        return next(self._turn) % _STREAMS if own is None else own


def _run_device(
    cp: Any,
    jobs: list[tuple[_Launch, int, int]],
    upload: _Upload,
    pairs: _Pairs,
    kernels: _Kernels,
    data: dict,
    device: int,
) -> tuple[Any, tuple]:
    """Queue the chunks (in the call's order) on ``device``, the current one, each on its
    stream (:class:`StreamTurns`) after the residues it reads have arrived; returns the
    (pairs in the call's order, 3) int32 results and what must stay alive until the streams
    are synchronised. Work queued on the thread's first stream after this call runs after
    every chunk."""
    turns = StreamTurns({launch.name_args for launch, _, _ in jobs if launch.split > 1})
    streams = thread_streams(cp, device, turns.streams)
    first = streams[0]
    with first:
        args = pairs.to_device(cp)
        out = cp.empty((len(pairs.order), 3), dtype=np.int32)
    _join_streams(streams[1:], first)
    running: list[Staged] = []
    work = jobs[::-1]
    try:
        while work:
            launch, a, b = work.pop()
            stream = streams[turns.slot(launch.name_args)]
            kernel = kernels.of(launch)
            try:
                with stream:
                    staged = _stage_chunk(
                        cp, kernel, launch, a, b, pairs, args, upload.codes, out, data
                    )
            except cp.cuda.memory.OutOfMemoryError:
                # first make room by finishing this device's chunks, then split this one
                for each in streams:
                    each.synchronize()
                cp.get_default_memory_pool().free_all_blocks()
                if running:
                    running.clear()
                    work.append((launch, a, b))
                elif b - a > 2:
                    half = (a + b) // 2
                    work += [(launch, half, b), (launch, a, half)]
                else:
                    raise
                continue
            upload.wait(stream, pairs.needs(a, b))
            with stream:
                staged.launch()
            running.append(staged)
    finally:
        # also after an error: the first stream waits for every chunk queued
        _join_streams([first], *streams[1:])
    return out, (args, running)


def _join_streams(waiting: list[Any], *streams: Any) -> None:
    """Make every stream of ``waiting`` wait for the work queued so far on ``streams``."""
    for stream in streams:
        event = stream.record()
        for each in waiting:
            each.wait_event(event)


def _queue_gather(cp: Any, device_out: Any, stream: Any, pairs: _Pairs, host: np.ndarray) -> Any:
    """Queue on ``stream`` the copy of the results to ``host``, a (3, pairs) int64 view of
    pinned memory, with the rows back in call order and widened on the device first; returns
    the device buffer to keep alive until ``stream`` has been synchronised."""
    with stream:
        wide = device_out.astype(np.int64).T
        if pairs.identity:
            full = cp.ascontiguousarray(wide)
        else:
            full = cp.empty(host.shape, dtype=np.int64)
            where = cp.asarray(pairs.order)
            for field in range(3):
                full[field][where] = wide[field]
        if host.flags.c_contiguous:
            full.get(stream=stream, out=host, blocking=False)
        else:
            # a stage's or one device's share of the call's fields: a slice of each row
            for field in range(3):
                full[field].get(stream=stream, out=host[field], blocking=False)
    return full


def _stages(cumulative: np.ndarray, base: int) -> list[tuple[int, int]]:
    """Contiguous ranges of pairs that one device queues one after the other, their cells in
    the proportions of ``_STAGE_SHARES`` (a share too small for that many stages of
    ``_MIN_STAGE_PAIRS`` pairs: fewer stages of near-equal cells); ``cumulative``, ``base``:
    the share's running total of cells, as :func:`_partition` takes them."""
    count = min(len(_STAGE_SHARES), max(1, len(cumulative) // _MIN_STAGE_PAIRS))
    if count == 1:
        return [(0, len(cumulative))]
    shares = _STAGE_SHARES if count == len(_STAGE_SHARES) else (1,) * count
    bounds = _partition(cumulative, sum(shares), base)[
        list(itertools.accumulate(shares, initial=0))
    ]
    return [(a, b) for a, b in itertools.pairwise(bounds.tolist()) if b > a]


def _score_part(
    cp: Any,
    device: int,
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    firsts: tuple[int | None, int | None],
    m: np.ndarray,
    n: np.ndarray,
    cells: tuple[np.ndarray, int],
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    lanes: str,
    ends: bool,
    out: np.ndarray,
) -> None:
    """Score pairs (not all with an empty side) on ``device`` into ``out``, their (3, pairs)
    int64 fields (the rows of pairs with an empty side are left to the caller); ``cells`` is
    their running total of cells and the cells before them. The residues start on their way
    to the device first; this thread plans the first stage, then the planner threads plan
    the later ones at once while it queues the stages in order as their plans come, so the
    device runs one stage while the later ones are still being planned, and each stage's
    results are copied into ``out`` (from pinned memory) while the later stages run."""
    with cp.cuda.Device(device):
        streams = thread_streams(cp, device, _STREAMS)
        # the scoring arguments go first (behind the residues' copies they waited 2-3 ms), on
        # the stream that every chunk's stream waits for: copied on CuPy's default stream, they
        # raced the chunks, which run on non-blocking streams
        with streams[0]:
            data = _data(cp, matrix, gap_open, gap_extend, mode != "local")
        spans = _spans(queries, targets, q_index, t_index, firsts, m, n)
        upload = _Upload(cp, device, spans.sources, _COPY_THREADS)
        alive = []  # every stage's device buffers, until the streams are synchronised
        copies: list[Future] = []  # each stage's results into ``out``, on the gather threads
        affine = gap_open != gap_extend

        def plan(a: int, b: int) -> tuple[_Pairs, list[tuple[_Launch, int, int]], _Kernels]:
            """Stage ``a:b``'s pairs in launch order, its chunks and their kernels."""
            with cp.cuda.Device(device):
                sm, sn = m[a:b], n[a:b]
                share = replace(
                    spans, q_offsets=spans.q_offsets[a:b], t_offsets=spans.t_offsets[a:b]
                )
                plan = _plan(
                    sm, sn, matrix, gap_open, gap_extend, lanes, offset=mode != "local",
                    query_starts=share.q_offsets,
                )  # fmt: skip
                launches = _split_long(
                    plan, sn, _cluster_sizes(device), (matrix, gap_open, gap_extend)
                )
                pairs = _Pairs(cp, share, sm, sn, _order(launches))
                # the device's first chunks lead in small (see _ranges)
                jobs = [
                    (launch, x, y)
                    for k, launch in enumerate(launches)
                    for x, y in _ranges(
                        launch, _longest_query(launch, pairs), _LEAD_PAIRS if a == k == 0 else 0
                    )
                ]
                return pairs, jobs, _module(mode, affine, launches, ends)

        # stages without cells (every pair with an empty side) are left out
        stages = [(a, b) for a, b in _stages(*cells) if _cells_in(*cells, a, b)]
        planners = pool("plan")
        planned: list[Future] = []
        gatherers = pool("gather")
        try:
            host = _pinned(cp, np.int64, (3, len(m)))
            for k, (a, b) in enumerate(stages):
                if k == 0:
                    pairs, jobs, kernels = plan(a, b)
                    # the later stages by the planner threads at once (numba and numpy release
                    # the interpreter lock: short pairs plan slower than their kernels run),
                    # but only now: planned beside the first one, they held its kernels back
                    # by 5-10 ms on a two-GPU host
                    planned = [planners.submit(plan, *stage) for stage in stages[1:]]
                else:
                    pairs, jobs, kernels = planned[k - 1].result()
                device_out, keep = _run_device(cp, jobs, upload, pairs, kernels, data, device)
                full = _queue_gather(cp, device_out, streams[0], pairs, host[:, a:b])
                alive.append((pairs, keep, full))
                # copied as soon as they arrive, while this thread queues the later stages
                arrived = streams[0].record()
                copies.append(gatherers.submit(_copy_back, arrived, out[:, a:b], host[:, a:b]))
            for copy in copies:
                copy.result()
        finally:
            # also after an error: nothing of this share is left running on the device
            wait([task for task in planned if not task.cancel()])
            for stream in streams:
                stream.synchronize()
            upload.join()
            wait(copies)


def _copy_back(arrived: Any, into: np.ndarray, results: np.ndarray) -> None:
    """Copy a stage's ``results`` (pinned memory) into ``into`` once the event ``arrived``
    says they are there (the first writes fault the fresh pages of ``into`` in: a gather
    thread does that while the device still runs the later stages)."""
    arrived.synchronize()
    np.copyto(into, results)


def _cells_in(cumulative: np.ndarray, base: int, a: int, b: int) -> int:
    """Cells of pairs ``a:b`` of a running total ``cumulative`` that starts after ``base``."""
    if b <= a:
        return 0
    return int(cumulative[b - 1]) - (int(cumulative[a - 1]) if a else base)


def _in_halves_on(
    error: type[BaseException],
    run: Callable[[int, int], None],
    cumulative: np.ndarray,
    a: int,
    b: int,
    release: Callable[[], None],
) -> None:
    """``run(a, b)`` on pairs ``a:b`` of a call (``cumulative``: its running total of cells);
    when that raises ``error`` (the device's memory cannot hold the range), ``release()``
    and the two halves of near-equal cells one after the other, down to single pairs. Ranges
    without cells are skipped."""
    if _cells_in(cumulative, 0, a, b) == 0:
        return
    try:
        run(a, b)
        return
    except error:
        if b - a < 2:
            raise
    # outside the handler: the failed attempt's frames, and the buffers they held, are gone
    release()
    middle = a + int(_partition(cumulative[a:b], 2, _cells_in(cumulative, 0, 0, a))[1])
    if middle in (a, b):
        middle = (a + b) // 2
    _in_halves_on(error, run, cumulative, a, middle, release)
    _in_halves_on(error, run, cumulative, middle, b, release)


def score(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    *,
    lanes: str = "auto",
    shapes: PairShapes | None = None,
    ends: bool = True,
) -> np.ndarray:
    """``(n, 3)`` int64 array: score, query end, target end (``lanes``: see ``LANES``;
    ``shapes``: the pairs' lengths and running total of cells, when the caller has them;
    ``ends=False``: the caller takes the scores alone, so local kernels skip finding the end
    cells, and their end fields are 0; a pair with an empty side keeps its ends).

    With several devices (``use`` with a multi-GPU backend) each scores one contiguous range
    of the pairs, of near-equal cells, in a host thread of its own; a pair's row depends only
    on the pair, so the answer does not depend on the number of devices.
    """
    import cupy as cp

    if lanes not in LANES:
        raise InvalidParameter("lanes", lanes, choices=LANES)
    firsts, (m, n, cumulative, any_empty, _) = firsts_and_shapes(
        queries, targets, q_index, t_index, shapes
    )
    # fields in columns (the caller takes whole columns); the devices fill their rows' fields
    out = np.empty((len(m), 3), dtype=np.int64, order="F")
    empty = (m == 0) | (n == 0) if any_empty else None
    if empty is not None and empty.all():
        return _with_empty_pairs(out, empty, m, n, mode, gap_open, gap_extend)
    scoring = (matrix, mode, gap_open, gap_extend, lanes, ends)

    def part(device: int, a: int, b: int) -> None:
        before = _cells_in(cumulative, 0, 0, a)
        _score_part(
            cp, device, queries, targets, q_index[a:b], t_index[a:b], shifted(firsts, a),
            m[a:b], n[a:b], (cumulative[a:b], before), *scoring, out.T[:, a:b],
        )  # fmt: skip

    def share(device: int, a: int, b: int) -> None:
        # a share too large for the device's free memory runs in halves
        _in_halves_on(
            cp.cuda.memory.OutOfMemoryError,
            partial(part, device),
            cumulative,
            a,
            b,
            partial(release_pool, device),
        )

    on_devices(cumulative, share)
    return _with_empty_pairs(out, empty, m, n, mode, gap_open, gap_extend)


def score_block(*block_and_scoring: Any) -> np.ndarray | None:
    """The scores of a cross product's block (an int32 array) by the cross path,
    ``_gpu_cross.score_block``, which takes the same arguments (the batches, the block's
    query and target slices, the scoring), or None where that path does not serve the block
    (the caller then scores its pairs with :func:`score`)."""
    from . import _gpu_cross

    return _gpu_cross.score_block(*block_and_scoring)


def release_pool(device: int) -> None:
    """Free the blocks CuPy's pool holds unused on ``device`` (before a share that ran out of
    its memory runs again in halves)."""
    import cupy as cp

    with cp.cuda.Device(device):
        cp.get_default_memory_pool().free_all_blocks()


def shifted(firsts: tuple[int | None, int | None], a: int) -> tuple[int | None, int | None]:
    """The first query and target index of a share starting at pair ``a`` (see :func:`_first`)."""
    return tuple(None if first is None else first + a for first in firsts)


def on_devices(cumulative: np.ndarray, work: Callable[[int, int, int], T]) -> list[T]:
    """``work(device, a, b)`` for one contiguous range ``a:b`` of a call's pairs per device,
    of near-equal cells (``cumulative``: the pairs' running total of cells; ranges without
    cells are skipped), each in a host thread of its own when there are several devices.
    Returns the results in device order; the first error is raised once every thread has
    finished."""
    if len(_devices) == 1:
        whole = _cells_in(cumulative, 0, 0, len(cumulative))
        return [work(_devices[0], 0, len(cumulative))] if whole else []
    bounds = _partition(cumulative, len(_devices)).tolist()
    shares = [
        (device, a, b)
        for device, a, b in zip(_devices, bounds[:-1], bounds[1:], strict=True)
        if _cells_in(cumulative, 0, a, b)
    ]
    futures = [pool("gpu").submit(work, *share) for share in shares]
    wait(futures)
    return [future.result() for future in futures]


def _pinned(cp: Any, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """A host array in pinned memory (the device copies to and from it at full speed; it
    returns to CuPy's pinned pool when the array is dropped)."""
    count = int(np.prod(shape))
    memory = cp.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(memory, dtype, count).reshape(shape)


def _with_empty_pairs(
    out: np.ndarray,
    empty: np.ndarray | None,
    m: np.ndarray,
    n: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
) -> np.ndarray:
    """``out`` with the rows of the pairs with an empty side (``empty``, None: none) filled in."""
    if empty is not None and empty.any():
        s, qe, te = _empty_pairs(m[empty], n[empty], mode, gap_open, gap_extend)
        out[empty, 0], out[empty, 1], out[empty, 2] = s, qe, te
    return out


def align(
    queries: SequenceBatch,
    targets: SequenceBatch,
    q_index: np.ndarray,
    t_index: np.ndarray,
    matrix: np.ndarray,
    mode: str,
    gap_open: int,
    gap_extend: int,
    shapes: PairShapes | None = None,
) -> tuple[np.ndarray, Cigars]:
    """``(n, 8)`` fields and CIGAR strings: the GPU traceback (``_gpu_traceback``)."""
    from . import _gpu_traceback

    return _gpu_traceback.align(
        queries, targets, q_index, t_index, matrix, mode, gap_open, gap_extend, shapes=shapes
    )
