"""``seqwarp align``, ``demo`` and ``info`` through ``main([...])``: every option, and failures."""

from __future__ import annotations

import io
import json
import pathlib
import re

import pytest

from seqwarp.cli import main

HEADER = "query\ttarget\tscore\tquery_begin\tquery_end\ttarget_begin\ttarget_end\tcigar"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path: pathlib.Path) -> dict[str, str]:
    paths = {
        "q": ">q1\nACGTACGT\n>q2\nGGGGCCCC\n",
        "t": ">t1\nTTACGTAAGT\n>t2\nGGGCCCCA\n",
        "t3": ">t1\nACGT\n>t2\nGGGG\n>t3\nACGTACGA\n",
        "fq": "@r1\nACGT\n+\nIIII\n",
        "p": ">p1\nMKTAYIAKQR\n",
        "pt": ">p2\nMKTAYIAKQRQISFVKSHFSRQ\n",
        "bad": ">q1\nACGT\n>q2\nAC7T\n",
        "empty": "",
        "one": ">q1\nACGT\n",
    }
    out = {}
    for name, text in paths.items():
        path = tmp_path / f"{name}.fa"
        path.write_text(text)
        out[name] = str(path)
    out["dir"] = str(tmp_path)
    return out


def test_pairs_tsv_default(files) -> None:
    code, out, err = run("align", files["q"], files["t"], "--mode", "local")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == "q1\tt1\t13\t*\t8\t*\t10\t*"
    assert "2 pairs" in err and "GCUPS" in err and "backend cpu" in err


def test_traceback_columns(files) -> None:
    code, out, _ = run("align", files["q"], files["t"], "--mode", "local", "--traceback", "-q")
    assert code == 0
    assert out.splitlines()[1] == "q1\tt1\t13\t0\t8\t2\t10\t5=1X2="


def test_scoring_options_and_linear_gaps(files) -> None:
    code, out, _ = run(
        "align",
        files["q"],
        files["t"],
        "--match",
        "1",
        "--mismatch",
        "-3",
        "--gap-open",
        "5",
        "--gap-extend",
        "5",
        "--traceback",
        "-q",
    )
    assert code == 0
    fields = out.splitlines()[1].split("\t")
    # a linear gap of 2 costs 10; then 7 matches (+7) and one mismatch (-3)
    assert fields[2] == "-6"
    assert fields[7] == "2D5=1X2="


def test_matrix_option(files) -> None:
    code, out, _ = run(
        "align",
        files["p"],
        files["pt"],
        "--matrix",
        "BLOSUM62",
        "--mode",
        "semi-global",
        "--traceback",
        "-q",
    )
    assert code == 0
    assert out.splitlines()[1].split("\t")[2:] == [
        "49",
        "0",
        "10",
        "0",
        "10",
        "10=",
    ]  # BLOSUM62 diagonal: 5+5+5+4+7+4+4+5+5+5


def test_all_vs_all_and_top(files) -> None:
    code, out, _ = run("align", files["one"], files["t3"], "--all-vs-all", "--mode", "local", "-q")
    assert code == 0
    assert [line.split("\t")[2] for line in out.splitlines()[1:]] == ["8", "2", "8"]
    code, out, _ = run("align", files["one"], files["t3"], "--top", "2", "--mode", "local", "-q")
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()[1:]] == ["t1", "t3"]


@pytest.mark.parametrize("fmt", ["sam", "paf", "json", "tsv"])
def test_formats_by_extension_and_flag(files, tmp_path: pathlib.Path, fmt: str) -> None:
    target = tmp_path / f"out.{fmt}"
    code, _, _ = run(
        "align",
        files["q"],
        files["t"],
        "--mode",
        "local",
        "-o",
        str(target),
        "-q",
        "--threads",
        "1",
    )
    assert code == 0
    text = target.read_text()
    if fmt == "sam":
        assert text.startswith("@HD\tVN:1.6")
        record = next(line for line in text.splitlines() if line.startswith("q1"))
        assert (
            record.split("\t")[3:6] == ["3", "255", "5=1X2="]
            and "AS:i:13" in record
            and "NM:i:1" in record
        )
    elif fmt == "paf":
        assert text.splitlines()[0].split("\t")[:12] == [
            "q1",
            "8",
            "0",
            "8",
            "+",
            "t1",
            "10",
            "2",
            "10",
            "7",
            "8",
            "255",
        ]
    elif fmt == "json":
        record = json.loads(text.splitlines()[0])
        assert (record["score"], record["query_end"], record["cigar"]) == (13, 8, None)
    else:
        assert text.splitlines()[0] == HEADER
    code, out, _ = run("align", files["q"], files["t"], "--format", fmt, "-q")
    assert code == 0 and out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["q", "t3"],
            r"^seqwarp align: error: .*q\.fa and .*t3\.fa: 2 vs 3 records; they must pair up one-to-one$",
        ),
        (
            ["bad", "t"],
            r"^seqwarp align: error: .*bad\.fa: record 'q2' \(#1\), position 2: invalid residue '7' for DNA$",
        ),
        (["empty", "t"], r"^seqwarp align: error: .*empty\.fa: holds no sequences \(empty file\)$"),
        (["dir", "t"], r"^seqwarp align: error: .*: is a directory, not a sequence file$"),
        (
            ["q", "t", "--matrix", "BLOSUM99"],
            r"^seqwarp align: error: invalid value for 'matrix': 'BLOSUM99'",
        ),
        (
            ["q", "t", "--top", "0"],
            r"^seqwarp align: error: invalid value for '--top': 0; must be at least 1$",
        ),
        (
            ["q", "t", "--gpus", "0"],
            r"^seqwarp align: error: invalid value for '--gpus': 0; must be at least 1$",
        ),
        (
            ["q", "t", "--device", "tpu"],
            r"^seqwarp align: error: invalid value for 'device': 'tpu'",
        ),
        (
            ["q", "t", "--gap-open", "1", "--gap-extend", "3"],
            r"^seqwarp align: error: invalid value for 'gap_extend': 3",
        ),
    ],
)
def test_failed_to_fail(files, args: list[str], message: str) -> None:
    argv = ["align", *(files.get(a, a) for a in args)]
    code, out, err = run(*argv)
    assert code == 2
    assert err.count("\n") == 1
    assert out == ""
    assert re.match(message, err.strip()), err


def test_failed_run_leaves_output_untouched(files, tmp_path: pathlib.Path) -> None:
    target = tmp_path / "keep.tsv"
    target.write_text("previous\n")
    code, _, _ = run("align", files["bad"], files["t"], "-o", str(target), "-q")
    assert code == 2
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".keep")) == []


def test_gpu_unavailable_is_a_clear_error(files, monkeypatch: pytest.MonkeyPatch) -> None:
    from seqwarp import devices

    monkeypatch.setattr(devices, "_cupy_status", lambda: (0, "CuPy sees no CUDA device"))
    code, _, err = run("align", files["q"], files["t"], "--device", "gpu")
    assert code == 2
    assert err == "seqwarp align: error: device 'gpu' is not available: CuPy sees no CUDA device\n"


def test_demo_and_info() -> None:
    code, out, _ = run("demo", "--device", "cpu", "--rows", "3")
    assert code == 0
    assert "read0" in out and "200 pairs" in out
    code, out, _ = run("info")
    assert code == 0
    assert out.splitlines()[0].startswith("seqwarp") and "backend (auto)" in out


def test_usage_error_exit_code() -> None:
    code, _, err = run("align")
    assert code == 2 and "usage:" in err
