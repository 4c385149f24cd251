"""Atomic outputs: replaced only on success, usual permissions, no temporary file left."""

from __future__ import annotations

import os
import pathlib
import stat

import pytest

from seqwarp.io import atomic_output


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
