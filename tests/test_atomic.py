"""Atomic outputs: replaced only on success, usual permissions, no temporary file left;
unwritable paths refused early by the user's name; gzip; pipes and devices written in place."""

from __future__ import annotations

import errno
import gzip
import os
import pathlib
import re
import stat
import threading

import pytest

from seqwarp import OutputFileError
from seqwarp.io import atomic_output, check_output


def test_success_replaces_with_umask_permissions(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "out.txt"
    with atomic_output(target) as handle:
        handle.write("done\n")
    assert target.read_text() == "done\n"
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_failure_keeps_previous_content(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("previous\n")
    with pytest.raises(RuntimeError, match=r"^boom$"), atomic_output(target) as handle:
        handle.write("half a result")
        raise RuntimeError("boom")
    assert target.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "the path is empty"),
        ("{tmp}", "it is a directory, not a file"),
        ("{tmp}/new/", "it is a directory, not a file"),
        ("{tmp}/missing/out.txt", "folder '{tmp}/missing' does not exist"),
        ("{tmp}/file.txt/out.txt", "'{tmp}/file.txt' is not a folder"),
    ],
)
def test_unwritable_paths_are_refused_by_the_users_name(
    tmp_path: pathlib.Path, name: str, reason: str
) -> None:
    (tmp_path / "file.txt").write_text("kept\n")
    path, because = name.format(tmp=tmp_path), reason.format(tmp=tmp_path)
    message = rf"^cannot write {re.escape(repr(path))}: {re.escape(because)}$"
    with pytest.raises(OutputFileError, match=message):
        check_output(path)
    with pytest.raises(OutputFileError, match=message), atomic_output(path) as handle:
        handle.write("never\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_stdout_and_writable_paths_pass(tmp_path: pathlib.Path) -> None:
    for path in (None, "-", tmp_path / "new.txt", "relative.txt"):
        check_output(path)
    assert list(tmp_path.iterdir()) == []


def test_rename_failure_names_the_target(tmp_path: pathlib.Path, monkeypatch) -> None:
    def refuse(source: str, target: str) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link", source, None, target)

    monkeypatch.setattr(os, "replace", refuse)
    target = tmp_path / "out.txt"
    with (
        pytest.raises(
            OutputFileError, match=rf"^cannot write {re.escape(repr(str(target)))}: Invalid cross"
        ),
        atomic_output(target) as handle,
    ):
        handle.write("done\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mode", ["w", "wb"])
def test_compressed_output_is_gzip(tmp_path: pathlib.Path, mode: str) -> None:
    target = tmp_path / "out.txt.gz"
    with atomic_output(target, mode, compress=True) as handle:
        handle.write("done\n" if mode == "w" else b"done\n")
    assert gzip.decompress(target.read_bytes()) == b"done\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt.gz"]


def test_a_pipe_is_written_in_place(tmp_path: pathlib.Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    with atomic_output(fifo) as handle:
        handle.write("streamed\n")
    reader.join(timeout=10)
    assert received == [b"streamed\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["fifo"]
