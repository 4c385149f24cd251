"""What the GPU peers' runs share: plain FASTA files for their inputs, and running a peer's
program with its output kept for the run's log."""

from __future__ import annotations

import os
import subprocess
import time

from ..sequences import SequenceBatch

__all__ = ["run_logged", "write_plain_fasta"]


def write_plain_fasta(path: str, batch: SequenceBatch) -> None:
    """Write ``batch`` as FASTA named by index, one line a sequence, uncompressed (the peers
    read single-line records at full speed, and their hits map back without ambiguity)."""
    text = batch.alphabet.decode(batch.codes[batch.offsets[0] : batch.offsets[-1]]).encode()
    offsets = batch.offsets - batch.offsets[0]
    with open(path, "wb") as handle:
        for k in range(len(batch)):
            handle.write(b">%d\n%s\n" % (k, text[offsets[k] : offsets[k + 1]]))


def run_logged(
    command: list[str],
    log: list[str],
    env: dict[str, str] | None = None,
    log_output: bool = True,
) -> tuple[float, str]:
    """Run ``command`` (on GPU 0 unless ``CUDA_VISIBLE_DEVICES`` says otherwise, ``env``
    added); its wall seconds and its stdout and stderr together. The command goes into
    ``log``, and its output unless ``log_output`` is false (a run that prints a line a pair);
    a failure raises with the end of its output."""
    environment = {"CUDA_VISIBLE_DEVICES": "0", **os.environ, **(env or {})}
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    wall = time.perf_counter() - began
    log.append(" ".join(["$", *(f"{k}={v}" for k, v in (env or {}).items()), *command]))
    if log_output:
        log += (done.stdout + done.stderr).splitlines()
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-2000:]
        raise RuntimeError(f"{os.path.basename(command[0])} exited with {done.returncode}: {tail}")
    return wall, done.stdout + done.stderr
