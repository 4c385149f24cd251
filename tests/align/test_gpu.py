"""GPU backend vs CPU backend: every field equal, on random and overflow-prone pairs.

Runs only with ``pytest -m gpu`` on a machine with CuPy and a CUDA device. Each case draws its
pairs from a seeded generator; the seed is in the test id, so a failure can be replayed.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np
import pytest

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

from gpu_cases import (  # noqa: E402
    GAPS,
    ODD_TILES,
    batch,
    fail_on_differences,
    mutate,
    scoring_for,
)

from seqwarp.align import (  # noqa: E402
    Aligner,
    _cpu_backend,
    _gpu_backend,
    _gpu_cross,
    _gpu_traceback,
)
from seqwarp.bench.align_gpu_measure import _results as staged_results  # noqa: E402
from seqwarp.scoring import Scoring  # noqa: E402

MODES = ("global", "semi-global", "local")


def _related(rng: np.random.Generator, source: np.ndarray, letters: int, rate: float):
    """A mutated copy of ``source``: substitutions, and short insertions and deletions."""
    out = []
    for residue in source:
        r = rng.random()
        if r < rate / 3:
            continue
        if r < 2 * rate / 3:
            out.append(rng.integers(letters))
        out.append(rng.integers(letters) if r < rate else residue)
    return np.array(out, dtype=np.uint8)


def _random_pairs(seed: int, letters: int, count: int = 160):
    """Pairs of every kind: tiny, random lengths up to 2000, very unequal, related, unrelated."""
    rng = np.random.default_rng(seed)
    queries, targets = [], []
    for p in range(count):
        kind = p % 4
        if kind == 0:
            m, n = rng.integers(1, 40, size=2)
        elif kind == 1:
            m, n = rng.integers(1, 2001, size=2)
        else:
            m, n = (int(rng.integers(1, 8)), int(rng.integers(600, 2001)))
            if rng.random() < 0.5:
                m, n = n, m
        q = rng.integers(letters, size=m, dtype=np.uint8)
        t = rng.integers(letters, size=n, dtype=np.uint8)
        if kind == 3:
            t = _related(rng, q, letters, 0.1)
            if len(t) == 0:
                t = q.copy()
        queries.append(q)
        targets.append(t)
    queries += [np.zeros(0, dtype=np.uint8), np.zeros(3, dtype=np.uint8)]
    targets += [np.zeros(5, dtype=np.uint8), np.zeros(0, dtype=np.uint8)]
    return queries, targets


def _compare(queries, targets, scoring: Scoring, mode: str, lanes: str) -> None:
    """Every field of the GPU backend's scores equals the CPU backend's; in local mode the
    scores alone too (``ends=False``: kernels that do not find the end cells)."""
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    args = (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
    cpu = _cpu_backend.score(*args)
    gpu = _gpu_backend.score(*args, lanes=lanes)
    fields = [(gpu, slice(None))]
    if mode == "local":
        fields.append((_gpu_backend.score(*args, lanes=lanes, ends=False), slice(0, 1)))
    for values, kept in fields:
        bad = np.flatnonzero(np.any(cpu[:, kept] != values[:, kept], axis=1))
        fail_on_differences(
            bad, queries, targets, lambda p, got=values: f"cpu={cpu[p]} gpu={got[p]}"
        )


def _scores_equal_cpu(args: tuple) -> None:
    """Every field of the GPU backend's scores of ``args`` (``score``'s arguments) equals the
    CPU backend's; in local mode the scores alone too (``ends=False``: the kernels that
    ``score_matrix`` and the protein search run)."""
    cpu = _cpu_backend.score(*args)
    gpu = _gpu_backend.score(*args)
    bad = np.flatnonzero(np.any(cpu != gpu, axis=1))
    assert len(bad) == 0, (
        f"{len(bad)} pairs differ; first {int(bad[0])}: {cpu[bad[0]]} {gpu[bad[0]]}"
    )
    if args[5] == "local":
        assert np.array_equal(_gpu_backend.score(*args, ends=False)[:, 0], cpu[:, 0])


CASES = [("dna", lanes) for lanes in ("auto", "half2", "s32")] + [("protein", "auto")]


@pytest.mark.parametrize(("alphabet", "lanes"), CASES)
@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", MODES)
def test_random_pairs(mode: str, gap: str, alphabet: str, lanes: str) -> None:
    seed = zlib.crc32(f"{mode} {gap} {alphabet} {lanes}".encode())
    letters = 4 if alphabet == "dna" else 20
    queries, targets = _random_pairs(seed, letters)
    _compare(queries, targets, scoring_for(alphabet, gap), mode, lanes)


@pytest.mark.parametrize("tile", ODD_TILES, ids=lambda t: f"{t[0]}x{t[1]}")
@pytest.mark.parametrize("lanes", ["auto", "half2", "s32"])
@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", MODES)
def test_tiles_not_a_power_of_two_wide_match_cpu(mode: str, gap: str, lanes: str, tile) -> None:
    """Each tile of 20 or 24 columns a thread alone (a stripe not a power of two wide, a
    byte profile read 4 or 8 bytes at a time) on pairs of every kind, one stripe or many."""
    scoring = scoring_for("dna", gap)
    queries, targets = _random_pairs(zlib.crc32(f"tile {mode} {gap} {lanes} {tile}".encode()), 4)
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    args = (q, t, index, index, scoring.matrix, mode, scoring.gap_open, scoring.gap_extend)
    staged = _gpu_backend.stage(*args, lanes=lanes, tiles=(tile,))
    assert {x.shape[:2] for x in staged if x.shape[2] == 1} == {tile}
    gpu = staged_results(staged, len(index))
    cpu = _cpu_backend.score(*args)
    real = (q.lengths > 0) & (t.lengths > 0)
    bad = np.flatnonzero(np.any(cpu[real] != gpu[real], axis=1))
    assert len(bad) == 0, f"{len(bad)} pairs differ; first {int(bad[0])}"


@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", MODES)
def test_protein_class_table_matches_cpu(mode: str, gap: str) -> None:
    """The class-table lane on every letter of the protein alphabet (X, J, O and U one
    class): one query against 60,000 targets (a group's two pairs share each table load) and
    60,000 pairs of eight queries (lane B's scores from its own query's row)."""
    scoring = scoring_for("protein", gap)
    letters = scoring.matrix.shape[0]
    rng = np.random.default_rng(zlib.crc32(f"table {mode} {gap}".encode()))
    lengths = np.exp(rng.uniform(0, np.log(500), size=8)).astype(int) + 1
    lengths[0] = 400
    queries = [rng.integers(letters, size=m, dtype=np.uint8) for m in lengths]
    targets = []
    for k in range(60_000):
        if k % 3 == 0:
            targets.append(mutate(rng, queries[k % 8], letters, 0.2) if k % 8 else queries[0])
        else:
            n = int(np.exp(rng.uniform(0, np.log(500)))) + 1
            targets.append(rng.integers(letters, size=n, dtype=np.uint8))
    targets = [t if len(t) else queries[0] for t in targets]
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    t_index = np.concatenate([np.arange(len(t)), rng.permutation(len(t))])
    q_index = np.concatenate([np.zeros(len(t), dtype=np.int64), rng.integers(0, 8, len(t))])
    m, n = q.lengths[q_index], t.lengths[t_index]
    go, ge = scoring.gap_open, scoring.gap_extend
    plan = _gpu_backend._plan(m, n, scoring.matrix, go, ge, "auto", offset=mode != "local")
    assert {x.kernel_lane.removesuffix("-offset") for x in plan} == {"s16x2-table"}
    _scores_equal_cpu((q, t, q_index, t_index, scoring.matrix, mode, go, ge))


def _cross_product(queries: list, targets: list, scoring: Scoring) -> tuple:
    """Batches of ``queries`` and ``targets`` and the indices of every query against every
    target, query by query (as ``score_matrix`` orders them)."""
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    q_index = np.repeat(np.arange(len(q), dtype=np.int64), len(t))
    t_index = np.tile(np.arange(len(t), dtype=np.int64), len(q))
    return q, t, q_index, t_index


@pytest.mark.parametrize("scores", ["bytes", "wide"])
@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", MODES)
def test_cross_products_take_the_paired_profile_and_match_cpu(
    mode: str, gap: str, scores: str
) -> None:
    """A cross product (every query against an odd number of targets, N among the letters,
    lengths 1-600, a third of the targets related to a query) runs its pair sets of one query
    on the paired profile and the pairs left over on the plain one; with +2/-1 (byte
    profile) and with scores past a byte (+130/-50: the 16-bit profile)."""
    scoring = scoring_for("dna", gap)
    if scores == "wide":
        go, ge = GAPS[gap]
        scoring = Scoring.dna(match=130, mismatch=-50, gap_open=50 * go, gap_extend=50 * ge)
    rng = np.random.default_rng(zlib.crc32(f"paired {mode} {gap} {scores}".encode()))
    lengths = np.exp(rng.uniform(0, np.log(600), size=48)).astype(int) + 1
    queries = [rng.integers(5, size=m, dtype=np.uint8) for m in lengths]
    targets = []
    for k in range(301):
        if k % 3 == 0:
            targets.append(mutate(rng, queries[k % len(queries)], 4, 0.1))
        else:
            n = int(np.exp(rng.uniform(0, np.log(600)))) + 1
            targets.append(rng.integers(5, size=n, dtype=np.uint8))
    targets = [t if len(t) else queries[0] for t in targets]
    q, t, q_index, t_index = _cross_product(queries, targets, scoring)
    m, n = q.lengths[q_index], t.lengths[t_index]
    go, ge = scoring.gap_open, scoring.gap_extend
    plan = _gpu_backend._plan(
        m,
        n,
        scoring.matrix,
        go,
        ge,
        "auto",
        offset=mode != "local",
        query_starts=q.offsets[q_index],
    )
    lanes = {x.kernel_lane.removesuffix("-offset") for x in plan}
    plain = "s16x2-bytes" if scores == "bytes" else "s16x2"
    assert {"s16x2-paired", plain} <= lanes
    _scores_equal_cpu((q, t, q_index, t_index, scoring.matrix, mode, go, ge))


@pytest.mark.parametrize("mode", MODES)
def test_cross_products_split_their_few_long_pairs_and_match_cpu(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On 16 x 16 tiles, two queries against 4 short and 8 long targets: the paired launch's
    long pairs run on split warps with the byte profile, the short ones paired (a set whose
    partner went to the split warps runs alone), every field the CPU's."""
    monkeypatch.setattr(_gpu_backend, "_TILES_DNA", ((16, 16),))
    scoring = scoring_for("dna", "affine")
    rng = np.random.default_rng(zlib.crc32(f"paired split {mode}".encode()))
    queries = [rng.integers(4, size=3000, dtype=np.uint8) for _ in range(2)]
    targets = [rng.integers(4, size=100 + k, dtype=np.uint8) for k in range(4)]
    targets += [mutate(rng, queries[k % 2], 4, 0.1)[: 2600 + k] for k in range(8)]
    q, t, q_index, t_index = _cross_product(queries, targets, scoring)
    m, n = q.lengths[q_index], t.lengths[t_index]
    go, ge = scoring.gap_open, scoring.gap_extend
    plan = _gpu_backend._plan(
        m, n, scoring.matrix, go, ge, "auto", offset=mode != "local",
        query_starts=q.offsets[q_index],
    )  # fmt: skip
    launches = _gpu_backend._split_long(plan, n, (8, 4, 2), (scoring.matrix, go, ge))
    lanes = {(x.kernel_lane.removesuffix("-offset"), x.split > 1) for x in launches}
    assert lanes == {("s16x2-paired", False), ("s16x2-bytes", True)}
    _scores_equal_cpu((q, t, q_index, t_index, scoring.matrix, mode, go, ge))


@pytest.mark.parametrize("alphabet", ["dna", "protein"])
@pytest.mark.parametrize("gap", list(GAPS))
def test_local_scores_of_one_residue_sides_match_cpu(gap: str, alphabet: str) -> None:
    """Local scores (with and without end cells) of queries of 1-3,700 residues against
    targets of 1-3 residues and the other way round, whose best cells score little: the
    local linear kernels without end cells had scored 2 x gap_open (8 under BLOSUM62 4/4)
    for every one-residue target."""
    scoring = scoring_for(alphabet, gap)
    letters = 4 if alphabet == "dna" else 20
    rng = np.random.default_rng(zlib.crc32(f"one residue {gap} {alphabet}".encode()))
    long = [rng.integers(letters, size=int(m), dtype=np.uint8) for m in (1, 2, 7, 100, 3700)]
    short = [rng.integers(letters, size=int(n), dtype=np.uint8) for n in (1, 1, 1, 2, 3)]
    short += [np.array([k], dtype=np.uint8) for k in range(letters)]
    go, ge = scoring.gap_open, scoring.gap_extend
    for queries, targets in ((long, short), (short, long)):
        pairs = _cross_product(queries, targets, scoring)
        _scores_equal_cpu((*pairs, scoring.matrix, "local", go, ge))


def _spy_on_the_indexed_path(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pair counts of the calls a test's cross products make to the indexed path."""
    counts: list[int] = []
    score = _gpu_backend.score

    def spy(*args, **kwargs):
        counts.append(len(args[2]))
        return score(*args, **kwargs)

    monkeypatch.setattr(_gpu_backend, "score", spy)
    return counts


def _hits_and_blocks_match_cpu(
    gpu: Aligner, cpu: Aligner, q, t, expected: np.ndarray, pairs: int, monkeypatch
) -> None:
    """``top_hits`` both ways round, and ``score_matrix`` both ways round in blocks of at
    most ``pairs`` pairs (cut along either side), equal to the CPU engine's (``expected``:
    its matrix of ``q`` against ``t``)."""
    for first, second in ((q, t), (t, q)):
        hits, want = gpu.top_hits(first, second, 3), cpu.top_hits(first, second, 3)
        assert np.array_equal(hits.target_index, want.target_index)
        assert np.array_equal(hits.score, want.score)
    small = _gpu_backend.CallBudget(cells=1 << 40, pairs=pairs)
    monkeypatch.setattr(_gpu_backend, "prepare", lambda threads: small)
    assert np.array_equal(gpu.score_matrix(q, t), expected)
    assert np.array_equal(gpu.score_matrix(t, q), expected.T)


@pytest.mark.parametrize("alphabet", ["dna", "protein"])
@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", MODES)
def test_score_matrix_takes_the_cross_path_and_matches_cpu(
    mode: str, gap: str, alphabet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``score_matrix`` and ``top_hits`` of reads of 0-700 residues (related and unrelated,
    empty ones among them, an odd number of targets) and two targets past the split warps'
    threshold: the device spells out the pairs of the short targets, the long targets'
    columns alone go to the indexed path, every score the CPU's; in blocks cut along either
    side too."""
    scoring = scoring_for(alphabet, gap)
    letters = 4 if alphabet == "dna" else 20
    rng = np.random.default_rng(zlib.crc32(f"cross {mode} {gap} {alphabet}".encode()))
    lengths = np.exp(rng.uniform(0, np.log(700), size=37)).astype(int) - 1
    queries = [rng.integers(letters, size=m, dtype=np.uint8) for m in lengths]
    queries[3] = queries[3][:0]
    targets = [mutate(rng, queries[k % 37], letters, 0.1) for k in range(0, 61, 3)]
    targets += [rng.integers(letters, size=int(m), dtype=np.uint8) for m in lengths[::2]]
    long = _gpu_cross._long_targets(scoring.matrix)
    source = rng.integers(letters, size=long + 200, dtype=np.uint8)
    targets += [mutate(rng, source, letters, 0.1)[: long + 100] for _ in range(2)]
    targets.append(queries[3])
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    assert len(t) % 2 == 1 and (t.lengths > long).sum() == 2
    cpu, gpu = (Aligner(mode, scoring, device=d) for d in ("cpu", "gpu"))
    expected = cpu.score_matrix(q, t)
    indexed = _spy_on_the_indexed_path(monkeypatch)
    on_device = []
    original = _gpu_cross._queue
    monkeypatch.setattr(
        _gpu_cross, "_queue", lambda *a, **k: on_device.append(1) or original(*a, **k)
    )
    assert np.array_equal(gpu.score_matrix(q, t), expected)
    assert on_device and indexed == [len(q) * 2]  # the long targets' columns
    _hits_and_blocks_match_cpu(gpu, cpu, q, t, expected, 150, monkeypatch)


def test_cross_products_past_the_16_bit_range_take_the_indexed_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Scores past the 16-bit lane's exact range (+130/-50 over 300 residues): the cross path
    declines the block, the indexed path scores it."""
    rng = np.random.default_rng(23)
    queries = [rng.integers(4, size=300, dtype=np.uint8) for _ in range(5)]
    targets = [q.copy() for q in queries] + [rng.integers(4, size=200, dtype=np.uint8)]
    scoring = Scoring.dna(match=130, mismatch=-50, gap_open=100, gap_extend=50)
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    indexed = _spy_on_the_indexed_path(monkeypatch)
    cpu, gpu = (Aligner("local", scoring, device=d) for d in ("cpu", "gpu"))
    assert np.array_equal(gpu.score_matrix(q, t), cpu.score_matrix(q, t))
    assert indexed == [len(q) * len(t)]


@pytest.mark.parametrize("slots", [(0, 0), (0, 0, 0)])
@pytest.mark.parametrize("mode", MODES)
def test_cross_products_on_several_device_slots_match_cpu(
    mode: str, slots: tuple[int, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With several device slots (on one GPU) each takes a range of a block's queries of
    near-equal cells: queries of 1-600 residues and a run of empty ones at the end (a range
    without cells), a target past the split warps' threshold (the indexed path's, split
    between the slots too); every score the CPU's, in blocks cut along either side."""
    monkeypatch.setattr(_gpu_backend, "use", lambda backend: None)
    monkeypatch.setattr(_gpu_backend, "_devices", slots)
    scoring = scoring_for("dna", "affine")
    rng = np.random.default_rng(zlib.crc32(f"slots {mode} {slots}".encode()))
    queries = [rng.integers(4, size=int(m), dtype=np.uint8) for m in rng.integers(1, 600, 25)]
    queries += [queries[0][:0]] * 6
    targets = [mutate(rng, queries[k], 4, 0.1) for k in range(0, 25, 2)]
    targets.append(
        rng.integers(4, size=_gpu_cross._long_targets(scoring.matrix) + 50, dtype=np.uint8)
    )
    q, t = batch(queries, scoring.alphabet), batch(targets, scoring.alphabet)
    cpu, gpu = (Aligner(mode, scoring, device=d) for d in ("cpu", "gpu"))
    indexed = _spy_on_the_indexed_path(monkeypatch)
    expected = cpu.score_matrix(q, t)
    assert np.array_equal(gpu.score_matrix(q, t), expected)
    assert indexed == [len(q)]  # the long target's column
    _hits_and_blocks_match_cpu(gpu, cpu, q, t, expected, 120, monkeypatch)


@pytest.mark.parametrize("lanes", ["auto", "half2"])
@pytest.mark.parametrize("mode", MODES)
def test_overflow_prone_pairs(mode: str, lanes: str) -> None:
    """Scores past each 16-bit lane's range: identical 4 and 8 kbp pairs at +2 a match, and
    pairs with long gap runs; the guard must send them to a lane that holds them."""
    rng = np.random.default_rng(17)
    queries, targets = [], []
    for length in (1500, 4000, 8000):
        s = rng.integers(4, size=length, dtype=np.uint8)
        queries.append(s)
        targets.append(s.copy())
    s = rng.integers(4, size=3000, dtype=np.uint8)
    queries += [s, s[:200], np.concatenate([s[:1000], s[2500:]])]
    targets += [np.concatenate([s[:1000], s[2000:]]), s, s]
    queries.append(np.full(3000, 1, dtype=np.uint8))
    targets.append(np.full(3000, 2, dtype=np.uint8))
    _compare(
        queries, targets, Scoring.dna(match=2, mismatch=-1, gap_open=2, gap_extend=1), mode, lanes
    )


def _long_pairs(seed: int, letters: int, count: int, shortest: int, longest: int):
    """Pairs with targets of ``shortest``..``longest`` residues: related and unrelated, short
    queries against them and long queries against short targets' counterparts."""
    rng = np.random.default_rng(seed)
    queries, targets = [], []
    for p in range(count):
        n = int(rng.integers(shortest, longest + 1))
        t = rng.integers(letters, size=n, dtype=np.uint8)
        kind = p % 3
        if kind == 0:
            q = _related(rng, t, letters, 0.12)
        elif kind == 1:
            q = rng.integers(letters, size=int(rng.integers(1, 300)), dtype=np.uint8)
        else:
            q = rng.integers(letters, size=int(rng.integers(shortest, longest + 1)), dtype=np.uint8)
        queries.append(q)
        targets.append(t)
    return queries, targets


@pytest.mark.parametrize("clusters", [(), (8, 4, 2)], ids=["block", "clusters"])
@pytest.mark.parametrize("split", [8, 3])
@pytest.mark.parametrize(
    ("alphabet", "lanes"), [("dna", "auto"), ("dna", "s32"), ("protein", "auto")]
)
@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", MODES)
def test_long_targets_on_split_warps(
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    gap: str,
    alphabet: str,
    lanes: str,
    split: int,
    clusters: tuple[int, ...],
) -> None:
    """Few pairs of long targets run on several warps a pair set (``_SPLIT``, a pipeline of
    stripes handed from warp to warp), and the longest of them on clusters of 2, 4 and 8 such
    blocks: every field equals the CPU backend's, with stripe counts that are and are not
    multiples of the warps."""
    capability = int(cupy.cuda.Device(0).compute_capability)
    if clusters and capability < 90:
        pytest.skip(f"compute capability {capability} launches no clusters")
    monkeypatch.setattr(_gpu_backend, "_SPLIT", split)
    monkeypatch.setattr(_gpu_backend, "_CLUSTER_ROUNDS", 1)
    monkeypatch.setattr(_gpu_backend, "_cluster_sizes", lambda ordinal: clusters)
    letters = 4 if alphabet == "dna" else 20
    shortest = split * (512 if alphabet == "dna" else 256)
    seed = zlib.crc32(f"split {mode} {gap} {alphabet} {lanes} {split} {clusters}".encode())
    longest = (5 if clusters else 3) * shortest
    # fewer pairs for the clusters' longer targets (the CPU backend runs them one by one)
    queries, targets = _long_pairs(seed, letters, 6 if clusters else 12, shortest, longest)
    if clusters:  # and pairs of 2, 4 and 8 stripes a warp of a block: clusters of 2, 4 or 8
        rng = np.random.default_rng(seed)
        for length in (2 * shortest, 4 * shortest, 8 * shortest):
            targets.append(rng.integers(letters, size=length, dtype=np.uint8))
            queries.append(_related(rng, targets[-1], letters, 0.1))
    n = np.array([len(t) for t in targets])
    m = np.array([len(q) for q in queries])
    scoring = scoring_for(alphabet, gap)
    plan = _gpu_backend._plan(m, n, scoring.matrix, scoring.gap_open, scoring.gap_extend, lanes)
    launches = _gpu_backend._split_long(plan, n, clusters)
    assert split in {x.split for x in launches}
    if clusters:
        assert set(clusters) <= {x.cluster for x in launches}
    _compare(queries, targets, scoring, mode, lanes)


@pytest.mark.parametrize("split", [False, True], ids=["groups", "split"])
@pytest.mark.parametrize("alphabet", ["dna", "protein"])
@pytest.mark.parametrize("gap", list(GAPS))
@pytest.mark.parametrize("mode", ["global", "semi-global"])
def test_rebased_lane_on_pairs_past_the_16_bit_range(
    monkeypatch: pytest.MonkeyPatch, mode: str, gap: str, alphabet: str, split: bool
) -> None:
    """Pairs whose scores and rows or columns 0 leave the 16-bit range (identical 20 kbp at +2
    a match: 40,000; a 50 kbp target against a short query; related pairs of up to 30 kbp,
    two to a register with pairs of other lengths) run on the rebased s16x2 lane, on groups
    and on split warps and clusters, and every field equals the CPU backend's."""
    if not split:  # every pair set on one group, however few
        monkeypatch.setattr(_gpu_backend, "_SPLIT_BELOW_GROUPS", 0)
    letters = 4 if alphabet == "dna" else 20
    scale = 1 if alphabet == "dna" else 2  # protein cells cost the CPU backend more
    rng = np.random.default_rng(zlib.crc32(f"rebased {mode} {gap} {alphabet} {split}".encode()))
    same = rng.integers(letters, size=20_000 // scale, dtype=np.uint8)
    far = rng.integers(letters, size=50_000 // scale, dtype=np.uint8)
    queries = [same, far[:700], far]
    targets = [same.copy(), far, far[20_000 // scale :]]
    for length in (5_000, 9_000, 14_000, 30_000):
        source = rng.integers(letters, size=length // scale, dtype=np.uint8)
        queries.append(mutate(rng, source, letters, 0.1))
        targets.append(source)
        queries.append(rng.integers(letters, size=length // scale // 3, dtype=np.uint8))
        targets.append(rng.integers(letters, size=length // scale, dtype=np.uint8))
    scoring = scoring_for(alphabet, gap)
    m = np.array([len(q) for q in queries])
    n = np.array([len(t) for t in targets])
    plan = _gpu_backend._plan(
        m, n, scoring.matrix, scoring.gap_open, scoring.gap_extend, "auto", offset=True
    )
    rebased = sum(len(x.pairs) for x in plan if x.kernel_lane.endswith("-rebased"))
    assert rebased >= len(queries) // 2
    _compare(queries, targets, scoring, mode, "auto")


def test_chunks_dealt_over_devices_give_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two device slots (both the same GPU here): the call splits into two ranges of pairs,
    planned and run side by side, and the results still land in their pairs' rows."""
    monkeypatch.setattr(_gpu_backend, "_devices", (0, 0))
    queries, targets = _random_pairs(99, 4, count=64)
    for mode in MODES:
        _compare(queries, targets, scoring_for("dna", "affine"), mode, "auto")


def test_lane_choice_follows_the_bound() -> None:
    """4 kbp identical pairs fit s16x2 (8000) but not half2 (2048); 8 kbp fit neither."""
    m = np.array([512, 4000, 8000], dtype=np.int64)
    matrix = Scoring.dna().matrix
    auto = {int(p): x.lane for x in _gpu_backend._plan(m, m, matrix, 2, 1, "auto") for p in x.pairs}
    half = {
        int(p): x.lane for x in _gpu_backend._plan(m, m, matrix, 2, 1, "half2") for p in x.pairs
    }
    assert auto == {0: "s16x2", 1: "s16x2", 2: "s32"}
    assert half == {0: "half2", 1: "s32", 2: "s32"}


def test_aligner_on_gpu_matches_cpu() -> None:
    """Through the public API: ends and CIGARs from ``device="gpu"`` equal ``device="cpu"``."""
    rng = np.random.default_rng(5)
    queries = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(1, 300)))) for _ in range(50)]
    targets = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(1, 300)))) for _ in range(50)]
    for mode in MODES:
        cpu = Aligner(mode, device="cpu").align(queries, targets, output="cigar")
        gpu = Aligner(mode, device="gpu").align(queries, targets, output="cigar")
        assert np.array_equal(cpu.score, gpu.score)
        assert cpu.cigar == gpu.cigar
        cpu_ends = Aligner(mode, device="cpu").align(queries, targets, output="ends")
        gpu_ends = Aligner(mode, device="gpu").align(queries, targets, output="ends")
        assert np.array_equal(cpu_ends.query_end, gpu_ends.query_end)
        assert np.array_equal(cpu_ends.target_end, gpu_ends.target_end)


def test_score_output_takes_local_kernels_without_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """``output="score"`` and the cross products ask the GPU engine for no end cells, and
    their scores equal the CPU backend's; ``output="ends"`` asks for them."""
    asked = []
    score = _gpu_backend.score

    def spy(*args, **kwargs):
        asked.append(kwargs["ends"])
        return score(*args, **kwargs)

    monkeypatch.setattr(_gpu_backend, "score", spy)
    rng = np.random.default_rng(11)
    queries = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(1, 400)))) for _ in range(80)]
    targets = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(1, 400)))) for _ in range(80)]
    cpu, gpu = (Aligner("local", device=d) for d in ("cpu", "gpu"))
    assert np.array_equal(
        gpu.align(queries, targets, "score").score, cpu.align(queries, targets, "score").score
    )
    assert asked == [False]
    assert np.array_equal(gpu.score_matrix(queries, targets), cpu.score_matrix(queries, targets))
    assert set(asked) == {False}
    assert gpu.align(queries, targets, "ends").compare(cpu.align(queries, targets, "ends")) is None
    assert asked[-1] is True


@pytest.mark.parametrize("sizes", [(9, 40), (40, 9)])
@pytest.mark.parametrize("budget", [None, (20_000, 64)])
def test_cross_products_and_indexed_pairs_on_gpu_match_cpu(
    sizes: tuple[int, int], budget: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``score_matrix``, ``top_hits``, ``align_indexed`` and ``align`` through the public
    API, in one call and in calls of a small budget (blocks cut along either side, calls
    that start inside a block, empty sequences among the pairs)."""
    if budget is not None:
        small = _gpu_backend.CallBudget(cells=budget[0], pairs=budget[1])
        monkeypatch.setattr(_gpu_backend, "prepare", lambda threads: small)
    rng = np.random.default_rng(sum(sizes))
    queries = [
        "".join(rng.choice(list("ACGT"), size=int(rng.integers(0, 200)))) for _ in range(sizes[0])
    ]
    targets = [
        "".join(rng.choice(list("ACGT"), size=int(rng.integers(0, 200)))) for _ in range(sizes[1])
    ]
    scoring = Scoring.dna(2, -1, 2, 1)
    cpu, gpu = (Aligner("local", scoring, device=d) for d in ("cpu", "gpu"))
    matrix = cpu.score_matrix(queries, targets)
    assert np.array_equal(gpu.score_matrix(queries, targets), matrix)
    hits, expected = gpu.top_hits(queries, targets, 4), cpu.top_hits(queries, targets, 4)
    assert np.array_equal(hits.target_index, expected.target_index)
    assert np.array_equal(hits.score, expected.score)
    q, t = cpu._batch(queries, "queries"), cpu._batch(targets, "targets")
    qi = rng.integers(0, len(q), size=500)
    ti = rng.integers(0, len(t), size=500)
    assert gpu.align_indexed(q, t, qi, ti).compare(cpu.align_indexed(q, t, qi, ti)) is None
    cigars = gpu.align_indexed(q, t, qi[:60], ti[:60], "cigar")
    assert cigars.compare(cpu.align_indexed(q, t, qi[:60], ti[:60], "cigar")) is None
    # pair by pair: calls that start at a later pair take their first indices from the caller
    paired = (queries + targets, targets + queries)
    for output in ("ends", "cigar"):
        assert gpu.align(*paired, output).compare(cpu.align(*paired, output)) is None


@pytest.mark.parametrize("output", ["score", "cigar"])
def test_no_work_goes_to_the_default_stream(monkeypatch: pytest.MonkeyPatch, output: str) -> None:
    """Every copy and kernel of a call is queued on the call's own streams: the kernels run on
    non-blocking streams, which do not wait for CuPy's default stream, so work queued there
    (the scoring matrix's copy once was) races them. CuPy's array functions that queue work
    record the stream current at each of their calls; scores and CIGARs equal the CPU's."""
    default = {cupy.cuda.Stream.null.ptr, cupy.cuda.Stream.ptds.ptr}
    streams: list[int] = []

    def recorded(original: Callable) -> Callable:
        def recording(*args, **kwargs):
            streams.append(cupy.cuda.get_current_stream().ptr)
            return original(*args, **kwargs)

        return recording

    for name in ("asarray", "zeros", "cumsum", "ascontiguousarray"):
        monkeypatch.setattr(cupy, name, recorded(getattr(cupy, name)))
    scoring = scoring_for("dna")
    queries, targets = _random_pairs(zlib.crc32(output.encode()), 4, count=120)
    q = batch(queries, scoring.alphabet)
    t = batch(targets, scoring.alphabet)
    index = np.arange(len(q), dtype=np.int64)
    args = (q, t, index, index, scoring.matrix, "local", scoring.gap_open, scoring.gap_extend)
    if output == "score":
        assert np.array_equal(_gpu_backend.score(*args), _cpu_backend.score(*args))
    else:
        fields, cigars = _gpu_traceback.align(*args)
        expected_fields, expected_cigars = _cpu_backend.align(*args)
        assert np.array_equal(fields, expected_fields) and list(cigars) == list(expected_cigars)
    assert streams and not default.intersection(streams)
