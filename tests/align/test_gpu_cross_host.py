"""The GPU cross path's host side: its launches (``_gpu_cross.cross_launches``: every target
once, the indexed path's tile and profile for each, pair sets of one query) and the whole
of ``score_block`` with numpy standing in for CuPy and the CPU engine for the kernels (which
pairs each chunk spells out, where their scores land, empty sequences, the long targets'
columns, device shares, a device out of memory).

No GPU needed; ``test_gpu.py`` runs the path on the device against the CPU engine.
"""

from __future__ import annotations

import sys
import threading
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqwarp.align import _cpu_backend, _gpu_backend, _gpu_cross
from seqwarp.align.plan import SM_90
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch

_DNA = Scoring.dna(2, -1, 2, 1)
_PROTEIN = Scoring.blosum62(11, 1)


def _per_target(launches: list, count: int) -> list[tuple[str, int, int]]:
    """(lane, group, columns) of each sorted target, checking that launches cover each once."""
    seen: list[tuple[str, int, int] | None] = [None] * count
    for launch, first, width in launches:
        assert width > 0
        for j in range(first, first + width):
            assert seen[j] is None, f"target {j} in two launches"
            seen[j] = (launch.kernel_lane, launch.group, launch.columns)
    assert None not in seen
    return seen


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 3000), min_size=1, max_size=80),
    st.sampled_from(["global", "local"]),
)
def test_launches_take_the_indexed_paths_tiles_and_pair_targets_two_by_two(
    lengths: list[int], mode: str
) -> None:
    """Each target runs on the tile and profile that the indexed path gives a pair of one
    query against it (the paired profile spelt as the plain one: the indexed path pairs
    sets of one query too), and a paired launch holds an even number of targets."""
    n = np.sort(np.array(lengths, dtype=np.int64))
    offset = mode != "local"
    launches = _gpu_cross.cross_launches(n, _DNA.matrix, offset, _DNA.gap_extend)
    plain = _gpu_backend._kernel_lane("s16x2", offset, _DNA.matrix, _DNA.gap_extend)
    for launch, _, width in launches:
        if "paired" in launch.kernel_lane:
            assert width % 2 == 0
            assert launch.columns <= _gpu_backend._PAIRED_MOST_COLUMNS
    got = _per_target(launches, len(n))
    m = np.full(len(n), 100, dtype=np.int64)
    indexed = _gpu_backend._plan(m, n, _DNA.matrix, 2, 1, "auto", offset=offset)
    want: list[tuple[str, int, int] | None] = [None] * len(n)
    for launch in indexed:
        for pair in launch.pairs:
            want[pair] = (launch.kernel_lane, launch.group, launch.columns)
    assert [(plain if "paired" in lane else lane, g, k) for lane, g, k in got] == want


def test_protein_launches_read_the_class_table() -> None:
    """A protein block's targets run on the class table's lane, never the paired profile."""
    n = np.array([5, 60, 61, 300, 700, 1500], dtype=np.int64)
    launches = _gpu_cross.cross_launches(n, _PROTEIN.matrix, False, _PROTEIN.gap_extend)
    lanes = {lane for lane, _, _ in _per_target(launches, len(n))}
    assert lanes == {"s16x2-table"}
    tiles = {(each.launch.group, each.launch.columns) for each in launches}
    assert tiles <= set(_gpu_backend._TILES_TABLE)


def test_targets_past_seven_of_the_widest_stripes_are_left_to_the_indexed_path() -> None:
    """The split warps' threshold: 7 stripes of 512 columns (DNA's widest tile and the class
    table's, 32 x 16)."""
    assert _gpu_cross._long_targets(_DNA.matrix) == 7 * 512
    assert _gpu_cross._long_targets(_PROTEIN.matrix) == 7 * 512


class _HostArray(np.ndarray):
    """A numpy array in the place of a CuPy one (``get`` copies it to the host)."""

    def get(self, stream=None, out=None, blocking=True) -> np.ndarray:
        if out is None:
            return np.array(self)
        out[...] = self
        return out


class _Stream:
    """A CUDA stream stand-in: work runs at once, so ordering holds by itself."""

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def record(self) -> None:
        return None

    def wait_event(self, event: object) -> None:
        return None

    def synchronize(self) -> None:
        return None


class _OutOfMemory(Exception):
    pass


def _fake_cupy() -> types.ModuleType:
    """The parts of CuPy the cross path takes, over numpy (fresh arrays hold garbage)."""
    cp = types.ModuleType("cupy")

    def empty(shape, dtype=float) -> _HostArray:
        return np.full(shape, 99 if np.dtype(dtype).kind == "u" else -777, dtype).view(_HostArray)

    cp.empty = empty
    cp.asarray = lambda values, dtype=None: np.array(values, dtype=dtype).view(_HostArray)
    cp.arange = lambda *args, **kwargs: np.arange(*args, **kwargs).view(_HostArray)
    cp.cuda = types.SimpleNamespace(
        Device=lambda ordinal: _Stream(),
        memory=types.SimpleNamespace(OutOfMemoryError=_OutOfMemory),
    )
    return cp


class _Kernel:
    """A score kernel stand-in: each pair of a chunk scored by the CPU engine."""

    shared_size_bytes = 0
    num_regs = 64

    def __init__(self, scoring: tuple, lock: threading.Lock, alphabet) -> None:
        self.scoring, self.lock, self.alphabet = scoring, lock, alphabet

    def __call__(self, grid, block, args, shared_mem=0) -> None:
        codes, q_start, m, t_start, n, count, *_, out = args
        pieces = [codes[s : s + k] for s, k in zip(q_start, m, strict=True)]
        pieces += [codes[s : s + k] for s, k in zip(t_start, n, strict=True)]
        offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in pieces], out=offsets[1:])
        names = tuple(str(i) for i in range(len(pieces)))
        both = SequenceBatch(np.concatenate(pieces).view(np.ndarray), offsets, names, self.alphabet)
        index = np.arange(int(count))
        with self.lock:
            fields = _cpu_backend.score(both, both, index, index + int(count), *self.scoring)
        out[:, 0] = fields[:, 0]
        out[:, 1:] = 0


@pytest.fixture
def cupy_on_the_host(monkeypatch: pytest.MonkeyPatch):
    """Install the stand-ins; returns ``setup(scoring, mode, memory=None)``, which sets what
    the kernels score (``memory``: the kernel calls that fit before the device runs out of
    memory) and returns the list the chunks' kernel calls go to, as (lane, pairs)."""
    calls: list[tuple[str, int]] = []
    lock = threading.Lock()
    state: dict = {}
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy())

    class Kernels:
        def of(self, launch):
            return _Kernel(state["scoring"], lock, state["alphabet"])

    class Upload:
        def __init__(self, cp, device, sources, threads) -> None:
            self.codes = np.concatenate([*sources, np.zeros(16, np.uint8)]).view(_HostArray)

        def wait(self, stream, needs) -> None:
            return None

        def join(self) -> None:
            return None

    call = _gpu_backend.kernel_call

    def kernel_call(cp, kernel, launch, arrays, longest, codes, result, data):
        assert int(arrays[1].max()) <= longest[0] and int(arrays[3].max()) <= longest[1]
        calls.append((launch.kernel_lane, len(result)))
        if state.get("memory") is not None and len(calls) > state["memory"]:
            raise _OutOfMemory
        return call(cp, kernel, launch, arrays, longest, codes, result, data)

    def indexed(*args, ends=True, **kwargs):
        with lock:
            return _cpu_backend.score(*args)

    monkeypatch.setattr(_gpu_backend, "_module", lambda *args: Kernels())
    monkeypatch.setattr(_gpu_backend, "_Upload", Upload)
    monkeypatch.setattr(_gpu_backend, "kernel_call", kernel_call)
    monkeypatch.setattr(_gpu_backend, "score", indexed)
    monkeypatch.setattr(_gpu_backend, "_pinned", lambda cp, dtype, shape: np.full(shape, -9, dtype))
    monkeypatch.setattr(_gpu_backend, "release_pool", lambda device: None)
    monkeypatch.setattr(_gpu_backend, "_current_device", lambda: 0)
    monkeypatch.setattr(_gpu_backend, "_multiprocessor", lambda ordinal: SM_90)
    monkeypatch.setattr(
        _gpu_cross, "thread_streams", lambda cp, device, count: [_Stream() for _ in range(count)]
    )

    def setup(scoring: Scoring, mode: str, memory: int | None = None) -> list[tuple[str, int]]:
        state.update(
            scoring=(scoring.matrix, mode, scoring.gap_open, scoring.gap_extend),
            alphabet=scoring.alphabet,
            memory=memory,
        )
        return calls

    return setup


def _batch(rng: np.random.Generator, lengths, scoring: Scoring) -> SequenceBatch:
    letters = "ACGT" if scoring.alphabet.size < 8 else "ARNDCQEGHILKMFPSTWYV"
    seqs = ["".join(rng.choice(list(letters), size=int(k))) for k in lengths]
    return SequenceBatch.from_strings(seqs, scoring.alphabet)


def _expected(queries, targets, rows: slice, columns: slice, scoring: Scoring, mode: str):
    q_index = np.repeat(np.arange(rows.start, rows.stop), columns.stop - columns.start)
    t_index = np.tile(np.arange(columns.start, columns.stop), rows.stop - rows.start)
    fields = _cpu_backend.score(
        queries, targets, q_index, t_index, scoring.matrix, mode, scoring.gap_open,
        scoring.gap_extend,
    )  # fmt: skip
    return fields[:, 0].reshape(rows.stop - rows.start, -1)


@pytest.mark.parametrize("slots", [(0,), (0, 0, 0)])
@pytest.mark.parametrize("mode", ["global", "semi-global", "local"])
def test_score_block_places_every_score(cupy_on_the_host, mode, slots, monkeypatch) -> None:
    """Blocks with empty queries and targets, an odd number of targets of many lengths and
    one past the long-target threshold (lowered to one wide stripe), on one and three device
    slots: every score the CPU engine's, each at its row and column."""
    monkeypatch.setattr(_gpu_backend, "_devices", slots)
    monkeypatch.setattr(_gpu_backend, "_SPLIT", 2)
    rng = np.random.default_rng(len(mode) + len(slots))
    for scoring in (Scoring.dna(2, -1, 2, 1), Scoring.blosum62(11, 1)):
        calls = cupy_on_the_host(scoring, mode)
        lengths = [0, *rng.integers(1, 90, size=6), 0, 0]
        queries = _batch(rng, lengths, scoring)
        targets = _batch(rng, [40, 0, 600, *rng.integers(1, 500, size=6)], scoring)
        for rows, columns in ((slice(0, 9), slice(0, 9)), (slice(1, 7), slice(2, 9))):
            calls.clear()
            got = _gpu_cross.score_block(
                queries, targets, rows, columns, scoring.matrix, mode, scoring.gap_open,
                scoring.gap_extend,
            )  # fmt: skip
            assert got.dtype == np.int32
            assert np.array_equal(got, _expected(queries, targets, rows, columns, scoring, mode))
            assert calls and all(count % 2 == 0 or "paired" not in lane for lane, count in calls)


def test_a_device_out_of_memory_hands_the_block_back(cupy_on_the_host) -> None:
    """A chunk that does not fit: the block is declined (None), for the indexed path."""
    scoring = Scoring.dna(2, -1, 2, 1)
    cupy_on_the_host(scoring, "local", memory=1)
    rng = np.random.default_rng(5)
    queries = _batch(rng, rng.integers(1, 300, size=5), scoring)
    targets = _batch(rng, [20, 200, 400, 600, 800], scoring)
    assert _gpu_cross.score_block(queries, targets, slice(0, 5), slice(0, 5), scoring.matrix,
                                  "local", 2, 1) is None  # fmt: skip
