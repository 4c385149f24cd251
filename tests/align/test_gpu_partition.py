"""Several devices split a score call into contiguous ranges of near-equal cells.

The partition is checked on the CPU. The ``gpu`` tests run the same pairs with one, two and
three device slots on one GPU (``(0,)``, ``(0, 0)``, ``(0, 0, 0)``), and on 2 .. N real GPUs
when the host has several: every slot takes the multi-device path (its own range, residue
span, upload, plan, kernels and host thread), and the output must be byte-identical for every
count and equal to the CPU backend's.
"""

from __future__ import annotations

import itertools
import sys
import zlib

import numpy as np
import pytest
from gpu_cases import batch, scoring_for
from hypothesis import given, settings
from hypothesis import strategies as st

from seqwarp.align import _cpu_backend, _gpu_backend, _host_scan
from seqwarp.align._host_scan import indexed_running_cells, is_consecutive, running_cells
from seqwarp.align.results import Cigars
from seqwarp.devices import Backend, gpu_count
from seqwarp.scoring import Scoring

MODES = ("global", "semi-global", "local")
SLOTS = ((0,), (0, 0), (0, 0, 0))


def _slots() -> tuple[tuple[int, ...], ...]:
    """``SLOTS``, then every count of real GPUs from two up."""
    return SLOTS + tuple(tuple(range(k)) for k in range(2, gpu_count() + 1))


def _check_partition(cells: np.ndarray, parts: int) -> np.ndarray:
    """The partition of ``cells`` into ``parts``, checked: contiguous ranges covering every
    pair once, each within one pair's cells of its share."""
    bounds = _gpu_backend._partition(np.cumsum(cells, dtype=np.int64), parts)
    assert len(bounds) == parts + 1
    assert bounds[0] == 0 and bounds[-1] == len(cells)
    assert np.all(np.diff(bounds) >= 0)
    sums = np.array([int(cells[a:b].sum()) for a, b in itertools.pairwise(bounds)])
    assert int(sums.sum()) == int(cells.sum())
    widest = int(cells.max(initial=0))
    # |range - total / parts| <= one pair's cells, in integers
    assert np.all(np.abs(sums * parts - int(cells.sum())) <= widest * parts)
    return bounds


def _nearest_boundaries(cells: np.ndarray, parts: int) -> list[int]:
    """The rule, over the whole prefix sum: boundary k is the first whose prefix reaches
    k / parts of the total, or the one before it when that is at least as near."""
    prefix = np.concatenate(([0], np.cumsum(cells))) * parts
    total = int(cells.sum())
    bounds = [0]
    for k in range(1, parts):
        above = int(np.flatnonzero(prefix >= k * total)[0])
        below = max(above - 1, 0)
        nearer = k * total - prefix[below] <= prefix[above] - k * total
        bounds.append(below if nearer else above)
    return [*bounds, len(cells)]


def test_partition_is_balanced_on_random_cells() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        count = int(rng.integers(1, 400))
        m = rng.integers(0, 3000, size=count)
        n = rng.integers(0, 3000, size=count)
        cells = m * n
        cells[rng.random(count) < 0.1] = 0  # pairs with an empty side
        parts = int(rng.integers(1, 9))
        bounds = _check_partition(cells, parts)
        assert bounds.tolist() == _nearest_boundaries(cells, parts)


def test_partition_of_a_slice_counts_from_its_base() -> None:
    """A range of a longer running total (a device's share, split into stages) partitions
    as its own cells would."""
    rng = np.random.default_rng(4)
    for _ in range(100):
        cells = rng.integers(0, 50_000, size=int(rng.integers(2, 300)))
        a = int(rng.integers(0, len(cells) - 1))
        b = int(rng.integers(a + 1, len(cells) + 1))
        cumulative = np.cumsum(cells)
        base = int(cumulative[a - 1]) if a else 0
        parts = int(rng.integers(1, 6))
        expected = _check_partition(cells[a:b], parts)
        assert _gpu_backend._partition(cumulative[a:b], parts, base).tolist() == expected.tolist()


class _DeviceFull(Exception):
    """Stands in for CuPy's out-of-memory error."""


def test_a_share_too_large_for_the_device_runs_in_halves() -> None:
    """Out of memory, a range runs as halves of near-equal cells, in order, each once, down
    to what fits (memory released before each retry); ranges without cells are skipped, and
    a single pair that does not fit raises."""
    rng = np.random.default_rng(6)
    for _ in range(50):
        cells = rng.integers(0, 1000, size=int(rng.integers(1, 60)))
        limit = int(rng.integers(1, 3000))
        ran: list[tuple[int, int]] = []
        failed: list[tuple[int, int]] = []
        released: list[bool] = []

        def run(a: int, b: int, ran=ran, failed=failed, cells=cells, limit=limit) -> None:
            if int(cells[a:b].sum()) > limit and b - a > 1:
                failed.append((a, b))
                raise _DeviceFull
            ran.append((a, b))

        _gpu_backend._in_halves_on(
            _DeviceFull,
            run,
            np.cumsum(cells),
            0,
            len(cells),
            # released once the error is handled: its frames no longer hold device buffers
            lambda r=released: r.append(sys.exc_info()[0] is None),
        )
        covered = [p for a, b in ran for p in range(a, b)]
        assert covered == sorted(set(covered))  # in order, each pair once
        assert set(np.flatnonzero(cells).tolist()) <= set(covered)
        assert all(int(cells[a:b].sum()) <= limit or b - a == 1 for a, b in ran)
        assert all(int(cells[a:b].sum()) > 0 for a, b in ran)
        assert len(released) == len(failed) and all(released)
        if int(cells.sum()) > limit and np.count_nonzero(cells) > 1:
            assert failed

    def never_fits(a: int, b: int) -> None:
        raise _DeviceFull

    with pytest.raises(_DeviceFull):
        _gpu_backend._in_halves_on(_DeviceFull, never_fits, np.cumsum([5, 5]), 0, 2, lambda: None)


@pytest.mark.parametrize("in_pieces_from", [1 << 20, 9])
def test_running_cells_is_the_cumulative_product(
    monkeypatch: pytest.MonkeyPatch, in_pieces_from: int
) -> None:
    """The scan equals ``np.cumsum(m * n)`` and flags pairs with an empty side, in one pass
    and in pieces on the scan threads (an empty pair in any piece, or in none)."""
    monkeypatch.setattr(_host_scan, "_PARALLEL_FROM", in_pieces_from)
    rng = np.random.default_rng(5)
    for count in (0, 1, 2, 8, 9, 17, 1000, 4099):
        m = rng.integers(0, 70_000, size=count)
        n = rng.integers(1, 70_000, size=count)
        for lengths in (m, np.maximum(m, 1)):
            cumulative, empty = running_cells(lengths, n)
            assert cumulative.dtype == np.int64
            assert np.array_equal(cumulative, np.cumsum(lengths * n, dtype=np.int64))
            assert empty == bool((lengths == 0).any())
    last_only = np.ones(1000, dtype=np.int64)
    last_only[-1] = 0
    assert running_cells(last_only, last_only)[1]


@pytest.mark.parametrize("in_pieces_from", [1 << 20, 9])
def test_indexed_running_cells_gathers_and_checks_bounds(
    monkeypatch: pytest.MonkeyPatch, in_pieces_from: int
) -> None:
    """The fused gather and scan equals the numpy gathers and cumsum, in one pass and in
    pieces; an index outside the batch is named by its pair (the first one), never read."""
    monkeypatch.setattr(_host_scan, "_PARALLEL_FROM", in_pieces_from)
    rng = np.random.default_rng(6)
    q_lengths, t_lengths = rng.integers(0, 5000, size=40), rng.integers(1, 5000, size=30)
    for count in (0, 1, 9, 17, 500):
        qi, ti = rng.integers(0, 40, size=count), rng.integers(0, 30, size=count)
        m, n, cumulative, empty = indexed_running_cells(q_lengths, t_lengths, qi, ti)
        assert np.array_equal(m, q_lengths[qi]) and np.array_equal(n, t_lengths[ti])
        assert np.array_equal(cumulative, np.cumsum(q_lengths[qi] * t_lengths[ti]))
        assert empty == bool((q_lengths[qi] == 0).any())
    qi, ti = np.array([0, 39, 40]), np.array([0, 29, 0])
    with pytest.raises(IndexError, match=r"^pair 2: query index 40 or target index 0 outside"):
        indexed_running_cells(q_lengths, t_lengths, qi, ti)
    with pytest.raises(IndexError, match=r"^pair 0: query index 0 or target index -1 outside"):
        indexed_running_cells(q_lengths, t_lengths, qi[:1], np.array([-1]))
    # two bad pairs in different pieces: the first is named
    qi, ti = np.zeros(40, dtype=np.int64), np.zeros(40, dtype=np.int64)
    qi[[13, 35]] = 99
    with pytest.raises(IndexError, match=r"^pair 13: query index 99 "):
        indexed_running_cells(q_lengths, t_lengths, qi, ti)


@pytest.mark.parametrize("in_pieces_from", [1 << 20, 9])
def test_take_and_extent(monkeypatch: pytest.MonkeyPatch, in_pieces_from: int) -> None:
    """The gather and the extent of sequences equal numpy's, in one pass and in pieces."""
    monkeypatch.setattr(_host_scan, "_PARALLEL_FROM", in_pieces_from)
    rng = np.random.default_rng(8)
    offsets = np.cumsum(rng.integers(0, 900, size=300))
    for count in (1, 9, 17, 1000):
        index = rng.integers(0, 300, size=count)
        taken = _host_scan.take(offsets, index)
        assert taken.dtype == offsets.dtype and np.array_equal(taken, offsets[index])
        lengths = rng.integers(0, 900, size=count)
        low, high = _host_scan.extent(taken, lengths)
        assert (low, high) == (int(taken.min()), int((taken + lengths).max()))


@pytest.mark.parametrize("in_pieces_from", [1 << 20, 4])
def test_length_spread(monkeypatch: pytest.MonkeyPatch, in_pieces_from: int) -> None:
    """The band's length statistics equal numpy's, in one pass and in pieces."""
    monkeypatch.setattr(_host_scan, "_PARALLEL_FROM", in_pieces_from)
    rng = np.random.default_rng(9)
    for count in (1, 9, 17, 1000):
        m = rng.integers(0, 3000, size=count).astype(np.int32)
        n = rng.integers(0, 3000, size=count).astype(np.int32)
        assert _host_scan.length_spread(m, n) == (
            int(np.abs(n.astype(np.int64) - m).max()),
            int(np.minimum(m, n).min()),
            int(n.min()),
        )


def test_is_consecutive() -> None:
    assert is_consecutive(np.arange(5, 900)) and is_consecutive(np.zeros(0, dtype=np.int64))
    assert is_consecutive(np.array([7]))
    assert not is_consecutive(np.array([3, 4, 6, 7]))
    assert not is_consecutive(np.array([3, 2]))
    assert not is_consecutive(np.array([1, 1, 2]))


def test_partition_of_equal_pairs_is_even() -> None:
    cells = np.full(12, 512 * 512)
    assert _check_partition(cells, 4).tolist() == [0, 3, 6, 9, 12]
    assert _check_partition(cells, 1).tolist() == [0, 12]
    # a range boundary between pairs nearest each share: 12 / 5 = 2.4, 4.8, 7.2, 9.6
    assert _check_partition(cells, 5).tolist() == [0, 2, 5, 7, 10, 12]


def test_partition_follows_the_cells_not_the_pair_count() -> None:
    """One long pair is worth many short ones: it gets a range nearly to itself."""
    cells = np.array([100] * 10 + [1000])
    assert _check_partition(cells, 2).tolist() == [0, 10, 11]


def test_partition_with_more_parts_than_pairs() -> None:
    """Equal pairs, more parts than pairs: every pair alone in a range, the rest empty."""
    for count in (1, 2, 3, 5):
        for parts in range(count, count + 6):
            bounds = _check_partition(np.full(count, 7), parts)
            sizes = np.diff(bounds)
            assert sorted(sizes.tolist()) == [0] * (parts - count) + [1] * count


def test_stages_follow_the_stage_shares(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large share is cut in the proportions of ``_STAGE_SHARES`` (a short first and last
    stage); a small one in fewer stages of near-equal cells; the stages tile the share."""
    monkeypatch.setattr(_gpu_backend, "_MIN_STAGE_PAIRS", 4)
    monkeypatch.setattr(_gpu_backend, "_STAGE_SHARES", (1, 7, 7, 1))
    cumulative = np.cumsum(np.full(160, 9, dtype=np.int64))
    assert _gpu_backend._stages(cumulative, 0) == [(0, 10), (10, 80), (80, 150), (150, 160)]
    # a slice of a longer total counts from its base (7.5 pairs a sixteenth: ties go down)
    later = cumulative[40:] - cumulative[39] + 1000
    assert _gpu_backend._stages(later, 1000) == [(0, 7), (7, 60), (60, 112), (112, 120)]
    # 10 pairs make 2 stages of at least 4 pairs; 3 pairs make one
    assert _gpu_backend._stages(cumulative[:10], 0) == [(0, 5), (5, 10)]
    assert _gpu_backend._stages(cumulative[:3], 0) == [(0, 3)]


def test_a_lead_in_starts_small_and_doubles() -> None:
    """The first chunks of a lead-in grow 1, 2, 4, ... times ``lead`` up to the normal chunk;
    every chunk list tiles the launch."""
    launch = _gpu_backend._Launch("s16x2", "s16x2", 16, 32, np.arange(1 << 20), start=7)

    def sizes(lead: int) -> list[int]:
        chunks = _gpu_backend._ranges(launch, 512, lead)
        assert chunks[0][0] == 7 and chunks[-1][1] == 7 + (1 << 20)
        assert all(b == c for (_, b), (c, _) in itertools.pairwise(chunks))
        return [b - a for a, b in chunks]

    normal = sizes(0)
    assert normal == [1 << 17] * 8
    assert sizes(1 << 14) == [1 << 14, 1 << 15, 1 << 16] + [1 << 17] * 7 + [1 << 14]
    assert sizes(1 << 18) == normal


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300_000), st.integers(1, 4000), st.sampled_from([0, 1 << 14]))
def test_chunks_keep_pair_sets_whole(count: int, longest: int, lead: int) -> None:
    """Every chunk but the last holds an even number of pairs, so a two-pair lane's pair sets
    (the paired profile's: two pairs of one query) never straddle two chunks."""
    launch = _gpu_backend._Launch("s16x2", "s16x2-paired", 8, 16, np.arange(count), start=3)
    chunks = _gpu_backend._ranges(launch, longest, lead)
    assert chunks[0][0] == 3 and chunks[-1][1] == 3 + count
    assert all(b == c for (_, b), (c, _) in itertools.pairwise(chunks))
    assert all((b - a) % 2 == 0 for a, b in chunks[:-1])


@pytest.mark.parametrize("count", [1, 3, 1681, 1682])
def test_a_launch_that_one_chunk_holds_is_one_chunk(count: int) -> None:
    """An odd count that fits one chunk is not rounded down to an even one, which left its
    last pair a chunk of its own (a long read's whole pipeline run after the others)."""
    pairs = np.arange(count)
    launch = _gpu_backend._Launch("s16x2", "s16x2-bytes-rebased", 32, 32, pairs, 5, split=8)
    longest = 16_707  # 1,681 such pairs' handed-on columns fit the split scratch budget
    assert _gpu_backend.chunk_pairs(launch, longest, count) == count
    assert _gpu_backend._ranges(launch, longest) == [(5, 5 + count)]
    # past the budget: even chunks but the last
    many = _gpu_backend._Launch("s16x2", "s16x2-bytes-rebased", 32, 32, np.arange(4001), 5)
    chunks = _gpu_backend._ranges(many, 200_000)
    assert len(chunks) > 1 and all((b - a) % 2 == 0 for a, b in chunks[:-1])
    assert chunks[-1][1] == 5 + 4001


def test_partition_without_pairs_or_cells() -> None:
    assert _check_partition(np.zeros(0, dtype=np.int64), 3).tolist() == [0, 0, 0, 0]
    # nothing to balance: every pair in one range
    assert _check_partition(np.zeros(4, dtype=np.int64), 2).tolist() == [0, 0, 4]
    # pairs of no cells after the last boundary stay in the last range
    cells = np.array([5, 5, 0, 0])
    assert _check_partition(cells, 2).tolist() == [0, 1, 4]


def test_on_devices_runs_every_range_with_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    """One contiguous range per device, ranges without cells skipped, results in device
    order, and a worker's error raised after the others finished."""
    cells = np.array([0, 0, 5, 5, 0, 5, 5, 0, 0, 0], dtype=np.int64)
    monkeypatch.setattr(_gpu_backend, "_devices", (3, 4, 5, 6))
    seen = _gpu_backend.on_devices(np.cumsum(cells), lambda device, a, b: (device, a, b))
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)
    covered = [p for _, a, b in seen for p in range(a, b)]
    assert sorted(covered) == covered and np.flatnonzero(cells).tolist() == [
        p for p in covered if cells[p]
    ]
    assert all(cells[a:b].any() for _, a, b in seen)
    monkeypatch.setattr(_gpu_backend, "_devices", (0,))
    assert _gpu_backend.on_devices(np.cumsum(cells), lambda *share: share) == [(0, 0, 10)]
    assert _gpu_backend.on_devices(np.zeros(3, dtype=np.int64), lambda *s: s) == []
    monkeypatch.setattr(_gpu_backend, "_devices", (0, 1))
    finished = []

    def work(device: int, a: int, b: int) -> None:
        if device == 0:
            raise RuntimeError("device 0 failed")
        finished.append(device)

    with pytest.raises(RuntimeError, match="device 0 failed"):
        _gpu_backend.on_devices(np.cumsum(cells), work)
    assert finished == [1]


def test_traceback_leaves_empty_and_oversized_pairs_to_the_cpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every pair is answered once: on a device, or by the CPU when a side is empty or its
    flags do not fit (a stand-in for the device work marks what it took)."""
    from seqwarp.align import _gpu_traceback

    args = _dna_call(4, 30, "local")
    cpu_fields, cpu_cigars = _cpu_backend.align(*args)
    taken = []

    def device_share(
        device, queries, targets, share, m, n, cells, base, scoring, out, parts, marks, band
    ):
        both = np.flatnonzero((m > 0) & (n > 0))
        oversized = both[::3]  # every third pair "does not fit"
        done = base + np.setdiff1d(both, oversized)
        out[done] = cpu_fields[done]
        parts.append((done, Cigars.from_strings([cpu_cigars[p] for p in done])))
        taken.extend(done.tolist())
        return oversized

    monkeypatch.setattr(_gpu_traceback, "_out_of_memory", lambda: _DeviceFull)
    for devices in ((0,), (0, 1, 2)):
        taken.clear()
        monkeypatch.setattr(_gpu_backend, "_devices", devices)
        monkeypatch.setattr(_gpu_traceback, "_align_share", device_share)
        fields, cigars = _gpu_traceback.align(*args)
        assert np.array_equal(fields, cpu_fields) and list(cigars) == list(cpu_cigars)
        assert 0 < len(taken) < len(args[0])


def test_traceback_share_out_of_device_memory_runs_in_halves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A device's part that runs out of memory runs again in halves, down to parts that fit,
    after the pool is released; CIGARs that a failed attempt had finished are not kept twice,
    and every pair is answered once, as the CPU backend answers it."""
    from seqwarp.align import _gpu_traceback

    args = _dna_call(5, 40, "global")
    cpu_fields, cpu_cigars = _cpu_backend.align(*args)
    released: list[int] = []
    attempts: list[int] = []

    def device_share(
        device, queries, targets, share, m, n, cells, base, scoring, out, parts, marks, band
    ):
        both = np.flatnonzero((m > 0) & (n > 0))
        attempts.append(len(both))
        # a part of more than 6 pairs runs out of memory once half of it has finished
        done = base + (both[: len(both) // 2] if len(both) > 6 else both)
        out[done] = cpu_fields[done]
        parts.append((done, Cigars.from_strings([cpu_cigars[p] for p in done])))
        if len(both) > 6:
            raise _DeviceFull
        return np.zeros(0, dtype=np.int64)

    scattered: list[np.ndarray] = []
    scatter = Cigars.scatter.__func__

    def spy(cls: type, count: int, parts: list) -> Cigars:
        # the last call is the one that gathers the device parts (the CPU's calls come first)
        scattered[:] = [np.asarray(positions) for positions, _ in parts]
        return scatter(cls, count, parts)

    monkeypatch.setattr(_gpu_traceback, "_out_of_memory", lambda: _DeviceFull)
    monkeypatch.setattr(_gpu_backend, "release_pool", released.append)
    monkeypatch.setattr(_gpu_traceback, "_align_share", device_share)
    monkeypatch.setattr(Cigars, "scatter", classmethod(spy))
    for devices in ((0,), (0, 1)):
        released.clear()
        attempts.clear()
        scattered.clear()
        monkeypatch.setattr(_gpu_backend, "_devices", devices)
        fields, cigars = _gpu_traceback.align(*args)
        assert np.array_equal(fields, cpu_fields) and list(cigars) == list(cpu_cigars)
        assert max(attempts) > 6 and released and set(released) <= set(devices)
        every = np.concatenate(scattered)
        assert len(every) == len(np.unique(every)) == len(args[0])  # each pair once


# --- on the GPU -------------------------------------------------------------------------


def _random_sequences(seed: int, letters: int, count: int) -> tuple[list, list]:
    """Mixed pairs: short, long, very unequal, related, and some with an empty side (a run
    of them first, then one of each kind last)."""
    rng = np.random.default_rng(seed)
    queries, targets = [], []
    for p in range(count):
        kind = p % 4
        if kind == 0:
            m, n = rng.integers(1, 40, size=2)
        elif kind == 1:
            m, n = rng.integers(1, 1500, size=2)
        else:
            m, n = int(rng.integers(1, 8)), int(rng.integers(300, 1500))
            if rng.random() < 0.5:
                m, n = n, m
        q = rng.integers(letters, size=m, dtype=np.uint8)
        t = rng.integers(letters, size=n, dtype=np.uint8)
        if kind == 3:  # a copy with substitutions
            t = q.copy()
            changed = rng.random(len(t)) < 0.1
            t[changed] = rng.integers(letters, size=int(changed.sum()), dtype=np.uint8)
        queries.append(q)
        targets.append(t)
    empty = np.zeros(0, dtype=np.uint8)
    some = rng.integers(letters, size=9, dtype=np.uint8)
    return [empty] * 6 + queries + [empty, some], [some] * 6 + targets + [some, empty]


def _score_on_every_slot_count(
    monkeypatch: pytest.MonkeyPatch, args: tuple, lanes: str
) -> list[np.ndarray]:
    """``_gpu_backend.score`` with each of ``_slots()`` as the devices."""
    monkeypatch.setattr(_gpu_backend, "_devices", _gpu_backend._devices)  # restored afterwards
    answers = []
    for ordinals in _slots():
        _gpu_backend.use(Backend("gpu", ordinals))
        answers.append(np.ascontiguousarray(_gpu_backend.score(*args, lanes=lanes)))
    return answers


def _assert_same(cpu: np.ndarray, answers: list[np.ndarray], m: np.ndarray, n: np.ndarray) -> None:
    """Every answer equals the CPU backend's, and is byte-identical to the first."""
    for ordinals, gpu in zip(_slots(), answers, strict=True):
        assert gpu.dtype == np.int64 and gpu.shape == cpu.shape
        bad = np.flatnonzero(np.any(cpu != gpu, axis=1))
        if len(bad):
            p = int(bad[0])
            raise AssertionError(
                f"devices {ordinals}: {len(bad)} of {len(cpu)} pairs differ; first: pair {p} "
                f"(m={m[p]}, n={n[p]}) cpu={cpu[p].tolist()} gpu={gpu[p].tolist()}"
            )
        assert gpu.tobytes() == answers[0].tobytes()


def _dna_call(seed: int, count: int, mode: str) -> tuple:
    """The backend arguments of ``count`` mixed DNA pairs (``_random_sequences``) in call
    order, in ``mode``."""
    scoring = scoring_for("dna")
    queries, targets = _random_sequences(seed, 4, count=count)
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    return (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)


def _check_every_mode(
    monkeypatch: pytest.MonkeyPatch, queries: list, targets: list, scoring: Scoring
) -> None:
    """Pairs ``(queries[i], targets[i])`` in every mode, on every slot count, against the CPU."""
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    for mode in MODES:
        args = (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
        cpu = _cpu_backend.score(*args)
        answers = _score_on_every_slot_count(monkeypatch, args, "auto")
        _assert_same(cpu, answers, q.lengths, t.lengths)


@pytest.mark.gpu
@pytest.mark.parametrize("stage_pairs", [1 << 15, 16])
@pytest.mark.parametrize("lanes", ["auto", "s32"])
@pytest.mark.parametrize("alphabet", ["dna", "protein"])
@pytest.mark.parametrize("mode", MODES)
def test_slots_give_identical_output(
    monkeypatch: pytest.MonkeyPatch, mode: str, alphabet: str, lanes: str, stage_pairs: int
) -> None:
    """Pairs in call order and scattered (shared and separate code buffers), each device's
    share in one stage and in several."""
    pytest.importorskip("cupy")
    monkeypatch.setattr(_gpu_backend, "_MIN_STAGE_PAIRS", stage_pairs)
    seed = zlib.crc32(f"{mode} {alphabet} {lanes}".encode())
    scoring = scoring_for(alphabet)
    queries, targets = _random_sequences(seed, 4 if alphabet == "dna" else 20, count=120)
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    rng = np.random.default_rng(seed)
    consecutive = np.arange(len(q), dtype=np.int64)
    scattered = rng.integers(0, len(q), size=len(q) + 40)
    both = batch(queries + targets, scoring.alphabet)
    calls = [
        (q, t, consecutive, consecutive),
        (q, t, scattered, rng.permutation(scattered)),
        (both, both, consecutive, consecutive + len(q)),
    ]
    for qb, tb, qi, ti in calls:
        args = (qb, tb, qi, ti, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
        cpu = _cpu_backend.score(*args)
        answers = _score_on_every_slot_count(monkeypatch, args, lanes)
        _assert_same(cpu, answers, qb.lengths[qi], tb.lengths[ti])


@pytest.mark.gpu
def test_slots_with_small_chunks_and_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many chunks per device, residues in many small pieces, and out-of-memory errors that
    make each device finish its chunks and split the failing one: still the same output."""
    cupy = pytest.importorskip("cupy")
    monkeypatch.setattr(_gpu_backend, "_MAX_CHUNK_PAIRS", 8)
    monkeypatch.setattr(_gpu_backend, "_PIECE_BYTES", 1024)
    stage_chunk = _gpu_backend._stage_chunk

    def tight(cp, kernel, launch, a, b, *rest):
        if b - a > 3:
            raise cupy.cuda.memory.OutOfMemoryError(1 << 20, 1 << 20, 1 << 20)
        return stage_chunk(cp, kernel, launch, a, b, *rest)

    monkeypatch.setattr(_gpu_backend, "_stage_chunk", tight)
    scoring = scoring_for("dna")
    queries, targets = _random_sequences(11, 4, count=96)
    _check_every_mode(monkeypatch, queries, targets, scoring)


@pytest.mark.gpu
def test_more_slots_than_pairs_and_empty_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two pairs on three slots (one range empty), and a range (and stages) of only empty
    pairs."""
    pytest.importorskip("cupy")
    monkeypatch.setattr(_gpu_backend, "_MIN_STAGE_PAIRS", 1)
    scoring = scoring_for("dna")
    rng = np.random.default_rng(2)
    empty = np.zeros(0, dtype=np.uint8)
    cases = [
        [rng.integers(4, size=50, dtype=np.uint8) for _ in range(2)],
        [empty] * 8 + [rng.integers(4, size=30, dtype=np.uint8)],
    ]
    for queries in cases:
        targets = [rng.integers(4, size=40, dtype=np.uint8) for _ in queries]
        _check_every_mode(monkeypatch, queries, targets, scoring)


@pytest.mark.gpu
def test_worker_errors_reach_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error in one device's thread is raised by ``score`` after every thread ended."""
    pytest.importorskip("cupy")

    def broken(*args, **kwargs):
        raise RuntimeError("planning failed")

    monkeypatch.setattr(_gpu_backend, "_devices", (0, 0))
    monkeypatch.setattr(_gpu_backend, "_plan", broken)
    args = _dna_call(5, 16, "global")
    with pytest.raises(RuntimeError, match="planning failed"):
        _gpu_backend.score(*args)
