"""``seqwarp align``, ``demo`` and ``info`` through ``main([...])``: every option, and failures."""

from __future__ import annotations

import gzip
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from seqwarp import InvalidParameter
from seqwarp.align import Aligner
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
            r"^seqwarp align: error: .*bad\.fa: record 'q2' \(#1\), position 3 \(1-based\): invalid residue '7' for DNA$",
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


# --- a closed output pipe -------------------------------------------------------------


@pytest.fixture
def many(tmp_path: pathlib.Path) -> str:
    """100 records: an all-vs-all run writes far more than a pipe holds (64 KiB)."""
    path = tmp_path / "many.fa"
    path.write_text("".join(f">s{i}\n{'ACGT' * 5}{'A' * i}\n" for i in range(100)))
    return str(path)


def _closed_pipe() -> io.TextIOWrapper:
    """The write end of a pipe whose reader has gone (as after ``| head``)."""
    read, write = os.pipe()
    os.close(read)
    return os.fdopen(write, "w")


@pytest.mark.parametrize("command", ["align", "info"])
def test_closed_pipe_ends_quietly(many: str, command: str) -> None:
    # align breaks the pipe while writing, info (a few lines) at the final flush
    argv = ["align", many, many, "--all-vs-all", "-q"] if command == "align" else ["info"]
    stderr = io.StringIO()
    with _closed_pipe() as stdout:
        code = main(argv, stdout=stdout, stderr=stderr)
        assert (code, stderr.getvalue()) == (141, "")
        # the descriptor now leads to /dev/null: the interpreter's last flush cannot fail
        assert os.fstat(stdout.fileno()).st_rdev == os.stat(os.devnull).st_rdev


def test_closed_pipe_leaves_no_traceback(many: str) -> None:
    argv = [sys.executable, "-m", "seqwarp", "align", many, many, "--all-vs-all", "-q"]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the first record is written
    stderr = child.stderr.read()
    assert (child.wait(timeout=300), stderr) == (141, b"")


# --- the output path, checked before any work --------------------------------------------


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("{dir}", "it is a directory, not a file"),
        ("{dir}/sub/", "it is a directory, not a file"),
        ("", "the path is empty"),
        ("/nonexist/x.tsv", "folder '/nonexist' does not exist"),
        ("{q}/x.tsv", "'{q}' is not a folder"),
    ],
)
def test_unwritable_output_is_refused_before_reading(files, output: str, reason: str) -> None:
    # the queries hold an invalid residue: the output's error shows nothing was read
    path = output.format(dir=files["dir"], q=files["q"])
    code, out, err = run("align", files["bad"], files["t"], "-o", path, "-q")
    assert (code, out) == (2, "")
    expected = f"seqwarp align: error: cannot write {path!r}: {reason.format(q=files['q'])}\n"
    assert err == expected


def test_output_in_a_read_only_folder_is_refused(
    files, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as for a user, even as root
    target = str(tmp_path / "x.tsv")
    code, _, err = run("align", files["q"], files["t"], "-o", target, "-q")
    assert code == 2
    assert (
        err
        == f"seqwarp align: error: cannot write {target!r}: folder {str(tmp_path)!r} is not writable\n"
    )


# --- output formats: extensions, gzip, --format ------------------------------------------


def test_gzip_output_holds_the_inner_format(files, tmp_path: pathlib.Path) -> None:
    plain, packed = tmp_path / "hits.sam", tmp_path / "hits.sam.gz"
    for target in (plain, packed):
        assert run("align", files["q"], files["t"], "-o", str(target), "-q")[0] == 0
    assert gzip.decompress(packed.read_bytes()).decode() == plain.read_text()
    assert plain.read_text().startswith("@HD")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("hits.bam", "unknown extension '.bam'"),
        ("hits", "no extension"),
        ("hits.gz", "no extension"),
    ],
)
def test_unknown_extension_is_refused(files, tmp_path: pathlib.Path, name: str, what: str) -> None:
    target = tmp_path / name
    code, _, err = run("align", files["q"], files["t"], "-o", str(target), "-q")
    assert code == 2 and not target.exists()
    assert err == (
        f"seqwarp align: error: invalid value for 'output': {str(target)!r}; {what} "
        "(known: .json, .jsonl, .paf, .sam, .tsv, .txt, each optionally followed by .gz); "
        "choose a format with --format (json, paf, sam, tsv)\n"
    )


def test_format_option_forces_any_extension(files, tmp_path: pathlib.Path) -> None:
    target = tmp_path / "hits.bam"
    code, _, _ = run("align", files["q"], files["t"], "-o", str(target), "--format", "tsv", "-q")
    assert code == 0
    assert target.read_text().splitlines()[0] == HEADER


# --- SAM: unique references, one primary record a read, no empty reference ---------------


def test_sam_refuses_duplicate_target_names_before_aligning(files, tmp_path) -> None:
    targets = tmp_path / "dup.fa"
    targets.write_text(">t1 first\nACGT\n>t2\nGGGG\n>t1 again\nACGA\n")
    code, _, err = run(
        "align", files["one"], str(targets), "--all-vs-all", "-o", str(tmp_path / "x.sam")
    )
    assert code == 2
    assert err == (
        f"seqwarp align: error: {targets}: target name 't1' occurs twice (records #0 and #2); "
        "SAM needs unique reference names\n"
    )
    assert run("align", files["one"], str(targets), "--all-vs-all", "-q")[0] == 0  # TSV is fine


@pytest.mark.parametrize("shape", [["--all-vs-all"], ["--top", "3"]])
def test_sam_one_primary_record_per_query(files, tmp_path, shape: list[str]) -> None:
    target = tmp_path / "x.sam"
    code, _, _ = run(
        "align", files["q"], files["t3"], *shape, "--mode", "local", "-o", str(target), "-q"
    )
    assert code == 0
    records = [line.split("\t") for line in target.read_text().splitlines() if line[0] != "@"]
    by_query: dict[str, list[list[str]]] = {}
    for fields in records:
        by_query.setdefault(fields[0], []).append(fields)
    # q1 ACGTACGT: t3 ACGTACGA scores 14, t1 ACGT 8; q2 GGGGCCCC: t2 GGGG 8, t1 nothing
    best = {"q1": "t3", "q2": "t2"}
    for query, rows in by_query.items():
        primary = [r for r in rows if int(r[1]) & 0x100 == 0]
        assert [r[2] for r in primary] == [best[query]]
        assert primary[0][9] != "*"
        for row in rows:
            if row is not primary[0]:
                assert (int(row[1]), row[9], row[10]) == (0x100, "*", "*")


def test_sam_leaves_empty_targets_out(files, tmp_path) -> None:
    targets = tmp_path / "with_empty.fa"
    targets.write_text(">t1\nACGT\n>none\n\n")
    target = tmp_path / "x.sam"
    code, _, _ = run("align", files["one"], str(targets), "--all-vs-all", "-o", str(target), "-q")
    assert code == 0
    lines = target.read_text().splitlines()
    assert [line for line in lines if line.startswith("@SQ")] == ["@SQ\tSN:t1\tLN:4"]
    # q1 ACGT against t1 is primary; against the empty target it is not repeated
    assert [line.split("\t")[:6] for line in lines if line[0] != "@"] == [
        ["q1", "0", "t1", "1", "255", "4="]
    ]
    empty = tmp_path / "empty_only.fa"
    empty.write_text(">none\n\n")
    code, _, _ = run("align", files["one"], str(empty), "-o", str(target), "-q")
    assert code == 0
    lines = target.read_text().splitlines()
    assert not [line for line in lines if line.startswith("@SQ")]
    # a global alignment would be 4I against a reference of length 0: unmapped instead
    assert [line.split("\t")[:6] for line in lines if line[0] != "@"] == [
        ["q1", "4", "*", "0", "0", "*"]
    ]


@pytest.mark.skipif(shutil.which("samtools") is None, reason="samtools is not installed")
def test_samtools_reads_secondary_and_empty_target_records(tmp_path: pathlib.Path) -> None:
    queries, targets = tmp_path / "q.fa", tmp_path / "t.fa"
    queries.write_text(">q1\nACGTAC\n>q2\nGGGA\n>q3\n\n")
    targets.write_text(">t1 a\nACGTACGT\n>t2\nGGGG\n>e\n\n")
    sam = tmp_path / "x.sam.gz"
    code, _, _ = run("align", str(queries), str(targets), "--all-vs-all", "-o", str(sam), "-q")
    assert code == 0
    done = subprocess.run(["samtools", "flagstat", str(sam)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:3] == [
        "3 + 0 primary",
        "2 + 0 secondary",
    ]


# --- help and thread counts ----------------------------------------------------------


def test_help_describes_mode_and_its_default() -> None:
    code, out, _ = run("align", "--help")
    assert code == 0
    help_text = " ".join(out.split())
    assert (
        "--mode {global,semi-global,local} global, semi-global (end gaps free) or local (default global)"
        in help_text
    )


@pytest.mark.parametrize("threads", [0, -5])
def test_threads_below_one_are_refused_by_cli_and_api(files, threads: int) -> None:
    code, _, err = run("align", files["q"], files["t"], "--threads", str(threads))
    assert code == 2
    assert (
        err
        == f"seqwarp align: error: invalid value for '--threads': {threads}; must be at least 1\n"
    )
    with pytest.raises(
        InvalidParameter, match=rf"^invalid value for 'threads': {threads}; must be at least 1$"
    ):
        Aligner(threads=threads, device="cpu")


def test_fractional_threads_are_refused() -> None:
    with pytest.raises(
        InvalidParameter, match=r"^invalid value for 'threads': 2\.5; must be an integer$"
    ):
        Aligner(threads=2.5, device="cpu")
    assert Aligner(threads=np.int64(2), device="cpu").threads == 2


def test_matrix_option_any_case_and_only_loadable_choices(files) -> None:
    upper = run("align", files["p"], files["pt"], "--matrix", "BLOSUM62", "-q")
    assert run("align", files["p"], files["pt"], "--matrix", "blosum62", "-q") == upper
    code, _, err = run("align", files["p"], files["pt"], "--matrix", "FOO")
    assert code == 2 and "BLOSUM62, " in err and "PAM250, " in err
    assert "BENNER" not in err and "PFASUM" not in err and "PAM1, " not in err
