"""Scores equal parasail's 32-bit scores (and Biopython's) on random and edge-case pairs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from oracles import biopython_score, parasail_matrix, parasail_score

from seqwarp.align import Aligner, _cpu_backend, cpu_lanes
from seqwarp.scoring import Scoring

MODES = ("global", "semi-global", "local")
SCORINGS = {
    "dna-linear": Scoring.dna(2, -1, 1, 1),
    "dna-affine": Scoring.dna(2, -1, 2, 1),
    "dna-affine-wide": Scoring.dna(1, -3, 5, 2),
    "dna-n-neutral": Scoring.dna(2, -1, 2, 1, n_score=0),  # not plain match/mismatch
    "protein-linear": Scoring.from_matrix("BLOSUM62", 4, 4),
    "protein-affine": Scoring.from_matrix("BLOSUM62", 11, 1),
    "protein-blosum50": Scoring.from_matrix("BLOSUM50", 10, 2),
}
# 10,000 pairs for each mode x gap model x alphabet; fewer for the extra scoring variants
PAIRS = {
    "dna-linear": 10_000,
    "dna-affine": 10_000,
    "protein-linear": 10_000,
    "protein-affine": 10_000,
}
VARIANT_PAIRS = 1_000


def random_pairs(
    rng: np.random.Generator, alphabet: str, count: int
) -> tuple[list[str], list[str]]:
    """Log-uniform lengths 1..2000, very unequal pairs, wildcard runs, repeats and near-copies."""
    letters = np.frombuffer(alphabet.encode(), dtype=np.uint8)
    wildcard = "N" if "N" in alphabet[:5] else "X"
    queries, targets = [], []
    for p in range(count):
        m, n = np.exp(rng.uniform(0, np.log(2000), size=2)).astype(int)
        kind = p % 5
        q = letters[rng.integers(0, len(letters), m)].tobytes().decode()
        if kind == 0:  # unrelated
            t = letters[rng.integers(0, len(letters), n)].tobytes().decode()
        elif kind == 1:  # a mutated copy with indels
            t = _mutate(q, letters, rng)
        elif kind == 2:  # very unequal lengths: a short piece of a long sequence
            t = q
            q = q[rng.integers(0, max(1, m - 5)) :][: rng.integers(1, 12)]
        elif kind == 3:  # tandem repeats
            unit = q[: rng.integers(1, 6)] or "A"
            q = (unit * (m // len(unit) + 1))[:m]
            t = _mutate((unit * (n // len(unit) + 1))[:n], letters, rng)
        else:  # wildcard runs
            t = _mutate(q, letters, rng)
            cut = rng.integers(0, max(1, len(t)))
            t = t[:cut] + wildcard * int(rng.integers(1, 20)) + t[cut:]
        queries.append(q)
        targets.append(t or "A")
    return queries, targets


def _mutate(s: str, letters: np.ndarray, rng: np.random.Generator) -> str:
    out = []
    for c in s:
        r = rng.random()
        if r < 0.08:
            out.append(chr(letters[rng.integers(len(letters))]))
        elif r < 0.11:
            continue
        elif r < 0.14:
            out.append(
                c
                + "".join(
                    chr(x) for x in letters[rng.integers(0, len(letters), rng.integers(1, 4))]
                )
            )
        else:
            out.append(c)
    return "".join(out)


def _letters(scoring: Scoring) -> str:
    return "ACGTN" if scoring.alphabet.name == "dna" else scoring.alphabet.symbols


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(SCORINGS))
def test_scores_equal_parasail(mode: str, case: str, rng: np.random.Generator) -> None:
    scoring = SCORINGS[case]
    queries, targets = random_pairs(rng, _letters(scoring), PAIRS.get(case, VARIANT_PAIRS))
    result = Aligner(mode, scoring, device="cpu").align(queries, targets, output="score")
    matrix = parasail_matrix(scoring)
    expected = [
        parasail_score(q, t, scoring, mode, matrix) for q, t in zip(queries, targets, strict=True)
    ]
    mismatched = np.flatnonzero(result.score != np.array(expected))
    assert mismatched.size == 0, f"{mismatched.size} scores differ, first pair {mismatched[:1]}"


@pytest.mark.parametrize("mode", ["global", "local"])
@pytest.mark.parametrize("case", ["dna-affine", "protein-affine"])
def test_scores_equal_biopython(mode: str, case: str, rng: np.random.Generator) -> None:
    scoring = SCORINGS[case]
    queries, targets = random_pairs(rng, _letters(scoring), 300)
    result = Aligner(mode, scoring, device="cpu").align(queries, targets, output="score")
    expected = [biopython_score(q, t, scoring, mode) for q, t in zip(queries, targets, strict=True)]
    np.testing.assert_array_equal(result.score, np.array(expected, dtype=np.int64))


@pytest.mark.parametrize("mode", MODES)
def test_long_identical_pair(mode: str) -> None:
    """4 kbp identical sequences: +2 per base, well past any 16-bit lane's range."""
    rng = np.random.default_rng(4)
    q = "".join(rng.choice(list("ACGT"), 4000))
    result = Aligner(mode, Scoring.dna(2, -1, 2, 1), device="cpu").align([q], [q], output="cigar")
    assert result.score[0] == 8000
    assert result.cigar[0] == "4000="


def _assert_same_ends(a, b) -> None:
    """Two results' scores and end cells are equal."""
    for field in ("score", "query_end", "target_end"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_lane_groups_pay_only_with_enough_pairs_for_the_threads() -> None:
    assert not _cpu_backend._lanes_pay(1, 2) and not _cpu_backend._lanes_pay(4, 2)
    assert _cpu_backend._lanes_pay(6, 2) and _cpu_backend._lanes_pay(10_000, 2)
    assert not _cpu_backend._lanes_pay(32, 16) and _cpu_backend._lanes_pay(33, 16)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["dna-affine", "protein-linear"])
def test_few_pairs_one_a_thread_score_as_lane_groups(
    mode: str, case: str, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two pairs (too few for lane groups on any number of threads) take the scalar kernel
    one a thread; every field equals the lane kernel's."""
    scoring = SCORINGS[case]
    queries, targets = random_pairs(rng, _letters(scoring), 2)
    aligner = Aligner(mode, scoring, device="cpu")
    few = aligner.align(queries, targets, output="ends")
    monkeypatch.setattr(_cpu_backend, "_LANE_GROUP_COST", 0)  # lane groups whatever the count
    grouped = aligner.align(queries, targets, output="ends")
    _assert_same_ends(few, grouped)


def test_local_best_in_a_short_target_s_last_column(
    rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lane groups pad short targets up to the group's longest: where a pair's best local
    cell is its target's last column, the padding after it (cells scoring a real cell less
    gap costs) must never take the end; where cells of a row tie for the best, the first
    one is the end. Scores equal parasail's; every field equals the scalar kernel's."""
    scoring = SCORINGS["dna-linear"]
    queries, targets = [], []
    for k in range(200):
        q = "".join(rng.choice(list("ACGT"), int(rng.integers(5, 60))))
        lead = "".join(rng.choice(list("ACGT"), int(rng.integers(0, 400))))
        if k % 2:  # a repeat in a longer one: cells of a row tie for its best (the first counts)
            q = ("AC" * 40)[: len(q)]
            targets.append(lead + ("AC" * 50)[: len(q) + 2 * (k % 5)])
        else:
            targets.append(lead + q)  # the query's match ends at the target's end
        queries.append(q + q[: k % 7])
    aligner = Aligner("local", scoring, device="cpu")
    grouped = aligner.align(queries, targets, output="ends")
    matrix = parasail_matrix(scoring)
    expected = [
        parasail_score(q, t, scoring, "local", matrix)
        for q, t in zip(queries, targets, strict=True)
    ]
    np.testing.assert_array_equal(grouped.score, np.array(expected, dtype=np.int64))
    lengths = np.array([len(t) for t in targets])
    assert np.mean(grouped.target_end == lengths) > 0.3
    monkeypatch.setattr(_cpu_backend, "_LANE_GROUP_COST", 1 << 30)  # every pair one a thread
    scalar = aligner.align(queries, targets, output="ends")
    _assert_same_ends(grouped, scalar)


def test_local_rows_too_long_for_exact_keys_track_by_selects(
    rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Local lane groups keep a row's best as float32 keys (score x a power of two past the
    columns, less the column) only where those stay exact; 3-4 kbp pairs at +2 a match do not
    (6,000 x 4,096 > 2^24) and take the compare-and-select tracking: every field equals the
    scalar kernel's, and so do short pairs on the keys."""
    scoring = SCORINGS["dna-affine"]
    for low, high in ((3000, 4000), (100, 400)):
        targets = [
            "".join(rng.choice(list("ACGT"), int(rng.integers(low, high)))) for _ in range(8)
        ]
        queries = [
            _mutate(t[len(t) // 4 :], np.frombuffer(b"ACGT", np.uint8), rng) for t in targets
        ]
        aligner = Aligner("local", scoring, device="cpu")
        monkeypatch.setattr(_cpu_backend, "_LANE_GROUP_COST", 0)  # lane groups whatever the count
        grouped = aligner.align(queries, targets, output="ends")
        monkeypatch.setattr(_cpu_backend, "_LANE_GROUP_COST", 1 << 30)  # every pair one a thread
        scalar = aligner.align(queries, targets, output="ends")
        _assert_same_ends(grouped, scalar)


def _int16_edge_pairs(rng: np.random.Generator, scoring: Scoring) -> tuple[list, list]:
    """Pairs at the int16 lanes' bound for this scoring (every target, and the longest
    queries, as long as the bound allows): identical pairs (the highest scores), one residue
    against a target (the longest gaps) and unrelated pairs."""
    letters = list(_letters(scoring)[:20])
    worst = _cpu_backend._worst(scoring.matrix, scoring.gap_open, scoring.gap_extend)
    n = (cpu_lanes.LIMIT16 // worst - 2) // 2  # (n + n + 1) x worst < LIMIT16
    queries, targets = [], []
    for k in range(60):
        t = "".join(rng.choice(letters, n))
        queries.append((t, t[n // 2], "".join(rng.choice(letters, n)))[k % 3])
        targets.append(t)
    return queries, targets


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["dna-linear", "dna-affine-wide", "protein-affine"])
def test_int16_lanes_equal_the_scalar_kernel_up_to_their_bound(
    mode: str, case: str, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Score-only lane groups whose values fit int16 run in int16 lanes: at the bound (the
    highest scores, the longest gaps) every field equals the float32 lanes' and the scalar
    kernel's."""
    scoring = SCORINGS[case]
    queries, targets = _int16_edge_pairs(rng, scoring)
    aligner = Aligner(mode, scoring, device="cpu")
    kernels_used = []
    for name in ("score_groups", "score_groups_int16"):
        kernel = getattr(cpu_lanes, name)

        def spy(*args: object, kernel: object = kernel, name: str = name) -> object:
            kernels_used.append(name)
            return kernel(*args)

        monkeypatch.setattr(cpu_lanes, name, spy)
    monkeypatch.setattr(_cpu_backend, "_LANE_GROUP_COST", 0)  # lane groups whatever the count
    short = aligner.align(queries, targets, output="ends")
    assert kernels_used == ["score_groups_int16"]
    monkeypatch.setattr(cpu_lanes, "LIMIT16", 0)  # no group fits int16
    wide = aligner.align(queries, targets, output="ends")
    assert kernels_used[-1] == "score_groups"
    _assert_same_ends(short, wide)
    monkeypatch.setattr(_cpu_backend, "_LANE_GROUP_COST", 1 << 30)  # every pair one a thread
    _assert_same_ends(short, aligner.align(queries, targets, output="ends"))


def test_int16_groups_hold_the_bound_for_their_longest_sides() -> None:
    """A group's longest query and longest target may come from different pairs: the bound
    holds for both together, and the groups that break it are left to float32 lanes."""
    worst = 2
    room = cpu_lanes.LIMIT16 // worst
    # pairs each within the bound, grouped by target: long targets with short queries,
    # then one group mixing a long query with a long target
    q_len = np.array([10] * 200 + [room - 600] + [10] * 127 + [20] * 300)
    t_len = np.array([room - 600] * 200 + [500] + [room - 700] * 127 + [30] * 300)
    assert np.all(cpu_lanes.int16_safe(q_len, t_len, worst))
    eligible = np.ones(len(q_len), dtype=bool)
    order, offsets = _cpu_backend._int16_plan(eligible, q_len, t_len, worst)
    for a, b in itertools.pairwise(offsets):
        members = order[a:b]
        assert 0 < b - a <= cpu_lanes.LANES16
        assert cpu_lanes.int16_safe(q_len[members].max(), t_len[members].max(), worst)
    assert 200 not in set(order.tolist())  # its group mixes room - 600 with room - 700
    assert len(order) >= 300
