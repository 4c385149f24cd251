"""Cross product, top-k and long pairs agree with plain pairwise alignment."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

from seqwarp import InvalidParameter, LengthMismatch, devices
from seqwarp.align import Aligner, _cpu_backend, api
from seqwarp.align.plan import CallBudget, PairShapes, cross_product_blocks, slices_by_total
from seqwarp.devices import Backend
from seqwarp.scoring import Scoring


def _random(rng: np.random.Generator, count: int, low: int, high: int) -> list[str]:
    return ["".join(rng.choice(list("ACGT"), rng.integers(low, high))) for _ in range(count)]


@pytest.mark.parametrize("mode", ["global", "semi-global", "local"])
@pytest.mark.parametrize("block_pairs", [1 << 20, 4, 15])
@pytest.mark.parametrize("sizes", [(7, 5), (5, 7)])
def test_score_matrix_equals_pairs(
    mode: str,
    block_pairs: int,
    sizes: tuple[int, int],
    rng: np.random.Generator,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In one block and in blocks of one or a few queries (more queries than targets) or
    targets (more targets), as a GPU's larger blocks are."""
    monkeypatch.setattr(api, "_CROSS_BLOCK_PAIRS", block_pairs)
    queries, targets = _random(rng, sizes[0], 1, 60), _random(rng, sizes[1], 1, 60)
    aligner = Aligner(mode, Scoring.dna(2, -1, 2, 1), device="cpu")
    matrix = aligner.score_matrix(queries, targets)
    for qi, q in enumerate(queries):
        expected = aligner.align([q] * len(targets), targets, output="score").score
        np.testing.assert_array_equal(matrix[qi], expected)
    hits = aligner.top_hits(queries, targets, 2)
    assert np.array_equal(hits.score, np.sort(matrix, axis=1)[:, ::-1][:, :2])


@pytest.mark.parametrize("block_pairs", [1 << 20, 4, 9])
def test_top_hits_rank_and_ties(
    block_pairs: int, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also when the targets come in blocks (of one or two), whose hits are merged."""
    monkeypatch.setattr(api, "_CROSS_BLOCK_PAIRS", block_pairs)
    queries = _random(rng, 4, 20, 40)
    # equal best targets in different blocks, and ties among the low scores
    targets = [*_random(rng, 6, 20, 40), queries[0], "A", queries[0], "C", "G", "T"]
    aligner = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu")
    matrix = aligner.score_matrix(queries, targets)
    for k in (1, 3, 9, len(targets) + 2):
        hits = aligner.top_hits(queries, targets, k=k)
        for qi in range(len(queries)):
            order = sorted(range(len(targets)), key=lambda t: (-matrix[qi, t], t))[:k]
            padding = k - len(order)
            assert hits.target_index[qi].tolist() == order + [-1] * padding
            assert hits.score[qi].tolist() == [matrix[qi, t] for t in order] + [0] * padding
    assert aligner.top_hits(queries, targets, k=2).target_index[0].tolist() == [6, 8]


@pytest.mark.parametrize(("queries", "targets"), [(5, 3), (3, 5), (4, 4), (1, 9), (9, 1)])
@pytest.mark.parametrize("max_pairs", [1, 4, 7, 100])
def test_cross_blocks_cover_every_pair_once(queries: int, targets: int, max_pairs: int) -> None:
    """Cut along the longer side, whole along the shorter one, the shorter side fastest."""
    seen = np.zeros((queries, targets), dtype=np.int64)
    for block in cross_product_blocks(queries, targets, max_pairs):
        rows, columns = block.queries, block.targets
        shorter = min(queries, targets)
        assert len(block.q_index) <= max(max_pairs - max_pairs % shorter, shorter)
        if queries >= targets:
            assert columns == slice(0, targets) and block.by_query
            assert np.array_equal(block.t_index[:targets], np.arange(targets))
        else:
            assert rows == slice(0, queries) and not block.by_query
            assert np.array_equal(block.q_index[:queries], np.arange(queries))
        np.add.at(seen, (block.q_index, block.t_index), 1)
        # the grid puts each pair's value at its (query, target) place
        grid = block.grid(block.q_index * 1000 + block.t_index)
        expected = np.arange(rows.start, rows.stop)[:, None] * 1000 + np.arange(
            columns.start, columns.stop
        )
        assert np.array_equal(grid, expected)
    assert (seen == 1).all()
    assert list(cross_product_blocks(0, targets, max_pairs)) == []
    assert list(cross_product_blocks(queries, 0, max_pairs)) == []


def test_top_k_larger_than_targets_pads() -> None:
    hits = Aligner("local", device="cpu").top_hits(["ACGT"], ["ACGT", "TTTT"], k=3)
    assert hits.target_index.tolist() == [[0, 1, -1]]


def test_pairs_must_pair_up() -> None:
    with pytest.raises(
        LengthMismatch, match=r"^queries and targets: 2 vs 1 records; they must pair up one-to-one$"
    ):
        Aligner(device="cpu").align(["A", "C"], ["A"])


def test_lengths_beyond_the_exact_range_are_refused() -> None:
    scoring = Scoring.dna(4096, -4096, 4096, 4096)
    with pytest.raises(
        InvalidParameter,
        match=r"^invalid value for 'sequence length': 300000; query \+ target length",
    ):
        Aligner(device="cpu", scoring=scoring).align(
            ["A" * 150_000], ["A" * 150_000], output="score"
        )


def test_long_pair_score_and_cigar() -> None:
    """A 20 kbp read with a 1 kbp deletion against its reference, semi-global, traceback."""
    rng = np.random.default_rng(3)
    reference = "".join(rng.choice(list("ACGT"), 21_000))
    read = reference[500:10_000] + reference[11_000:20_500]
    result = Aligner("semi-global", Scoring.dna(2, -1, 2, 1), device="cpu").align(
        [read], [reference], output="cigar"
    )
    assert result.cigar[0] == "9500=1000D9500="
    assert result.score[0] == 2 * 19_000 - (2 + 999)
    assert (result.target_begin[0], result.target_end[0]) == (500, 20_500)


@pytest.mark.parametrize("output", ["score", "ends", "cigar"])
def test_thread_count_does_not_change_results(output: str, rng: np.random.Generator) -> None:
    queries, targets = _random(rng, 50, 1, 300), _random(rng, 50, 1, 300)
    one = Aligner("local", device="cpu", threads=1).align(queries, targets, output=output)
    two = Aligner("local", device="cpu", threads=2).align(queries, targets, output=output)
    assert one.compare(two) is None


@pytest.mark.parametrize("max_pairs", [None, 1, 3, 1000])
def test_call_slices_respect_both_budgets(max_pairs: int | None, rng: np.random.Generator) -> None:
    cells = rng.integers(0, 500, size=300)
    cells[::37] = 5000  # pairs larger than the cell budget still form a call of their own
    parts = list(slices_by_total(np.cumsum(cells), 1200, max_pairs))
    assert parts[0].start == 0 and parts[-1].stop == len(cells)
    for before, after in itertools.pairwise(parts):
        assert before.stop == after.start
    for part in parts:
        size = part.stop - part.start
        assert size >= 1
        assert size == 1 or int(cells[part].sum()) <= 1200
        assert max_pairs is None or size <= max_pairs
        # greedy: the next pair would have broken a budget
        if part.stop < len(cells):
            grown = int(cells[part.start : part.stop + 1].sum())
            assert grown > 1200 or (max_pairs is not None and size == max_pairs)


def test_a_call_within_both_budgets_is_one_slice() -> None:
    total = np.cumsum([3, 0, 7, 5])
    assert list(slices_by_total(total, 15)) == [slice(0, 4)]
    assert list(slices_by_total(total, 15, 4)) == [slice(0, 4)]
    assert list(slices_by_total(total, 14)) == [slice(0, 3), slice(3, 4)]
    assert list(slices_by_total(total, 15, 3)) == [slice(0, 3), slice(3, 4)]
    assert list(slices_by_total(total[:0], 15)) == []


@pytest.mark.parametrize(("q_index", "t_index", "pair"), [([0, 2], [0, 1], 1), ([-1], [0], 0)])
def test_indexed_pairs_outside_the_batches_are_named(
    q_index: list[int], t_index: list[int], pair: int
) -> None:
    """An index past the end, or negative (numpy would wrap it), is refused by its pair."""
    aligner = Aligner("local", device="cpu")
    queries, targets = aligner._batch(["ACGT", "AC"], "queries"), aligner._batch(["A", "C"], "t")
    with pytest.raises(IndexError, match=rf"^pair {pair}: query index {q_index[pair]} or target"):
        aligner.align_indexed(queries, targets, np.array(q_index), np.array(t_index))


def test_indexed_pairs_must_pair_up() -> None:
    aligner = Aligner("local", device="cpu")
    batch = aligner._batch(["ACGT", "AC"], "queries")
    with pytest.raises(LengthMismatch, match=r"^query and target indices: 2 vs 1 records"):
        aligner.align_indexed(batch, batch, np.array([0, 1]), np.array([0]))


class _CpuBehindGpuInterface:
    """The CPU engine behind the GPU engine's interface, checking what the API hands it: the
    API's GPU path (shapes passed on, calls and cross-product blocks in flight) runs here
    without a GPU."""

    def __init__(self, budget: CallBudget) -> None:
        self.budget = budget
        self.calls = 0
        self.blocks = 0
        # two blocks are in flight: one CPU kernel at a time (not every numba threading layer
        # takes parallel kernels from two threads at once)
        self._one_at_a_time = threading.Lock()

    def use(self, backend: Backend) -> None:
        assert backend.kind == "gpu"

    def prepare(self, threads: int | None) -> CallBudget:
        return self.budget

    def _check(self, queries, targets, q_index, t_index, shapes: PairShapes) -> None:
        m, n = queries.lengths[q_index], targets.lengths[t_index]
        assert np.array_equal(shapes.m, m) and np.array_equal(shapes.n, n)
        assert np.array_equal(shapes.cumulative, np.cumsum(m * n))
        assert shapes.any_empty or not ((m == 0) | (n == 0)).any()
        if shapes.firsts is not None:  # pair by pair: consecutive indices from the firsts
            first_q, first_t = shapes.firsts
            assert np.array_equal(q_index, np.arange(first_q, first_q + len(q_index)))
            assert np.array_equal(t_index, np.arange(first_t, first_t + len(t_index)))
        self.calls += 1

    def score(self, queries, targets, q_index, t_index, *scoring, shapes: PairShapes, ends: bool):
        assert isinstance(ends, bool)
        with self._one_at_a_time:
            self._check(queries, targets, q_index, t_index, shapes)
            return _cpu_backend.score(queries, targets, q_index, t_index, *scoring)

    def score_block(self, queries, targets, rows: slice, columns: slice, *scoring):
        """A cross-product block's scores (one call), or None for every other block (the
        API then scores its pairs through ``score``)."""
        self.blocks += 1
        if self.blocks % 2:
            return None
        self.calls += 1
        q_index = np.repeat(np.arange(rows.start, rows.stop), columns.stop - columns.start)
        t_index = np.tile(np.arange(columns.start, columns.stop), rows.stop - rows.start)
        with self._one_at_a_time:
            found = _cpu_backend.score(queries, targets, q_index, t_index, *scoring)
        return found[:, 0].astype(np.int32).reshape(rows.stop - rows.start, -1)

    def align(self, queries, targets, q_index, t_index, *scoring, shapes: PairShapes):
        with self._one_at_a_time:
            self._check(queries, targets, q_index, t_index, shapes)
            return _cpu_backend.align(queries, targets, q_index, t_index, *scoring)


@pytest.mark.parametrize("budget", [CallBudget(1 << 40, 1 << 22), CallBudget(3000, 6)])
def test_the_gpu_path_of_the_api_hands_the_engine_true_shapes(
    budget: CallBudget, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the GPU path's call and block logic (one call, or many calls and blocks in
    flight), every job shape gives the CPU aligner's answers and the engine is handed each
    call's true lengths, running total and first indices."""
    engine = _CpuBehindGpuInterface(budget)
    aligner = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu")
    cpu = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu")
    monkeypatch.setattr(devices, "_device_name", lambda ordinal: "stand-in")
    aligner.backend = Backend("gpu", (0,))
    monkeypatch.setattr(aligner, "_engine", lambda: engine)
    queries = [*_random(rng, 9, 0, 80), ""]
    targets = _random(rng, 23, 0, 80)
    assert np.array_equal(
        aligner.score_matrix(queries, targets), cpu.score_matrix(queries, targets)
    )
    for q, t in ((queries, targets), (targets, queries)):
        hits, expected = aligner.top_hits(q, t, 3), cpu.top_hits(q, t, 3)
        assert np.array_equal(hits.target_index, expected.target_index)
        assert np.array_equal(hits.score, expected.score)
    paired = (targets, targets[::-1])
    for output in ("ends", "cigar"):
        assert aligner.align(*paired, output).compare(cpu.align(*paired, output)) is None
    q, t = cpu._batch(queries, "queries"), cpu._batch(targets, "targets")
    qi, ti = rng.integers(0, len(q), size=40), rng.integers(0, len(t), size=40)
    assert aligner.align_indexed(q, t, qi, ti).compare(cpu.align_indexed(q, t, qi, ti)) is None
    # one call per job in one budget; in the small one, at most 6 pairs a call
    one_call_each = budget.pairs > len(queries) * len(targets)
    assert (
        engine.calls == 6 if one_call_each else engine.calls >= 2 * len(queries) * len(targets) // 6
    )
