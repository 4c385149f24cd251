"""tools/kernel_ab.py's two sides: a revision's kernel folder, and the sources each compiles."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

from seqwarp import cuda
from tool_modules import load_tool

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "src" / "seqwarp" / "align" / "kernels"


def _tool() -> ModuleType:
    return load_tool("kernel_ab")


def test_sources_come_from_the_folder_then_from_the_package(tmp_path: Path) -> None:
    tool = _tool()
    shutil.copytree(KERNELS, tmp_path, dirs_exist_ok=True)
    header = tmp_path / "align_band.cuh"
    header.write_text(header.read_text() + "// the other side\n")
    packaged = cuda.kernel_source("seqwarp.align", "align_trace.cu")
    try:
        tool._use_sources(tmp_path)
        other = cuda.kernel_source("seqwarp.align", "align_trace.cu")
        # the folder's header, inlined where the package's was
        assert "// the other side" in other and "// the other side" not in packaged
        assert other.replace("// the other side\n", "") == packaged
    finally:
        tool._use_sources(None)
    assert cuda.kernel_source("seqwarp.align", "align_trace.cu") == packaged


def test_a_tree_folder_must_hold_every_kernel_file(tmp_path: Path) -> None:
    tool = _tool()
    every = sorted(p.name for p in KERNELS.iterdir() if p.suffix in (".cu", ".cuh"))
    assert "align_band.cuh" in every and tool._missing_kernel_files(tmp_path) == every
    shutil.copytree(KERNELS, tmp_path, dirs_exist_ok=True)
    assert tool._missing_kernel_files(tmp_path) == []
    (tmp_path / "lanes.cuh").unlink()
    assert tool._missing_kernel_files(tmp_path) == ["lanes.cuh"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_checkout_writes_a_revisions_kernel_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the tool asks git in the working directory
    inside = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True)
    if inside.returncode != 0:
        pytest.skip("not a git checkout")
    tool = _tool()
    tool._checkout("HEAD", tmp_path)
    committed = subprocess.run(
        ["git", "ls-tree", "--name-only", f"HEAD:{tool._KERNELS}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(committed)
    for name in committed:
        shown = subprocess.run(
            ["git", "show", f"HEAD:{tool._KERNELS}/{name}"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        assert (tmp_path / name).read_text(encoding="utf-8") == shown


class _Reads(SimpleNamespace):
    """A batch of reads as the A/B tool reads one: its lengths and its size."""

    def __len__(self) -> int:
        return len(self.lengths)


def _fake_traceback_device(monkeypatch, tool, simulate, align, phases) -> None:
    """The traceback A/B's genome, reads, kernel sources, score kernels and device calls stood
    in for: ``simulate`` makes the reads, ``align`` answers each side's call, ``phases`` its
    timed calls; the score kernels take a millisecond."""
    monkeypatch.setattr(tool, "load_genome", lambda path: ("genome", None))
    monkeypatch.setattr(tool, "simulate_batches", simulate)
    monkeypatch.setattr(tool, "_use_sources", lambda folder: None)
    monkeypatch.setattr(tool._gpu_backend, "stage", lambda *args, **kw: None)
    monkeypatch.setattr(tool, "_time_kernels", lambda staged, repeats: 1e-3)
    monkeypatch.setattr(tool._gpu_traceback, "align", align)
    monkeypatch.setattr(tool, "_traceback_kernel_seconds", phases)


def _reads_125_137(genome, length, pairs, seed):
    """Three 125 bp reads against 137 bp windows (a global band takes 16 x 4, or 12 x 4)."""
    return _Reads(lengths=np.full(3, 125)), _Reads(lengths=np.full(3, 137)), None


def test_traceback_rows_only_of_the_named_workloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--only``: the traceback A/B stages, compares and times the named workloads alone, and
    each row holds both sides' phases (the device's calls stood in for by fixed answers)."""
    tool = _tool()
    timed: list[str] = []
    simulated: list[int] = []

    def simulate(genome, length, pairs, seed):
        simulated.append(length)
        return _Reads(lengths=np.full(3, 1000)), _Reads(lengths=np.full(3, 3000)), None

    def phases(work, index, repeats):
        timed.append(f"{work.length} {work.name}")
        return {"fill": 2e-3, "walk": 1e-3, "pack": 1e-3}

    answer = (np.zeros((3, 8), dtype=np.int32), SimpleNamespace(codes=b"3=", offsets=[0, 2]))
    _fake_traceback_device(monkeypatch, tool, simulate, lambda *args: answer, phases)
    every = [name for name, _ in tool._traceback_workloads(tmp_path, [])]
    assert every == tool.workload_names(traceback=True)
    simulated.clear()
    rows = tool._ab_traceback(tmp_path, {"base": tmp_path, "tree": None}, 2, 1, ["512 GL"])
    assert [row["workload"] for row in rows] == ["512 GL"]
    assert simulated == [512]  # the 125 bp reads, none of them named, are not made
    assert timed == ["512 GL"] * 4  # two rounds, two sides
    row = rows[0]
    assert row["equal"] and row["score_tcups"] == pytest.approx(9.0e-3)
    assert row["tree"] == {"fill": 2e-3, "walk": 1e-3, "pack": 1e-3}
    assert row["tree_tcups"] == pytest.approx(9.0e6 / 4e-3 / 1e12)


def test_band_columns_apply_to_the_tree_side_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--band-columns``: the tree side's calls (its results and its timed calls) see the given
    band tiles, the base's the engine's own, which are back after the run; each row says the
    tile each side took."""
    tool = _tool()
    engine = tool._gpu_traceback._BAND_COLUMNS
    seen: list[tuple] = []

    def align(*args):
        seen.append(("align", tool._gpu_traceback._BAND_COLUMNS[False]))
        return np.zeros((3, 8), dtype=np.int32), SimpleNamespace(codes=b"3=", offsets=[0, 2])

    def phases(work, index, repeats):
        seen.append(("timed", tool._gpu_traceback._BAND_COLUMNS[False]))
        return {"fill": 2e-3, "walk": 1e-3, "pack": 1e-3}

    _fake_traceback_device(monkeypatch, tool, _reads_125_137, align, phases)
    held: list[int | None] = []

    @contextlib.contextmanager
    def band_fills(most):
        held.append(most)
        yield [{"registers": 72, "shared": 1, "blocks": most or 7}]

    monkeypatch.setattr(tool, "_band_fills", band_fills)
    sides = {"base": tmp_path, "tree": tmp_path}
    rows = tool._ab_traceback(tmp_path, sides, 1, 1, ["125 GL"], {"tree": (12, 16)}, {"tree": 5})
    assert seen == [
        ("align", engine[False]), ("align", (12, 16)), ("timed", engine[False]),
        ("timed", (12, 16)),
    ]  # fmt: skip
    assert tool._gpu_traceback._BAND_COLUMNS is engine
    # 125 against 137 residues, global: the engine's 16 x 4, the tree's first choice 12 x 4
    assert rows[0]["band_tiles"] == {"base": (16, 4), "tree": (12, 4)}
    # --fill-blocks: the tree side's calls alone held to 5 blocks; each side's fills recorded
    assert held == [None, 5, None, 5]
    assert [f[0]["blocks"] for f in rows[0]["band_fills"].values()] == [7, 5]


def test_score_workloads_only_the_named_ones_local_scores_also_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The score A/B's workloads: local scores with their end cells and alone, the protein
    search's scores alone, the long reads only when asked for; only what the named workloads
    need is simulated or loaded."""
    tool = _tool()
    simulated: list[int] = []

    lengths = _Reads(lengths=np.full(4, 100))

    def simulate(genome, length, pairs, seed):
        simulated.append(length)
        return lengths, lengths, None

    monkeypatch.setattr(tool, "load_genome", lambda path: ("genome", None))
    monkeypatch.setattr(tool, "simulate_batches", simulate)
    monkeypatch.setattr(tool.proteins, "load", lambda folder: lengths)
    monkeypatch.setattr(tool.proteins, "shuffled_database", lambda real, size: lengths)
    monkeypatch.setattr(tool.proteins, "pick_queries", lambda real, asked: lengths)
    monkeypatch.setattr(tool.long_reads, "load", lambda folder: pytest.fail("not asked for"))

    every = [(name, ends) for name, _, ends in tool._workloads(tmp_path, 4, [], 0)]
    assert every == [
        ("512 GL", True), ("512 GA", True), ("512 SA", True), ("512 LA", True),
        ("512 LA alone", False), ("125 GL", True), ("125 LA", True), ("125 LA alone", False),
        ("protein 100", False), ("protein 300", False), ("protein 1000", False),
    ]  # fmt: skip
    assert simulated == [512, 125]
    # --only takes exactly these names, and the long reads'
    assert tool.workload_names(traceback=False) == [name for name, _ in every] + [
        "long global",
        "long semi-global",
    ]

    simulated.clear()
    named = tool._workloads(tmp_path, 4, ["512 LA alone", "protein 300"], 0)
    rows = [(name, args[5], ends) for name, args, ends in named]
    assert rows == [("512 LA alone", "local", False), ("protein 300", "local", False)]
    assert simulated == [512]  # no 125 bp reads made


def test_long_reads_are_staged_in_both_modes_when_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = _tool()
    loaded = SimpleNamespace(reads=np.arange(10), regions=np.arange(10))
    monkeypatch.setattr(tool.long_reads, "load", lambda folder: loaded)
    monkeypatch.setattr(tool, "load_genome", lambda path: pytest.fail("no short reads asked"))
    rows = list(tool._workloads(tmp_path, 4, ["long global", "long semi-global"], 10))
    assert [(name, args[5], ends) for name, args, ends in rows] == [
        ("long global", "global", True),
        ("long semi-global", "semi-global", True),
    ]
    assert rows[0][1][6:] == (2, 1)  # affine 2/1, as the benchmark's long rows


def test_score_rows_hold_each_sides_rate_and_the_long_reads_launches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each score row: both sides' TCUPS over the workload's cells, equal pairs counted; a
    long-read row also each side's launches timed alone (the device stood in for)."""
    tool = _tool()
    batch = SimpleNamespace(lengths=np.array([1000, 2000]))
    index = np.arange(2)
    args = (batch, batch, index, index, None, "global", 2, 1)
    staged_with: list[bool] = []

    def stage(*given, ends):
        staged_with.append(ends)
        return ["launch"]

    kind = {"seconds_alone": 1e-3, "tcups_alone": 5.0, "kernel_lane": "s16x2-bytes-rebased",
            "tile": "32x32", "split": 8, "cluster": 1, "pairs": 2, "longest_target": 2000,
            "registers": 128}  # fmt: skip
    monkeypatch.setattr(
        tool,
        "_workloads",
        lambda *a: iter([("512 LA alone", args, False), ("long global", args, True)]),
    )
    monkeypatch.setattr(tool, "_use_sources", lambda folder: None)
    monkeypatch.setattr(tool._gpu_backend, "stage", stage)
    monkeypatch.setattr(tool, "_results", lambda staged, pairs: np.zeros((pairs, 3)))
    monkeypatch.setattr(tool, "_time_kernels", lambda staged, repeats: 1e-3)
    monkeypatch.setattr(tool, "launch_breakdown", lambda launches, alone, m, n: [kind])
    rows = tool._ab_scores(tmp_path, 4, {"base": tmp_path, "tree": None}, 2, 1, [], 2)
    assert [row["workload"] for row in rows] == ["512 LA alone", "long global"]
    assert staged_with == [False, False, True, True]  # each side, as each workload asks
    cells = 1000 * 1000 + 2000 * 2000
    assert rows[0]["equal"] == 2 and rows[0]["tcups"]["tree"] == pytest.approx(cells / 1e-3 / 1e12)
    assert "launches" not in rows[0]
    assert rows[1]["launches"] == {"base": [kind], "tree": [kind]}


def test_padded_shared_holds_a_multiprocessor_to_the_blocks_asked() -> None:
    """Padded, a block with the global band fill's 16 static bytes lets an sm_90
    multiprocessor hold exactly the blocks asked for (registers permitting); a block that
    already takes more keeps its own shared memory."""
    tool = _tool()
    sm = tool.plan.SM_90
    for most in range(1, 17):  # 16 blocks of 128 threads fill the multiprocessor's threads
        shared = tool.padded_shared(1024, most, sm)
        assert tool.plan.resident_blocks(32, 128, shared + 16, sm) == most
    # the 125 bp global linear fills: 16 x 4 at 85 registers, 12 x 4 at 72
    assert tool.plan.resident_blocks(85, 128, 20512 + 16, sm) == 5
    assert tool.plan.resident_blocks(72, 128, 15392 + 16, sm) == 7
    assert tool.plan.resident_blocks(72, 128, tool.padded_shared(15392, 5, sm) + 16, sm) == 5
    assert tool.padded_shared(200_000, 2, sm) == 200_000


def test_band_fills_are_recorded_and_padded_while_the_block_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--fill-blocks``: within the block the band fills' grids are padded to the blocks
    asked for and each configured band fill is recorded with its registers and blocks; other
    grids pass as they are; the engine's functions are back afterwards."""
    tool = _tool()
    gpu, traceback = tool._gpu_backend, tool._gpu_traceback
    monkeypatch.setattr(gpu, "_current_device", lambda: 0)
    monkeypatch.setattr(gpu, "_multiprocessor", lambda ordinal: tool.plan.SM_90)
    band_grid, configure = traceback._band_grid, gpu._Grid.configure
    launch = SimpleNamespace(kernel_lane="s16x2-bytes", lane_pairs=2)
    kernel = SimpleNamespace(num_regs=72, shared_size_bytes=16)
    with tool._band_fills(5) as fills:
        grid = traceback._band_grid(launch, 12, 4, 1000, 4)
        grid.configure(kernel)
        other = gpu._Grid(1, 128, 1024, 0, 1)
        other.configure(SimpleNamespace(num_regs=40, shared_size_bytes=0))
    assert traceback._band_grid is band_grid and gpu._Grid.configure is configure
    assert grid.shared == tool.padded_shared(15392, 5, tool.plan.SM_90)
    assert fills == [{"registers": 72, "shared": grid.shared + 16, "blocks": 5}]
    # the carve-out follows the padded blocks: five of them, the rest L1
    assert kernel.preferred_shared_memory_carveout == tool.plan.shared_carveout(
        72, 128, grid.shared + 16, tool.plan.SM_90
    )
    with tool._band_fills(None) as fills:
        grid = traceback._band_grid(launch, 12, 4, 1000, 4)
        grid.configure(kernel)
    assert grid.shared == 15392 and fills[0]["blocks"] == 7
    assert tool._launch_text((12, 4), fills) == "12x4, 72 regs, 7 blocks"
    assert tool._launch_text(None, []) == "whole"


def test_tree_specs_give_each_side_its_folder_columns_and_blocks(tmp_path: Path) -> None:
    tool = _tool()
    assert tool.tree_side("ab/h1") == (Path("ab/h1"), None, None)
    assert tool.tree_side("ab/base:columns=12/16:blocks=5") == (Path("ab/base"), (12, 16), 5)
    assert tool.tree_side("ab/base:blocks=4") == (Path("ab/base"), None, 4)
    for bad in (
        "ab:blocks=0",
        "ab:columns=0/16",
        "ab:rows=3",
        "ab:columns=a",
        ":blocks=5",
        "ab:",
        "ab:blocks=4/5",
    ):
        with pytest.raises(ValueError, match="--tree"):
            tool.tree_side(bad)


def test_several_trees_are_one_run_each_side_with_its_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--tree A:columns=12/16:blocks=5 B``: sides tree1 and tree2 beside the base, tree1 with
    its own tile and blocks, tree2 with the command's defaults; the JSON names every side."""
    tool = _tool()
    shutil.copytree(KERNELS, tmp_path / "k", dirs_exist_ok=True)
    given: list[tuple] = []

    def traceback(data, sides, rounds, repeats, only, columns, most):
        given.append((sides, columns, most))
        return [{"workload": "125 GL"}]

    monkeypatch.setattr(tool, "_ab_traceback", traceback)
    k, out = str(tmp_path / "k"), tmp_path / "ab.json"
    argv = ["kernel_ab.py", "--traceback", "--data", str(tmp_path), "--base", k, "--out", str(out),
            "--fill-blocks", "6", "--tree", f"{k}:columns=12/16:blocks=5", k]  # fmt: skip
    monkeypatch.setattr("sys.argv", argv)
    tool.main()
    ((sides, columns, most),) = given
    assert sides == {"base": Path(k), "tree1": Path(k), "tree2": Path(k)}
    assert columns == {"tree1": (12, 16), "tree2": None}
    assert most == {"tree1": 5, "tree2": 6}
    written = json.loads(out.read_text())
    assert written["sides"] == {"base": k, "tree1": f"{k}:columns=12/16:blocks=5", "tree2": k}
    assert written["rows"] == [{"workload": "125 GL"}]
    assert f"tree1 = {k}:columns=12/16:blocks=5" in capsys.readouterr().out
    # a score A/B has no band: a side's columns or blocks are refused
    argv = ["kernel_ab.py", "--data", str(tmp_path), "--base", k, "--tree", f"{k}:blocks=5"]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit):
        tool.main()
    assert "only with --traceback" in capsys.readouterr().err


def test_three_sides_are_compared_with_the_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every side's results are compared with the base's: one differing CIGAR makes the row
    unequal; each side gets its row entries and a line of its own."""
    tool = _tool()

    calls = iter(["3=", "3=", "2=1X"])

    def align(*args):
        text = next(calls).encode()
        return np.zeros((3, 8), dtype=np.int32), SimpleNamespace(codes=text, offsets=[0, 2])

    def phases(work, index, repeats):
        return {"fill": 2e-3, "walk": 1e-3}

    _fake_traceback_device(monkeypatch, tool, _reads_125_137, align, phases)
    sides = {"base": tmp_path, "tree1": tmp_path, "tree2": tmp_path}
    (row,) = tool._ab_traceback(tmp_path, sides, 1, 1, ["125 GL"])
    assert row["equal"] is False
    assert {"base_tcups", "tree1_tcups", "tree2_tcups"} <= set(row)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("125 GL   equal False")
    assert [line.split()[0] for line in lines[1:]] == ["base", "tree1", "tree2"]


def test_score_rows_count_the_pairs_every_side_gives_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = _tool()
    batch = SimpleNamespace(lengths=np.array([10, 20, 30]))
    index = np.arange(3)
    args = (batch, batch, index, index, None, "global", 2, 1)
    results = iter(
        [np.zeros((3, 3)), np.zeros((3, 3)), np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0]])]
    )
    monkeypatch.setattr(tool, "_workloads", lambda *a: iter([("512 GL", args, True)]))
    monkeypatch.setattr(tool, "_use_sources", lambda folder: None)
    monkeypatch.setattr(tool._gpu_backend, "stage", lambda *given, ends: ["launch"])
    monkeypatch.setattr(tool, "_results", lambda staged, pairs: next(results))
    monkeypatch.setattr(tool, "_time_kernels", lambda staged, repeats: 1e-3)
    sides = {"base": tmp_path, "tree1": tmp_path, "tree2": tmp_path}
    (row,) = tool._ab_scores(tmp_path, 4, sides, 1, 1, [], 0)
    assert row["equal"] == 2  # pair 1 differs on tree2
    assert set(row["tcups"]) == {"base", "tree1", "tree2"}
