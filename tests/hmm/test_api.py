"""The Python API: in-memory inputs, progress, streaming, and the CLI's outputs."""

from __future__ import annotations

import io

import numpy as np
import pyhmmer
import pytest
from hmm_support import ANAEROCOCCUS, PYHMMER_DATA, load_models, load_targets, strip_comments
from pyhmmer.easel import DigitalSequenceBlock
from pyhmmer.plan7 import Background, Pipeline

from seqwarp.cli import main
from seqwarp.hmm import SearchOptions, files, hmmsearch, stage
from seqwarp.hmm.api import STRONG_COST, _costs, _jobs
from seqwarp.hmm.profile import FilterProfile


def _domains(results) -> list[str]:
    buffer = io.BytesIO()
    for index, hits in enumerate(results):
        hits.write(buffer, format="domains", header=index == 0)
    return strip_comments(buffer.getvalue().decode())


@pytest.fixture(scope="module")
def models():
    return [*load_models("pyhmmer:RREFam"), *load_models("pyhmmer:KR"), *load_models("fn3")]


def test_in_memory_search_equals_pyhmmer(models) -> None:
    targets = load_targets(str(ANAEROCOCCUS))
    got = hmmsearch(models, targets)
    expected = list(pyhmmer.hmmer.hmmsearch(models, targets, cpus=1))
    assert [hits.query.name for hits in got] == [hits.query.name for hits in expected]
    assert _domains(got) == _domains(expected)
    assert sum(len(hits) for hits in got) > 10


def test_streamed_file_reports_progress_and_whole_database_z(models) -> None:
    done: list[int] = []
    got = hmmsearch(models, ANAEROCOCCUS, chunk_residues=100_000, progress=done.append)
    assert len(done) > 5
    assert sum(done) == sum(len(s) for s in load_targets(str(ANAEROCOCCUS)))
    assert all(hits.Z == 2100 for hits in got)
    assert _domains(got) == _domains(hmmsearch(models, ANAEROCOCCUS))


def test_explicit_z_and_max() -> None:
    hmm = load_models("pyhmmer:Thioesterase")
    targets = load_targets(str(PYHMMER_DATA / "seqs" / "LuxC.faa"))
    got = hmmsearch(hmm, targets, SearchOptions(Z=1e6, max=True))
    expected = pyhmmer.hmmer.hmmsearch(
        hmm, targets, Z=1e6, F1=1.0, F2=1.0, F3=1.0, bias_filter=False
    )
    assert _domains(got) == _domains(list(expected))
    assert got[0].Z == 1e6


def test_cli_writes_tables_to_stdout_and_summary_to_a_file(tmp_path) -> None:
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / "PF02826.hmm"
    out, err = io.StringIO(), io.StringIO()
    summary = tmp_path / "hits.txt"
    argv = ["hmmsearch", "--cpu", "1", "-o", str(summary), "--tblout", "-"]
    argv += [str(hmmfile), str(ANAEROCOCCUS)]
    assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
    golden = (PYHMMER_DATA / "tables" / "PF02826.tbl").read_text()
    assert strip_comments(out.getvalue()) == strip_comments(golden)
    text = summary.read_text()
    assert text.startswith("Query:       2-Hacid_dh_C  [M=178]\n")
    assert text.count("938293.PRJEB85") == 22
    assert text.endswith("//\n[ok]\n")


def test_full_filter_stage_keeps_every_hmmer_hit(models) -> None:
    """With the numba Viterbi filter on too, the survivors still give HMMER's exact hits."""
    targets = load_targets(str(ANAEROCOCCUS))
    chunk = stage.prepare(*files.as_csr(targets))
    with_vf = stage.FilterSettings(viterbi=True)
    without = stage.FilterSettings(viterbi=False)
    for hmm in models:
        profile = FilterProfile.from_hmm(hmm, Background(hmm.alphabet))
        kept = stage.survivors(profile, chunk, with_vf)
        assert set(kept) <= set(stage.survivors(profile, chunk, without))
        subset = DigitalSequenceBlock(targets.alphabet, [targets[int(i)] for i in kept])
        got = Pipeline(targets.alphabet, Z=len(targets)).search_hmm(hmm, subset)
        expected = Pipeline(targets.alphabet).search_hmm(hmm, targets)
        assert _domains([got]) == _domains([expected]), hmm.name
        assert len(kept) < len(targets) // 10


def test_survivor_jobs_cover_every_target_once_and_split_large_models() -> None:
    """The thread pool's pieces: each survivor in exactly one piece of its model, in
    database order, a model with most of the work cut into several pieces of about equal
    cost, a model without survivors kept."""
    kept = [np.arange(0, 400, 2), np.array([1, 3], dtype=np.int64), np.zeros(0, dtype=np.int64)]
    costs = [(keep + 1) * 1000.0 for keep in kept]
    costs[0][::7] *= 20  # likely hits
    jobs = _jobs(kept, costs, pieces=16)
    for model, keep in enumerate(kept):
        pieces = [piece for m, _, piece, _ in jobs if m == model]
        assert all(np.all(np.diff(piece) > 0) for piece in pieces)
        assert np.array_equal(np.sort(np.concatenate(pieces)), keep)
    large = [cost for m, _, _, cost in jobs if m == 0]
    assert len(large) >= 4
    assert max(large) < 1.25 * min(large)
    assert [part for m, part, *_ in jobs if m == 0] == list(range(len(jobs) - 2))
    (single,) = _jobs([kept[0]], [costs[0]], pieces=1)  # one thread: no cutting
    assert np.array_equal(single[2], kept[0])


def test_job_costs_weight_likely_hits() -> None:
    lengths = np.array([100, 200, 300, 400], dtype=np.int64)
    kept = stage.Kept(np.array([1, 3]), np.array([1e-7, 0.01]))
    assert list(_costs(10, lengths, kept, F3=1e-5)) == [200 * 10 * STRONG_COST, 400 * 10]
