"""parasail's rows in ``python -m seqwarp.bench align-gpu``: the peer on the same pairs.

For the short, long and protein workloads that ran, parasail on every core
(:class:`seqwarp.bench.parasail_peer.ParasailPool`) aligns a prefix of the same pairs, sized
to take about the planned seconds, and its scores are compared with seqwarp's. The pool
itself knows nothing of the benchmark; this module turns workloads into its runs and rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..sequences import SequenceBatch
from .align_gpu_measure import row_identity
from .align_gpu_plan import GAPS, MATCH, MISMATCH, RATES, Workload
from .parasail_peer import ParasailPool

__all__ = ["parasail_pairs", "parasail_protein"]


def _strings(batch: SequenceBatch, count: int) -> list[str]:
    return [batch.sequence(k) for k in range(count)]


def _peer_count(
    seconds: float, cells_per_pair: float, rate: float, cores: int, available: int
) -> int:
    """Pairs that parasail aligns in about ``seconds`` on ``cores`` cores."""
    return max(1, min(available, int(seconds * rate * cores / max(1.0, cells_per_pair))))


def _peer_row(
    identity: dict[str, object],
    seconds: float,
    cells: int,
    pairs: int,
    equal: int,
    function: str,
    cores: int,
) -> dict:
    return {
        **identity,
        "family": "parasail",
        "lane": function,
        "tile": "default",
        "pairs": pairs,
        "cells": cells,
        "processes": cores,
        "tcups_end_to_end": cells / seconds / 1e12,
        "seconds_end_to_end": seconds,
        "equal_to_seqwarp": equal,
    }


def parasail_pairs(
    works: list[Workload],
    outputs: Sequence[str],
    seconds: float,
    cores: int,
    scores: dict[str, np.ndarray],
) -> list[dict]:
    """parasail on a prefix of each workload's pairs (the workloads share their reads)."""
    if not works:
        return []
    rows = []
    first = works[0]
    mean_cells = first.cells / len(first.queries)
    counts = {
        output: _peer_count(
            seconds, mean_cells, RATES[f"parasail_{output}_per_core"], cores, len(first.queries)
        )
        for output in outputs
    }
    most = max(counts.values())
    with ParasailPool(
        _strings(first.queries, most),
        _strings(first.targets, most),
        ("dna", MATCH, MISMATCH),
        cores,
    ) as pool:
        for work in works:
            for output in outputs:
                count = counts[output]
                wall, theirs, function = pool.pairs(work.mode, output, count, *GAPS[work.gap])
                cells = int(np.sum(work.queries.lengths[:count] * work.targets.lengths[:count]))
                equal = int(np.sum(theirs == scores[work.name][:count]))
                identity = row_identity(work, output)
                rows.append(_peer_row(identity, wall, cells, count, equal, function, cores))
    return rows


def parasail_protein(
    queries: SequenceBatch, db: SequenceBatch, scores: np.ndarray, seconds: float, cores: int
) -> dict:
    """parasail's profile search of every query against a prefix of the database."""
    residues = db.total_length / len(db)
    per_query = int(queries.lengths.mean()) * residues
    count = _peer_count(
        seconds, per_query * len(queries), RATES["parasail_score_per_core"], cores, len(db)
    )
    with ParasailPool(
        _strings(queries, len(queries)), _strings(db, count), ("blosum62",), cores
    ) as pool:
        wall, theirs = pool.search(len(queries), count, 11, 1)
    cells = int(queries.lengths.sum()) * int(db.lengths[:count].sum())
    equal = int(np.sum(theirs == scores[:, :count]))
    identity = {
        "workload": f"protein-{len(db)}-local-affine",
        "length": 0,
        "mode": "local",
        "gap": "affine",
        "output": "score",
    }
    pairs = len(queries) * count
    return _peer_row(identity, wall, cells, pairs, equal, "sw_striped_profile_16", cores)
