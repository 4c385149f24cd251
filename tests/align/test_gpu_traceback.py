"""GPU traceback vs CPU backend: every field (score, begins, ends, counts) and every CIGAR equal.

Runs only with ``pytest -m gpu`` on a machine with CuPy and a CUDA device. Each mode x gap
model x alphabet aligns 100,000 seeded random pairs (tiny, short, long, very unequal, related,
unrelated); the overflow-prone cases add identical 4 and 8 kbp pairs at +2 a match, long gap
runs and 50 kbp pairs.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

from gpu_cases import (  # noqa: E402
    EMULATED,
    ODD_TILES,
    assert_same_alignments,
    batch,
    mutate,
    scaled,
    scoring_for,
)

from seqwarp.align import Aligner, _cpu_backend, _gpu_backend, _gpu_traceback  # noqa: E402
from seqwarp.devices import Backend  # noqa: E402
from seqwarp.scoring import Scoring  # noqa: E402

MODES = ("global", "semi-global", "local")
GAPS = ("linear", "affine")
PAIRS_PER_CASE = scaled(100_000)


def _random_pairs(seed: int, letters: int, count: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Lengths log-uniform in 1..2000 (a third), 1..150, very unequal, and related pairs."""
    rng = np.random.default_rng(seed)
    queries, targets = [], []
    for p in range(count):
        kind = p % 6
        if kind in (0, 1):
            m, n = np.exp(rng.uniform(0, np.log(2000), size=2)).astype(int) + 1
        elif kind == 2:
            m, n = rng.integers(1, 151, size=2)
        elif kind == 3:
            m, n = int(rng.integers(1, 8)), int(rng.integers(300, 1200))
            if rng.random() < 0.5:
                m, n = n, m
        else:
            m = n = int(np.exp(rng.uniform(0, np.log(1500)))) + 1
        q = rng.integers(letters, size=m, dtype=np.uint8)
        t = rng.integers(letters, size=n, dtype=np.uint8)
        if kind >= 4:
            t = mutate(rng, q, letters, 0.05 if kind == 4 else 0.25)
            if len(t) == 0:
                t = q.copy()
        queries.append(q)
        targets.append(t)
    queries += [np.zeros(0, dtype=np.uint8), np.zeros(3, dtype=np.uint8)]
    targets += [np.zeros(5, dtype=np.uint8), np.zeros(0, dtype=np.uint8)]
    return queries, targets


def _compare(queries: list, targets: list, scoring: Scoring, mode: str) -> None:
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    args = (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
    assert_same_alignments(queries, targets, _cpu_backend.align(*args), _gpu_traceback.align(*args))


@pytest.mark.parametrize("alphabet", ["dna", "protein"])
@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("mode", MODES)
def test_random_pairs(mode: str, gap: str, alphabet: str) -> None:
    seed = zlib.crc32(f"traceback {mode} {gap} {alphabet}".encode())
    letters = 5 if alphabet == "dna" else 23  # N, and B Z X: wildcards are never matches
    queries, targets = _random_pairs(seed, letters, PAIRS_PER_CASE)
    _compare(queries, targets, scoring_for(alphabet, gap), mode)


@pytest.mark.parametrize("mode", MODES)
def test_overflow_prone_pairs(mode: str) -> None:
    """Identical 4 and 8 kbp pairs (+2 a match: past the 16-bit lane), long gap runs, and
    50 kbp related pairs (past the packed lanes' lengths, several stripes, int32 lane)."""
    rng = np.random.default_rng(23)
    queries, targets = [], []
    for length in (4000, 8000):
        s = rng.integers(4, size=length, dtype=np.uint8)
        queries.append(s)
        targets.append(s.copy())
    s = rng.integers(4, size=3000, dtype=np.uint8)
    queries += [s, s[:200], np.concatenate([s[:1000], s[2500:]])]
    targets += [np.concatenate([s[:1000], s[2000:]]), s, s]
    for _ in range(2):
        s = rng.integers(4, size=50_000, dtype=np.uint8)
        queries.append(s)
        targets.append(mutate(rng, s, 4, 0.1))
    _compare(queries, targets, scoring_for("dna", "affine"), mode)


@pytest.mark.parametrize("tile", ODD_TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("mode", MODES)
def test_fills_on_tiles_not_a_power_of_two_wide(
    monkeypatch: pytest.MonkeyPatch, mode: str, gap: str, tile: tuple[int, int]
) -> None:
    """Each tile of 20 or 24 columns a thread alone (the walk follows its columns without
    shifts; 20 columns: a thread's nibbles of a row in 3 words, the last half empty) on pairs
    of every kind, one stripe or many, 16- and 32-bit lanes."""
    monkeypatch.setattr(_gpu_backend, "_TILES_DNA", (tile,))
    seed = zlib.crc32(f"fill {mode} {gap} {tile}".encode())
    queries, targets = _random_pairs(seed, 4, 3000)
    _compare(queries, targets, scoring_for("dna", gap), mode)


def test_small_chunks_give_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flag budget of a few pairs: many chunks, each collected while the next one runs."""
    monkeypatch.setattr(_gpu_traceback, "_MAX_CHUNK_FLAG_BYTES", 1 << 18)
    queries, targets = _random_pairs(5, 4, 600)
    for mode in MODES:
        _compare(queries, targets, scoring_for("dna", "affine"), mode)


def test_many_stages_and_chunks_give_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stages of a few pairs each, planned on the planner threads, chunks from 2 pairs up and
    mixed shapes (launches out of the call's order, CIGARs collected as parts of their own),
    and a run of equal pairs (one launch in order: one part over the host buffer)."""
    monkeypatch.setattr(_gpu_backend, "_MIN_STAGE_PAIRS", 4)
    monkeypatch.setattr(_gpu_backend, "_STAGE_SHARES", (1, 7, 7, 1))
    monkeypatch.setattr(_gpu_backend, "_LEAD_PAIRS", 2)
    monkeypatch.setattr(_gpu_traceback, "_LEAD_PAIRS", 2)
    queries, targets = _random_pairs(11, 4, 500)
    rng = np.random.default_rng(11)
    equal = [rng.integers(4, size=150, dtype=np.uint8) for _ in range(300)]
    for mode in MODES:
        _compare(queries, targets, scoring_for("dna", "affine"), mode)
        _compare(equal, [mutate(rng, s, 4, 0.1) for s in equal], scoring_for("dna", "linear"), mode)


@pytest.mark.skipif(EMULATED, reason="the emulator runs a launch when it is queued: a hold waits")
def test_held_phase_marks_time_every_chunk_and_change_no_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The benchmark's held marks (each chunk's stream held until its kernels are queued):
    every chunk marked start, fill, walk, (a second pass's fill and walk,) pack; no hold ran
    out; the phases take time; and the alignments are the CPU backend's."""
    from seqwarp.bench.held_marks import HeldPhaseMarks

    monkeypatch.setattr(_gpu_traceback, "_LEAD_PAIRS", 64)
    rng = np.random.default_rng(17)
    queries = [rng.integers(4, size=125, dtype=np.uint8) for _ in range(2000)]
    # a few pairs far off their diagonal, so that some bands miss and run a second pass
    targets = [mutate(rng, s, 4, 0.4 if k % 97 == 0 else 0.05) for k, s in enumerate(queries)]
    scoring = scoring_for("dna", "affine")
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    args = (q, t, index, index, scoring.matrix, "global", scoring.gap_open, scoring.gap_extend)
    marks = HeldPhaseMarks()
    held = _gpu_traceback.align(*args, marks=marks)
    phases = [phase for phase, _ in marks.events]
    chunks = " ".join(phases).replace("start fill walk fill walk pack", "chunk")
    chunks = chunks.replace("start fill walk pack", "chunk").split()
    assert len(chunks) >= 3 and set(chunks) == {"chunk"}
    seconds = marks.seconds()
    assert seconds["fill"] > 0 and seconds["walk"] > 0 and seconds["pack"] > 0
    assert_same_alignments(queries, targets, _cpu_backend.align(*args), held)


def test_pairs_whose_flags_do_not_fit_go_to_the_cpu_in_the_same_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pairs whose flags would not fit the device (here: every pair with a side over 1,000)
    are planned as if empty and aligned by the CPU; the others' stages then run out of the
    call's order, and every field and CIGAR still equals the CPU backend's."""
    most = _gpu_traceback._most_flag_bytes

    def huge_when_long(m, n, tiles, affine):
        sizes = most(m, n, tiles, affine)
        return np.where((np.asarray(m) > 1000) | (np.asarray(n) > 1000), 1 << 62, sizes)

    monkeypatch.setattr(_gpu_traceback, "_most_flag_bytes", huge_when_long)
    cpu_calls: list[int] = []
    cpu_align = _cpu_backend.align

    def counted(*args):
        cpu_calls.append(len(args[2]))
        return cpu_align(*args)

    monkeypatch.setattr(_cpu_backend, "align", counted)
    queries, targets = _random_pairs(13, 4, 400)
    long = sum(len(q) > 1000 or len(t) > 1000 for q, t in zip(queries, targets, strict=True))
    assert long > 10
    for mode in MODES:
        cpu_calls.clear()
        _compare(queries, targets, scoring_for("dna", "affine"), mode)
        # the reference call of every pair, and the traceback's call of the long and empty ones
        assert sorted(cpu_calls) == [long + 2, len(queries)]


def test_aligner_cigars_on_gpu_match_cpu() -> None:
    """The public API: ``Aligner(device="gpu").align(output="cigar")`` runs the GPU traceback."""
    queries, targets = _random_pairs(7, 20, 300)
    scoring = scoring_for("protein", "affine")
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    for mode in MODES:
        gpu = Aligner(mode=mode, scoring=scoring, device="gpu").align(q, t, output="cigar")
        cpu = Aligner(mode=mode, scoring=scoring, device="cpu").align(q, t, output="cigar")
        assert gpu.cigar == cpu.cigar
        assert np.array_equal(gpu.score, cpu.score)
        assert np.array_equal(gpu.query_begin, cpu.query_begin)
        assert np.array_equal(gpu.target_end, cpu.target_end)


@pytest.mark.parametrize("consecutive", [True, False])
def test_device_slots_give_identical_alignments(
    monkeypatch: pytest.MonkeyPatch, consecutive: bool
) -> None:
    """One, two and three device slots on one GPU, and every count of real GPUs: each takes
    a range of the pairs; fields and CIGARs equal the CPU's for every count."""
    monkeypatch.setattr(_gpu_backend, "_devices", _gpu_backend._devices)  # restored afterwards
    queries, targets = _random_pairs(9, 4, 400)
    scoring = scoring_for("dna", "affine")
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    rng = np.random.default_rng(9)
    index = np.arange(len(q), dtype=np.int64)
    q_index, t_index = (index, index) if consecutive else (rng.permutation(index),) * 2
    real = [tuple(range(k)) for k in range(2, cupy.cuda.runtime.getDeviceCount() + 1)]
    for mode in MODES:
        args = (q, t, q_index, t_index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
        cpu_fields, cpu_cigars = _cpu_backend.align(*args)
        for ordinals in [(0,), (0, 0), (0, 0, 0), *real]:
            _gpu_backend.use(Backend("gpu", ordinals))
            fields, cigars = _gpu_traceback.align(*args)
            assert np.array_equal(fields, cpu_fields), (mode, ordinals)
            assert list(cigars) == list(cpu_cigars), (mode, ordinals)


def test_backend_align_is_the_gpu_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_gpu_backend.align`` must not fall back to the CPU engine for ordinary pairs (the
    pairs a band misses run again on the device here, not on the CPU as a few would)."""
    calls = []
    monkeypatch.setattr(_cpu_backend, "align", lambda *args: calls.append(args))
    monkeypatch.setattr(_gpu_traceback, "_CPU_AGAIN_CELLS_PER_THREAD", 0)
    queries, targets = _random_pairs(8, 4, 50)
    scoring = scoring_for("dna", "affine")
    q = batch(queries[:50], scoring.alphabet)
    t = batch(targets[:50], scoring.alphabet)
    index = np.arange(50, dtype=np.int64)
    fields, cigars = _gpu_backend.align(
        q, t, index, index, scoring.matrix, "local", scoring.gap_open, scoring.gap_extend
    )
    assert not calls and len(cigars) == 50 and fields.shape == (50, 8)
