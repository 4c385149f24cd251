"""CUDASW++4.0's rows in ``python -m seqwarp.bench align-gpu --cudasw4 DIR``: the GPU peer of
the protein search, on the same queries and database, on the same GPU, in the same run.

CUDASW++4.0 is not a Python package: build its ``makedb`` and ``align`` for the GPU (its
``Makefile``, ``-arch=sm_90`` on an H100/H200) and pass their folder. Each run writes the
queries and the database as FASTA (headers are the database index, so hits map back
without ambiguity), builds the peer's database with ``makedb``, then searches once per kernel
type (its default Half2 lanes, and ``--dpx``: DPX s16x2), ``--top 10``, the queries twice
(the first pass a warm-up). Its own figures are read from its ``--verbose`` lines: ``Scan
time`` per query of the second pass (GPU events around the query's upload, its kernels and the
top-N sort); the process's wall time (reading the database, uploading it, both passes) is
taken around it.
Its scores are checked against seqwarp's: every reported hit's score, and each query's ten
best. CUDASW++4.0 reads every letter outside the 20 amino acids as one code scoring -4
against all (seqwarp reads X, B, Z, U, ... by BLOSUM62's rows), so hits on targets with such
letters are counted apart. Gap costs: ``--gop -11 --gex -1`` is 11 + (k - 1) for k gaps, as
seqwarp's 11/1.
"""

from __future__ import annotations

import os
import re
import tempfile

import numpy as np

from ..sequences import SequenceBatch
from .peer_tools import run_logged, write_plain_fasta

__all__ = ["KERNELS", "cudasw4_protein"]

# CUDASW++4.0's kernel choices timed: its default, and DPX for every length partition
KERNELS = {"Half2": [], "DPXs16": ["--dpx"]}
TOP = 10
_STANDARD = 20  # seqwarp's protein codes below this are the 20 amino acids
_SCAN = re.compile(r"Done\. Scan time: ([0-9.eE+-]+) s")


def _hits(path: str) -> np.ndarray:
    """``(query, rank, target, score)`` rows, one a line of the peer's ``--tsv`` output."""
    hits = []
    with open(path) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 8 or not fields[0].isdigit():
                continue  # a header line
            hits.append((int(fields[0]), int(fields[3]), int(fields[6]), int(fields[4])))
    return np.array(hits, dtype=np.int64).reshape(-1, 4)


def _nonstandard_targets(db: SequenceBatch) -> np.ndarray:
    """Whether each database sequence holds a letter outside the 20 amino acids."""
    odd = db.codes[db.offsets[0] : db.offsets[-1]] >= _STANDARD
    before = np.concatenate(([0], np.cumsum(odd)))  # odd letters before each residue
    ends = db.offsets - db.offsets[0]
    return before[ends[1:]] > before[ends[:-1]]


def cudasw4_protein(
    folder: str, queries: SequenceBatch, db: SequenceBatch, scores: np.ndarray
) -> tuple[list[dict], list[str]]:
    """CUDASW++4.0 (``folder`` holds its ``makedb`` and ``align``) on every query against the
    whole database, once per entry of ``KERNELS``; its rows and the log of its output."""
    align, makedb = os.path.join(folder, "align"), os.path.join(folder, "makedb")
    for tool in (align, makedb):
        if not os.access(tool, os.X_OK):
            raise FileNotFoundError(f"--cudasw4: {tool} is not an executable")
    log: list[str] = []
    odd = _nonstandard_targets(db)
    cells = int(queries.lengths.sum()) * db.total_length
    best = -np.sort(-scores, axis=1)[:, :TOP]
    rows = []
    with tempfile.TemporaryDirectory(prefix="seqwarp-cudasw4-") as work:
        query_path, db_path = os.path.join(work, "queries.fa"), os.path.join(work, "db.fa")
        write_plain_fasta(query_path, queries)
        write_plain_fasta(db_path, db)
        os.makedirs(os.path.join(work, "db"))
        prefix = os.path.join(work, "db", "db")
        build, _ = run_logged([makedb, db_path, prefix], log)
        for kernel, flags in KERNELS.items():
            out = os.path.join(work, f"hits-{kernel}.tsv")
            command = [
                align, "--query", query_path, "--query", query_path, "--db", prefix, "--top", str(TOP), "--tsv",
                "--of", out, "--verbose", "--uploadFull", "--prefetchDBFile",
                "--mat", "blosum62", "--gop", "-11", "--gex", "-1", *flags,
            ]  # fmt: skip
            wall, stdout = run_logged(command, log)
            # the queries run twice: the first pass warms up, the second is timed
            scans = [float(x) for x in _SCAN.findall(stdout)]
            if len(scans) != 2 * len(queries):
                raise RuntimeError(f"CUDASW++4.0 reported {len(scans)} of {len(queries)} scans")
            scans = scans[len(queries) :]
            hits = _hits(out)
            query, rank, target, theirs = hits[len(hits) // 2 :].T
            mine = scores[query, target]
            plain = ~odd[target]
            tops = np.full_like(best, np.iinfo(np.int64).min)
            tops[query, rank] = theirs
            rows.append(
                {
                    "workload": f"protein-{len(db)}-local-affine",
                    "family": "cudasw4",
                    "length": 0,
                    "mode": "local",
                    "gap": "affine",
                    "output": "score",
                    "lane": kernel,
                    "tile": "default",
                    "pairs": len(queries) * len(db),
                    "cells": cells,
                    "peer_timer": "Scan time: GPU events around a query's upload, kernels "
                    "and top-10 sort, summed over the queries",
                    "seconds_peer_timer": sum(scans),
                    "tcups_peer_timer": cells / sum(scans) / 1e12,
                    "tcups_peer_timer_by_query": [
                        int(m) * db.total_length / s / 1e12
                        for m, s in zip(queries.lengths, scans, strict=True)
                    ],
                    "seconds_end_to_end": wall,
                    "tcups_end_to_end": 2 * cells / wall / 1e12,  # both passes
                    "seconds_makedb": build,
                    "compared": len(theirs),
                    "equal_to_seqwarp": int(np.sum(mine == theirs)),
                    "compared_plain": int(np.sum(plain)),
                    "equal_to_seqwarp_plain": int(np.sum((mine == theirs) & plain)),
                    "top_scores_equal_to_seqwarp": int(np.sum(np.all(tops == best, axis=1))),
                }
            )
    return rows, log
