"""Workload sizing and construction for ``python -m seqwarp.bench align-gpu``.

:func:`plan_sizes` turns ``--budget-seconds`` into the size of every workload, from rates
measured on an H200 (``RATES``), so that one run of all the chosen families fits the
budget; :func:`short_workloads` builds the score-only pair workloads of simulated reads.
Sizing needs no GPU, so it lives apart from the measurements and is tested on its own.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..scoring import Scoring
from ..sequences import SequenceBatch
from . import proteins
from .workloads import simulate_batches

__all__ = [
    "ALL_PAIRS_CASES",
    "FAMILIES",
    "GAPS",
    "MATCH",
    "MISMATCH",
    "MODES",
    "RATES",
    "Plan",
    "Workload",
    "dna_scoring",
    "plan_sizes",
    "short_workloads",
]

MATCH, MISMATCH = 2, -1
GAPS = {"linear": (1, 1), "affine": (2, 1)}
MODES = ("global", "semi-global", "local")
# all pairs of a read set (AnySeq/GPU's workload): the modes and gap models of its 512 bp
# score targets
ALL_PAIRS_CASES = (("global", "linear"), ("global", "affine"), ("local", "affine"))
FAMILIES = ("short", "traceback", "sweep", "allpairs", "long", "protein", "parasail", "rates")
# rates for sizing workloads (H200 with 16 cores, measured): score kernels, the int32 check
# kernel, whole calls at 512 bp (they grow with length about as length^1.27: 0.25 TCUPS at
# 125 bp), CIGAR strings checked per second, parasail per core,
# residues simulated per second, and the compile and set-up time of one workload
RATES = {
    "kernel": 3.0e12,
    "int32": 1.5e12,
    "e2e_512": 1.5e12,
    "e2e_max": 2.0e12,
    "cigars": 1.5e6,
    "parasail_score_per_core": 3.0e9,
    "parasail_cigar_per_core": 0.4e9,
    "simulate": 3.0e7,
    "setup": 3.0,
}
# budget shares of the families (renormalised over those that run)
_SHARES = {
    "short": 0.22,
    "traceback": 0.18,
    "sweep": 0.12,
    "allpairs": 0.08,
    "long": 0.07,
    "protein": 0.13,
    "parasail": 0.20,
}
# at most this many read bases per length (1 M reads of 125 bp, 244,000 of 512 bp, ...)
_MAX_READ_BASES = 125_000_000
_MIN_PAIRS = 2000


def dna_scoring(gap: str) -> Scoring:
    """The benchmark's DNA scoring (+2/-1) with the gap model ``gap`` of ``GAPS``."""
    return Scoring.dna(MATCH, MISMATCH, *GAPS[gap])


def _e2e_rate(length: float) -> float:
    """Estimated whole-call TCUPS at a read length (for sizing only)."""
    return min(RATES["e2e_max"], RATES["e2e_512"] * (length / 512) ** 1.27)


# --- sizing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """Sizes of every workload, chosen from ``--budget-seconds`` (or given)."""

    pairs: dict[int, int]  # read length -> pairs of every score workload at that length
    traceback_pairs: dict[int, int]  # read length -> pairs of its traceback workloads
    all_pairs_reads: int
    long_reads: int
    protein_queries: tuple[int, ...]  # query lengths
    parasail_seconds: float  # target seconds of one parasail run
    estimate_seconds: dict[str, float] = field(default_factory=dict)


def _score_cost(cells: float, length: float, repeats: int) -> float:
    """Estimated seconds of one score workload of ``cells`` cells: kernel timing, engine
    and public call, and the int32 check."""
    return cells * (
        (2 + repeats) / RATES["kernel"] + 2 * (1 + repeats) / _e2e_rate(length) + 1 / RATES["int32"]
    )


def plan_sizes(
    families: Sequence[str],
    lengths: Sequence[int],
    sweep_lengths: Sequence[int],
    *,
    budget: float,
    repeats: int,
    long_available: int,
    long_cells_per_read: float,
    protein_residues: float,
    all_pairs_length: int,
    fixed: dict[str, int] | None = None,
) -> Plan:
    """Sizes that make the chosen families fit ``budget`` seconds; ``fixed`` gives sizes
    instead (keys ``pairs``, ``traceback_pairs``, ``all_pairs_reads``, ``long_reads``)."""
    fixed = fixed or {}
    score_lengths = {n: 0 for n in sorted({*lengths, *sweep_lengths})}
    for n in lengths if "short" in families else ():
        score_lengths[n] += 2 * len(MODES)
    for n in sweep_lengths if "sweep" in families else ():
        # global and local affine, unless the short matrix has them already
        score_lengths[n] += 0 if "short" in families and n in lengths else 2
    score_lengths = {n: k for n, k in score_lengths.items() if k}
    trace_lengths = list(lengths) if "traceback" in families else []
    workloads = sum(score_lengths.values()) + 2 * len(trace_lengths) * len(MODES) + 4
    running = [f for f in _SHARES if f in families]
    spend = max(10.0, budget - RATES["setup"] * workloads)
    share = {f: spend * _SHARES[f] / sum(_SHARES[f] for f in running) for f in running}
    short_time = share.get("short", 0.0) + share.get("sweep", 0.0)
    estimate: dict[str, float] = {"setup": RATES["setup"] * workloads}

    # score workloads: every length at its cap, scaled down together to fit
    def per_pair(n: int) -> float:
        cells = n * (n + n // 10)
        return score_lengths[n] * _score_cost(cells, n, repeats) + 1.3 * n / RATES["simulate"]

    caps = {n: max(_MIN_PAIRS, _MAX_READ_BASES // n) for n in score_lengths}
    full = sum(caps[n] * per_pair(n) for n in score_lengths)
    scale = min(1.0, short_time / full) if full else 1.0
    pairs = fixed.get("pairs")
    chosen = {n: int(pairs) if pairs else max(_MIN_PAIRS, int(caps[n] * scale)) for n in caps}
    estimate["short"] = sum(chosen[n] * per_pair(n) for n in chosen)

    # traceback: the score workloads' pairs (each row's ratio then compares the same pairs),
    # scaled down together where its share is short; whole calls and kernel timing at about
    # half the score calls' rate, and a sample checked on the host
    trace: dict[int, int] = {}
    given = fixed.get("traceback_pairs")

    def trace_cost(n: int) -> float:
        cells = n * (n + n // 10)
        return (
            2 * len(MODES) * ((1 + repeats) * 2 * cells / (_e2e_rate(n) / 2) + 1 / RATES["cigars"])
        )

    wanted = sum(chosen.get(n, 0) * trace_cost(n) for n in trace_lengths)
    trace_scale = min(1.0, share.get("traceback", 0.0) / wanted) if wanted else 1.0
    for n in trace_lengths:
        scaled = max(200, int(chosen.get(n, 0) * trace_scale))
        trace[n] = min(chosen.get(n, 0), int(given) if given else scaled)
        estimate["traceback"] = estimate.get("traceback", 0.0) + trace[n] * trace_cost(n)

    # all pairs of a read set: N^2 pairs of the read length, timed whole and checked
    cell_cost = len(ALL_PAIRS_CASES) * (
        (1 + repeats) / _e2e_rate(all_pairs_length) + 1 / RATES["int32"]
    )
    if "allpairs" in families:
        given = fixed.get("all_pairs_reads")
        budgeted = math.sqrt(share["allpairs"] / (cell_cost * all_pairs_length**2))
        reads = int(given) if given else max(100, int(budgeted))
        estimate["allpairs"] = reads**2 * all_pairs_length**2 * cell_cost
    else:
        reads = 0

    # long reads: a prefix of the carried reads, two modes
    long_reads_used = 0
    if "long" in families:
        given = fixed.get("long_reads")
        cost = 2 * _score_cost(long_cells_per_read, 10_000, repeats)
        budgeted = int(share["long"] / cost) if cost else long_available
        long_reads_used = min(long_available, int(given) if given else max(100, budgeted))
        estimate["long"] = long_reads_used * cost

    # protein: as many of the query lengths as fit, spread over 100-1000
    queries: tuple[int, ...] = ()
    if "protein" in families:
        per_query = [
            _score_cost(n * protein_residues, 512, repeats) for n in proteins.QUERY_LENGTHS
        ]
        k = max(1, min(len(per_query), int(share["protein"] / statistics.mean(per_query))))
        picks = np.linspace(0, len(proteins.QUERY_LENGTHS) - 1, k).round().astype(int)
        queries = tuple(proteins.QUERY_LENGTHS[i] for i in picks)
        estimate["protein"] = sum(per_query[i] for i in picks) + 5.0

    runs = 2 * 2 * len(MODES) * len(lengths) + 3
    parasail = share.get("parasail", 0.0) / runs
    estimate["parasail"] = share.get("parasail", 0.0)
    return Plan(chosen, trace, reads, long_reads_used, queries, parasail, estimate)


# --- workloads ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """Pairs ``(queries[i], targets[i])`` with one scoring and mode."""

    name: str
    family: str
    length: int  # read length (0: varied)
    queries: SequenceBatch
    targets: SequenceBatch
    scoring: Scoring
    mode: str

    @property
    def cells(self) -> int:
        return int(np.sum(self.queries.lengths * self.targets.lengths))

    @property
    def gap(self) -> str:
        return self.scoring.gap_model


def short_workloads(
    genome: np.ndarray,
    plan: Plan,
    lengths: Sequence[int],
    sweep_lengths: Sequence[int],
    families: Sequence[str],
    seed: int,
) -> list[Workload]:
    """Score-only pair workloads of simulated reads: every mode and gap model at
    ``lengths``, global and local affine at ``sweep_lengths``; one read set per length."""
    out = []
    for n, pairs in plan.pairs.items():
        queries, targets, _ = simulate_batches(genome, n, pairs, seed=seed + n)
        for mode in MODES:
            for gap in GAPS:
                matrix = "short" in families and n in lengths
                swept = "sweep" in families and n in sweep_lengths
                if matrix or (swept and gap == "affine" and mode != "semi-global"):
                    family = "short" if matrix else "sweep"
                    name = f"{family}-{n}-{mode}-{gap}"
                    out.append(Workload(name, family, n, queries, targets, dna_scoring(gap), mode))
    return out
