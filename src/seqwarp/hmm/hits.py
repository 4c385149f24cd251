"""Which hits HMMER keeps: its E-value cut during the search uses a running Z.

hmmsearch decides whether to store a target's hit as soon as the target is scored, with
``P * Z <= E`` where Z is still the number of targets read so far (``p7_pli_NewSeq``); only
after the search are the stored hits marked reported with the final Z. A weak hit early in
the database is therefore stored but not reported, and it still counts for the width of the
name and accession columns of ``--tblout`` / ``--domtblout``, and it is one of the hits
pyhmmer returns. seqwarp searches survivors out of order, in pieces with one Z each, so each
piece runs with the smallest rank it holds (it keeps a superset) and this module drops the
hits HMMER would not have stored, given each target's rank in the database.

A hit names its target, so a piece is cut into runs whose names are distinct; a name that
is not UTF-8 (pyhmmer cannot show it) gets a run of its own.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pyhmmer.easel import DigitalSequenceBlock
from pyhmmer.plan7 import Hit, TopHits

__all__ = ["Run", "keep_stored", "rank_of", "runs"]

Run = dict[str | None, int]  # target name -> position in the piece (None: a name not UTF-8)


def runs(targets: DigitalSequenceBlock) -> list[Run]:
    """``targets`` cut into runs whose names are distinct, each in database order: the k-th
    occurrence of a name goes to run k; a name that is not UTF-8 runs alone (key ``None``)."""
    by_occurrence: list[Run] = []
    alone: list[Run] = []
    seen: dict[str, int] = {}
    for position, sequence in enumerate(targets):
        try:
            name = sequence.name
        except UnicodeDecodeError:
            alone.append({None: position})
            continue
        occurrence = seen.get(name, 0)
        seen[name] = occurrence + 1
        if occurrence == len(by_occurrence):
            by_occurrence.append({})
        by_occurrence[occurrence][name] = position
    return by_occurrence + alone


def rank_of(run: Run, ranks: np.ndarray) -> Callable[[Hit], int]:
    """The database rank (1-based) of the target a hit of ``run`` came from (``ranks``: of
    the piece's targets)."""
    if None in run:
        return lambda _: int(ranks[run[None]])
    return lambda hit: int(ranks[run[hit.name]])


def keep_stored(hits: TopHits, rank: Callable[[Hit], int], E: float, Z: float) -> TopHits:
    """``hits`` less those HMMER would not have stored (``P * rank > E``), set to the final
    ``Z`` so that every piece of a model merges (the merge then marks what is reported).

    Hits are removed through pyhmmer's pickling state, the one way to drop a hit.
    """
    cls, args, state = hits.__reduce__()
    order = state["hit"]  # sorted position -> index in the unsorted array
    kept = {order[i] for i, hit in enumerate(hits) if hit.pvalue * rank(hit) <= E}
    renumber = {old: new for new, old in enumerate(sorted(kept))}
    state["unsrt"] = [blob for old, blob in enumerate(state["unsrt"]) if old in kept]
    state["hit"] = [renumber[old] for old in order if old in kept]
    state["N"] = state["Nalloc"] = len(kept)
    state["pipeline"]["Z"] = Z
    stored = cls(*args)
    stored.__setstate__(state)
    return stored
