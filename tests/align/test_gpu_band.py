"""The banded traceback fill (``align_band.cuh``) against the CPU backend: reads against the
windows they come from take the band; every field and CIGAR equals the CPU engine's, whether
the band held a pair or the pair ran again on the whole matrix.

Runs only with ``pytest -m gpu`` on a machine with CuPy and a CUDA device.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

from gpu_cases import assert_same_alignments, batch, mutate, scoring_for  # noqa: E402

from seqwarp.align import _cpu_backend, _gpu_traceback  # noqa: E402

MODES = ("global", "semi-global", "local")
GAPS = ("linear", "affine")


def _reads_and_windows(
    seed: int, length: int, count: int, rate: float, flank: int
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Reads of ``length`` from a random genome with substitutions and indels at ``rate``,
    each against the genome's window it came from, ``flank`` residues wider on each side."""
    rng = np.random.default_rng(seed)
    genome = rng.integers(4, size=50_000, dtype=np.uint8)
    starts = rng.integers(flank, len(genome) - length - flank, size=count)
    reads = [mutate(rng, genome[s : s + length], 4, rate) for s in starts]
    windows = [genome[s - flank : s + length + flank] for s in starts]
    return reads, windows


def _align_both(
    queries: list, targets: list, mode: str, gap: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, int, list[int | None]]:
    """Align on the CPU and the GPU, assert every field and CIGAR equal; returns how many pairs
    ran again on the whole matrix within their chunk and after the call's chunks
    (``_outside_band``), and the band groups the launches took."""
    scoring = scoring_for("dna", gap)
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    args = (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
    again: list[int] = []
    groups: list[int | None] = []
    listed: list[tuple] = []
    outside, choose = _gpu_traceback._outside_band, _gpu_traceback.band_group
    in_chunk = _gpu_traceback._ShareRun._queue_missed

    def chunk_missed(run, kernels, launch, chunk, missed, *rest):
        listed.append(missed[:2])  # the walk's list (its count first) and the chunk's room
        return in_chunk(run, kernels, launch, chunk, missed, *rest)

    def counted(*call):
        again.append(len(call[2]))
        return outside(*call)

    def recorded(*call):
        groups.append(choose(*call))
        return groups[-1]

    monkeypatch.setattr(_gpu_traceback, "_outside_band", counted)
    monkeypatch.setattr(_gpu_traceback, "band_group", recorded)
    monkeypatch.setattr(_gpu_traceback._ShareRun, "_queue_missed", chunk_missed)
    assert_same_alignments(queries, targets, _cpu_backend.align(*args), _gpu_traceback.align(*args))
    chunks = sum(min(int(counts[0]), cap) for counts, cap in listed)
    return chunks, sum(again), groups


@pytest.mark.parametrize("length", [125, 512])
@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("mode", MODES)
def test_reads_against_their_windows_take_the_band(
    monkeypatch: pytest.MonkeyPatch, mode: str, gap: str, length: int
) -> None:
    """The benchmark's kind of pairs (2-5 % errors, 5 % flanks): a band holds nearly all."""
    seed = zlib.crc32(f"band {mode} {gap} {length}".encode())
    reads, windows = _reads_and_windows(seed, length, 4000, 0.04, length // 20)
    chunks, again, groups = _align_both(reads, windows, mode, gap, monkeypatch)
    assert groups and all(g is not None for g in groups)
    assert chunks + again < len(reads) // 20


@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("mode", MODES)
def test_windows_shorter_and_longer_than_their_reads_share_a_warp(
    monkeypatch: pytest.MonkeyPatch, mode: str, gap: str
) -> None:
    """Windows cut into their reads or wider than them, side by side (n - m from about -8 to
    +16 within a warp of pairs): the warp's band holds nearly every pair, and every field
    and CIGAR is the CPU engine's."""
    rng = np.random.default_rng(zlib.crc32(f"both sides {mode} {gap}".encode()))
    genome = rng.integers(4, size=50_000, dtype=np.uint8)
    reads, windows = [], []
    for start in rng.integers(20, len(genome) - 160, size=3000):
        left, right = rng.integers(-4, 9, size=2)
        reads.append(mutate(rng, genome[start : start + 125], 4, 0.03))
        windows.append(genome[start - left : start + 125 + right])
    chunks, again, groups = _align_both(reads, windows, mode, gap, monkeypatch)
    assert groups and all(g is not None for g in groups)
    assert chunks + again < len(reads) // 50


@pytest.mark.parametrize("group", _gpu_traceback._BAND_GROUPS)
@pytest.mark.parametrize(
    ("gap", "columns"),
    [
        (gap, columns)
        for gap, affine in (("linear", False), ("affine", True))
        for columns in _gpu_traceback._BAND_COLUMNS[affine]
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_every_tile(
    monkeypatch: pytest.MonkeyPatch, mode: str, gap: str, columns: int, group: int
) -> None:
    """Each band tile alone, with the gap model that takes it and no margin, on reads of 7 to
    300 residues (one or many blocks, windows wider than the target) with 8 % errors: narrow
    windows miss some pairs, which run again on the whole matrix."""
    monkeypatch.setattr(_gpu_traceback, "_BAND_COLUMNS", {gap == "affine": (columns,)})
    monkeypatch.setattr(_gpu_traceback, "_BAND_GROUPS", (group,))
    monkeypatch.setattr(_gpu_traceback, "_BAND_MOST_COLUMNS", 10.0)
    monkeypatch.setattr(_gpu_traceback, "_BAND_MIN_MARGIN", 0)
    monkeypatch.setattr(_gpu_traceback, "_BAND_MARGIN", dict.fromkeys(MODES, 0.0))
    seed = zlib.crc32(f"tile {mode} {gap} {columns} {group}".encode())
    reads, windows = [], []
    for length in (7, 30, 100, 300):
        r, w = _reads_and_windows(seed + length, length, 300, 0.08, min(group, length // 10))
        reads += r
        windows += w
    chunks, again, groups = _align_both(reads, windows, mode, gap, monkeypatch)
    assert (columns, group) in groups
    assert chunks + again < len(reads)


@pytest.mark.parametrize("rerun", ["in the chunk", "some after", "all after"])
@pytest.mark.parametrize("mode", MODES)
def test_unrelated_pairs_run_again_on_the_whole_matrix(
    monkeypatch: pytest.MonkeyPatch, mode: str, rerun: str
) -> None:
    """Equal lengths but unrelated residues (a band forced on them): their optimal paths may
    leave any band, so most run again: all in their chunk (room for every pair), some in
    their chunk and the rest after the chunks (the usual room), or all after."""
    monkeypatch.setattr(_gpu_traceback, "_BAND_MOST_COLUMNS", 10.0)
    if rerun != "some after":
        monkeypatch.setattr(
            _gpu_traceback, "_MISSED_SHARE", 1 if rerun == "in the chunk" else 10**9
        )
        monkeypatch.setattr(_gpu_traceback, "_MISSED_LEAST", 0)
    rng = np.random.default_rng(zlib.crc32(mode.encode()))
    queries = [rng.integers(4, size=200, dtype=np.uint8) for _ in range(500)]
    targets = [rng.integers(4, size=200, dtype=np.uint8) for _ in range(500)]
    chunks, again, groups = _align_both(queries, targets, mode, "linear", monkeypatch)
    assert groups and all(g is not None for g in groups)
    assert chunks + again > len(queries) // 2
    assert (chunks == 0) == (rerun == "all after") and (again == 0) == (rerun == "in the chunk")
