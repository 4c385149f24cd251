"""Inputs from streams (``-``, pipes) and outputs checked first, then written as a group."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hmm_support import PYHMMER_DATA, strip_comments

import seqwarp.hmm.cli
from seqwarp.cli import main

HMMFILE = PYHMMER_DATA / "hmms" / "txt" / "PF02826.hmm"
SEQDB = PYHMMER_DATA / "seqs" / "938293.PRJEB85.HG003687.faa"


def _cli(*argv: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["hmmsearch", "--cpu", "1", *map(str, argv)], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def expected() -> list[str]:
    """HMMER's table for these files (pyhmmer's golden one), for the stream inputs to match."""
    rows = strip_comments((PYHMMER_DATA / "tables" / "PF02826.tbl").read_text())
    assert len(rows) == 22
    return rows


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _fifo(path: Path, data: bytes) -> threading.Thread:
    """A named pipe at ``path`` that a thread fills with ``data`` (as ``<(cat file)`` does)."""
    os.mkfifo(path)

    def feed() -> None:
        with open(path, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    return writer


@pytest.mark.parametrize("gzipped", [False, True])
def test_database_from_stdin(monkeypatch, tmp_path, expected, gzipped) -> None:
    data = SEQDB.read_bytes()
    _stdin(monkeypatch, gzip.compress(data) if gzipped else data)
    table = tmp_path / "stdin.tbl"
    status, _, err = _cli("-o", tmp_path / "hits.txt", "--tblout", table, HMMFILE, "-")
    assert status == 0, err
    assert strip_comments(table.read_text()) == expected


def test_hmm_from_stdin(monkeypatch, tmp_path, expected) -> None:
    _stdin(monkeypatch, gzip.compress(HMMFILE.read_bytes()))
    table = tmp_path / "stdin.tbl"
    status, _, err = _cli("-o", tmp_path / "hits.txt", "--tblout", table, "-", SEQDB)
    assert status == 0, err
    assert strip_comments(table.read_text()) == expected


def test_database_and_hmm_from_pipes(tmp_path, expected) -> None:
    """Named pipes for both inputs: the HMM is read into memory, the database is copied to a
    temporary file (Z needs a count before the search reads it again)."""
    writers = [
        _fifo(tmp_path / "hmm.pipe", HMMFILE.read_bytes()),
        _fifo(tmp_path / "db.pipe", SEQDB.read_bytes()),
    ]
    table = tmp_path / "pipes.tbl"
    command = [sys.executable, "-m", "seqwarp", "hmmsearch", "--cpu", "1", "--tblout", str(table)]
    command += [
        "-o",
        str(tmp_path / "hits.txt"),
        str(tmp_path / "hmm.pipe"),
        str(tmp_path / "db.pipe"),
    ]
    # its own process: a reader that opened a pipe twice would wait forever
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert strip_comments(table.read_text()) == expected
    for writer in writers:
        writer.join(timeout=10)


def test_empty_stdin(monkeypatch) -> None:
    _stdin(monkeypatch, b"")
    status, _, err = _cli(HMMFILE, "-")
    assert (status, err) == (2, "seqwarp hmmsearch: error: sequence database - is empty\n")


def test_outputs_are_checked_before_the_search(monkeypatch, tmp_path) -> None:
    """A path that cannot be written is refused before any work, named as the user gave it;
    no other output is created."""

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("searched despite an unwritable output")

    monkeypatch.setattr(seqwarp.hmm.cli, "hmmsearch", no_search)
    bad = tmp_path / "missing" / "x.dom"
    status, out, err = _cli("--tblout", tmp_path / "ok.tbl", "--domtblout", bad, HMMFILE, SEQDB)
    assert (status, out) == (2, "")
    assert err == (
        f"seqwarp hmmsearch: error: cannot write '{bad}': folder '{bad.parent}' does not exist\n"
    )
    assert list(tmp_path.iterdir()) == []


class _FullDisk(io.BytesIO):
    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")


@contextlib.contextmanager
def _full_disk(inner: contextlib.AbstractContextManager) -> Iterator[io.BytesIO]:
    """``atomic_output``'s context whose handle cannot be written."""
    with inner:
        yield _FullDisk()


def test_outputs_are_written_as_a_group(monkeypatch, tmp_path) -> None:
    """A write that fails leaves every output as it was: none is renamed into place before
    all are complete, and no temporary file stays behind."""
    tbl, dom, summary = tmp_path / "hits.tbl", tmp_path / "hits.domtbl", tmp_path / "hits.txt"
    tbl.write_text("old table\n")
    real = seqwarp.hmm.cli.atomic_output

    def failing(path: str, mode: str) -> contextlib.AbstractContextManager:
        return _full_disk(real(path, mode)) if path == str(summary) else real(path, mode)

    monkeypatch.setattr(seqwarp.hmm.cli, "atomic_output", failing)
    status, _, err = _cli("--tblout", tbl, "--domtblout", dom, "-o", summary, HMMFILE, SEQDB)
    assert status == 2
    assert err == f"seqwarp hmmsearch: error: cannot write '{summary}': No space left on device\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["hits.tbl"]
    assert tbl.read_text() == "old table\n"


def test_tables_to_stdout_keep_their_bytes(tmp_path, expected) -> None:
    """``--tblout -`` writes the table's bytes to stdout's binary buffer: a UTF-8 description
    stays UTF-8 whatever stdout's encoding."""
    hit = expected[0].split()[0].encode()
    lines = SEQDB.read_bytes().split(b"\n")
    first = lines.index(next(line for line in lines if line.split()[0] == b">" + hit))
    lines[first] += " café".encode()
    seqdb = tmp_path / "utf8.faa"
    seqdb.write_bytes(b"\n".join(lines))
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    argv = [
        "hmmsearch",
        "--tblout",
        "-",
        "-o",
        str(tmp_path / "hits.txt"),
        str(HMMFILE),
        str(seqdb),
    ]
    assert main(argv, stdout=out, stderr=io.StringIO()) == 0
    out.flush()
    assert " café\n".encode() in raw.getvalue()
