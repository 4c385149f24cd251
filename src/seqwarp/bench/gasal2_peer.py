"""GASAL2's rows in ``python -m seqwarp.bench align-gpu --gasal2 PATH``: the GPU peer of the
short-read pairs, on the same reads and windows, on the same GPU, in the same run.

GASAL2 is a CUDA library whose ``test_prog`` aligns record ``i`` of one FASTA file with record
``i`` of another, one pair a thread; build it for the GPU (``GPU_SM_ARCH=sm_90``,
``MAX_QUERY_LEN`` above the longest read) and pass the program. Upstream's ``test_prog`` frees
unset pointers at exit, which can end it before it prints its time, sizes its buffers from the
last query, and fixes its pairs a launch at compile time (5,000); the build measured here
mended the first two and reads ``GASAL_STREAM_BATCH_SIZE`` and ``GASAL_FIX`` from the
environment (settings an upstream build ignores: every batch size then runs 5,000). Its local kernels are run as
they are; its global kernels score the first query letter's deletion as free, so they run
with ``GASAL_FIX=1`` where the build offers that correction, and their scores are compared
either way. Semi-global (free end gaps on both sequences, as seqwarp's) is left out: GASAL2's
``-x BOTH BOTH`` is not reliable. Scoring: match ``-a 2``, mismatch ``-b 1``; GASAL2 charges
``q + k r`` for a gap of k, so seqwarp's linear gap 1 is ``-q 0 -r 1`` and its affine 2/1
(2 + (k - 1)) is ``-q 1 -r 1``; GASAL2 does not open a deletion straight after an insertion,
which may lower a score, rarely.

Times: GASAL2's own line, ``Total execution time (in milliseconds)``, is wall time around
its batches (packing, transfers both ways, kernels) without reading the files; the whole run
is the process's wall time (reading the FASTA files, the GPU's context too); medians of
``repeats`` runs without ``-p``, then one run with ``-p`` gives the scores to compare. Each
batch size of ``BATCHES`` is timed: its default launches 5,000 pairs, too few threads to fill
a large GPU.
"""

from __future__ import annotations

import os
import re
import statistics
import tempfile

import numpy as np

from .align_gpu_measure import row_identity
from .align_gpu_plan import GAPS, MATCH, MISMATCH, Workload
from .peer_tools import run_logged, write_plain_fasta

__all__ = ["BATCHES", "gasal2_pairs"]

# pairs a launch (GASAL_STREAM_BATCH_SIZE): GASAL2's default, and one that fills the GPU
BATCHES = (5000, 100_000)
MODES = {"local": "local", "global": "global"}
_TOTAL = re.compile(r"Total execution time \(in milliseconds\): ([0-9.]+)")
_SCORE = re.compile(r"query_name=(\d+)\ttarget_name=\d+\tscore=(-?\d+)")


def _command(program: str, work: Workload, paths: tuple[str, str], scores: bool) -> list[str]:
    gap_open, gap_extend = GAPS[work.gap]
    return [
        program,
        *("-a", str(MATCH), "-b", str(-MISMATCH)),
        *("-q", str(gap_open - gap_extend), "-r", str(gap_extend)),
        *(["-p"] if scores else []),
        *("-y", MODES[work.mode], *paths),
    ]


def gasal2_pairs(
    program: str, works: list[Workload], scores: dict[str, np.ndarray], repeats: int
) -> tuple[list[dict], list[str]]:
    """GASAL2's ``test_prog`` on every local and global workload of ``works`` (which share
    their reads); its rows and the log of its runs."""
    if not os.access(program, os.X_OK):
        raise FileNotFoundError(f"--gasal2: {program} is not an executable")
    log: list[str] = []
    rows = []
    works = [w for w in works if w.mode in MODES]
    if not works:
        return rows, log
    with tempfile.TemporaryDirectory(prefix="seqwarp-gasal2-") as folder:
        paths = (os.path.join(folder, "reads.fa"), os.path.join(folder, "windows.fa"))
        write_plain_fasta(paths[0], works[0].queries)
        write_plain_fasta(paths[1], works[0].targets)
        for work in works:
            env = {"GASAL_FIX": "1"} if work.mode == "global" else {}
            _, out = run_logged(_command(program, work, paths, True), log, env, log_output=False)
            theirs = np.full(len(work.queries), np.iinfo(np.int64).min, dtype=np.int64)
            for index, score in _SCORE.findall(out):
                theirs[int(index)] = int(score)
            equal = int(np.sum(theirs == scores[work.name]))
            for batch in BATCHES:
                env_batch = {**env, "GASAL_STREAM_BATCH_SIZE": str(batch)}
                seconds, walls = [], []
                for _ in range(repeats):
                    wall, text = run_logged(_command(program, work, paths, False), log, env_batch)
                    found = _TOTAL.findall(text)
                    if not found:
                        raise RuntimeError("GASAL2 printed no total execution time")
                    seconds.append(float(found[-1]) / 1e3)
                    walls.append(wall)
                timed, wall = statistics.median(seconds), statistics.median(walls)
                rows.append(
                    {
                        **row_identity(work, "score"),
                        "family": "gasal2",
                        "lane": f"{MODES[work.mode]}, {batch} pairs a launch",
                        "tile": "default",
                        "pairs": len(work.queries),
                        "cells": work.cells,
                        "peer_timer": "Total execution time: wall time around the batches "
                        "(packing, transfers, kernels), median of the runs",
                        "seconds_peer_timer": timed,
                        "tcups_peer_timer": work.cells / timed / 1e12,
                        "seconds_end_to_end": wall,
                        "tcups_end_to_end": work.cells / wall / 1e12,
                        "environment": env_batch,
                        "compared": len(theirs),
                        "equal_to_seqwarp": equal,
                    }
                )
    return rows, log
