"""Time the score kernels (or the traceback's) of a revision or folder against the tree's.

Each workload is staged with both kernel sources (``_gpu_backend.stage``: the engine's default
lanes and tiles), their results compared pair by pair, and the kernels alone timed in turn,
``--rounds`` rounds of the benchmark's timing (``_time_kernels``: CUDA events around every
launch on the score call's streams, median of ``--repeats`` after a warm-up), so that a change
to the kernels is measured against the code before it on the same pairs, device and clocks:

    python tools/kernel_ab.py --base HEAD~1 --data .benchdata/align-gpu --out ab.json
    python tools/kernel_ab.py --base DIR --data DIR --only "512 LA alone" "protein 300"
    python tools/kernel_ab.py --base DIR --data DIR --long-reads 2500 --only "long global"

``--base`` is a git revision, or a folder holding a revision's kernel files, for a machine
that has the working tree without its history (``git archive HEAD~1
src/seqwarp/align/kernels | tar -x --strip-components 4 -C DIR``). ``--tree`` takes the other
side from a folder too (a copy of the kernels folder with a variant's changes), or several sides
from several folders (``tree1``, ``tree2``, ... in the order given), each timed against the base
in the same rounds, so that a batch of variants is one run.

DNA: reads simulated from the benchmark's genome against their windows (+2/-1, linear gap 1
or affine 2/1) at 512 bp (global linear and affine, semi-global and local affine) and 125 bp
(global linear, local affine); local scores twice, with their end cells ("512 LA") and alone
("512 LA alone", as ``output="score"``, ``score_matrix`` and the benchmark's score rows run
them); protein: one real query of about 100, 300 and 1000 residues against ``--database``
shuffled proteins (BLOSUM62 11/1, local, scores alone, as the protein search runs them);
``--long-reads N``: the first N of the benchmark's PBSIM reads against their regions (global
and semi-global affine, "long global", "long semi-global"), each kind of launch also timed
alone.
``--only`` names the workloads to run (``"512 GL"``, ``"protein 300"``, ``"long global"``).
Only kernel sources differ between the two sides: the Python code is the working tree's.

``--traceback``: the traceback's kernels instead (band or whole-matrix fill, walk, packing),
on the benchmark's traceback pairs (a million 125 bp reads, 244,140 of 512 bp, the seeds of
``bench align-gpu``): each side's fields and CIGARs compared, and each phase timed as the
benchmark times it (``_traceback_kernel_seconds``: CUDA events between the kernels of chunks
that run back to back, median of ``--repeats`` calls), beside the score kernels' speed on the
same pairs, so that the traceback's share of it reads as the benchmark's criterion does;
``--only`` names the workloads to run (``"125 GL"``, ``"512 LA"``: length, then mode and gap);
``--band-columns K ...`` gives the tree side other band tiles (columns a thread, in order of
preference, as the engine's ``_BAND_COLUMNS``), so that two tiles can be timed on the same
kernels: ``--base DIR --tree DIR --band-columns 12 16 --only "125 GL"`` (DIR the same folder);
``--fill-blocks N`` holds the tree side's band fills to N blocks a multiprocessor (each block's
shared memory padded, so the carve-out leaves the rest as L1), so that a tile of fewer
registers can be timed at the occupancy of another. Both apply to every tree side but those
that give their own: ``--tree DIR:columns=12/16:blocks=5 DIR:columns=16:blocks=4 H1``. Each
row names each side's band tile and its fill's registers and blocks a multiprocessor, as the
launches configured them. ``--out`` writes the sides (by name) and the rows as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import statistics
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from seqwarp import cuda
from seqwarp.align import _gpu_backend, _gpu_traceback, plan
from seqwarp.bench import long_reads, proteins
from seqwarp.bench.align_gpu_measure import (
    _results,
    _time_kernels,
    _traceback_kernel_seconds,
    kind_line,
    launch_breakdown,
)
from seqwarp.bench.align_gpu_plan import Workload, dna_scoring
from seqwarp.bench.workloads import load_genome, simulate_batches
from seqwarp.scoring import Scoring

_KERNELS = "src/seqwarp/align/kernels"
_PACKAGED = cuda.kernel_source


def _use_sources(folder: Path | None) -> None:
    """Compile ``seqwarp.align``'s kernels from ``folder`` (None: the package's own)."""
    if folder is None:
        cuda.kernel_source = _PACKAGED
    else:

        def kernel_source(package: str, filename: str) -> str:
            if package != "seqwarp.align":
                return _PACKAGED(package, filename)
            return cuda.inline_headers(folder, filename)

        cuda.kernel_source = kernel_source
    cuda._requests.clear()


def tree_side(spec: str) -> tuple[Path, tuple[int, ...] | None, int | None]:
    """A ``--tree`` side from ``DIR[:columns=A/B/...][:blocks=N]``: its kernels' folder, its
    band columns a thread in order of preference and its most band fill blocks a
    multiprocessor (None where not given); ValueError for anything else."""
    folder, *options = spec.split(":")
    columns: tuple[int, ...] | None = None
    blocks: int | None = None
    for option in options:
        key, _, value = option.partition("=")
        numbers = value.split("/")
        if key not in ("columns", "blocks") or not all(x.isdigit() for x in numbers):
            raise ValueError(f"--tree {spec}: {option!r} is neither columns=A/B/... nor blocks=N")
        if key == "columns":
            columns = tuple(int(x) for x in numbers)
        elif len(numbers) == 1:
            blocks = int(value)
        else:
            raise ValueError(f"--tree {spec}: blocks=N takes one number")
    if not folder or (blocks is not None and blocks < 1) or (columns and min(columns) < 1):
        raise ValueError(f"--tree {spec}: a folder, then positive columns and blocks")
    return Path(folder), columns, blocks


def _missing_kernel_files(folder: Path) -> list[str]:
    """The package's kernel files that ``folder`` lacks (a side compiles from one folder)."""
    packaged = Path(__file__).resolve().parents[1] / _KERNELS
    names = [p.name for p in packaged.iterdir() if p.suffix in (".cu", ".cuh")]
    return sorted(name for name in names if not (folder / name).is_file())


def _checkout(revision: str, into: Path) -> None:
    """The kernel folder of ``revision`` into ``into``."""
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{revision}:{_KERNELS}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in names:
        text = subprocess.run(
            ["git", "show", f"{revision}:{_KERNELS}/{name}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (into / name).write_text(text, encoding="utf-8")


# score workloads: (read length, pairs, (name, mode, gap open)), gap extend 1; local scores
# with their end cells and alone (the other modes find theirs at no cost); protein queries
# of about these lengths; the long reads in both modes
_SCORE_CASES = (
    (512, 200_000, (("GL", "global", 1), ("GA", "global", 2), ("SA", "semi-global", 2),
                    ("LA", "local", 2))),
    (125, 1_000_000, (("GL", "global", 1), ("LA", "local", 2))),
)  # fmt: skip
_SCORE_VARIANTS = {"local": (("", True), (" alone", False))}
_PROTEIN_QUERIES = (100, 300, 1000)
_LONG_MODES = ("global", "semi-global")
# traceback workloads: (read length, pairs, (name, mode, gap model)), the benchmark's
_TRACEBACK_CASES = (
    (125, 1_000_000, (("GL", "global", "linear"), ("GA", "global", "affine"),
                      ("SL", "semi-global", "linear"), ("LL", "local", "linear"),
                      ("LA", "local", "affine"))),
    (512, 244_140, (("GL", "global", "linear"), ("GA", "global", "affine"),
                    ("LA", "local", "affine"))),
)  # fmt: skip


def _score_runs() -> list[tuple[str, int, int, str, int, bool]]:
    """(name, read length, pairs, mode, gap open, whether local scores find their end cells)
    of each DNA score workload, by read length."""
    return [
        (f"{length} {short}{suffix}", length, pairs, mode, gap_open, ends)
        for length, pairs, cases in _SCORE_CASES
        for short, mode, gap_open in cases
        for suffix, ends in _SCORE_VARIANTS.get(mode, (("", True),))
    ]


def _traceback_runs() -> list[tuple[str, int, int, str, str, str]]:
    """(name, read length, pairs, short name, mode, gap model) of each traceback workload,
    by read length."""
    return [
        (f"{length} {short}", length, pairs, short, mode, gap)
        for length, pairs, cases in _TRACEBACK_CASES
        for short, mode, gap in cases
    ]


def workload_names(traceback: bool) -> list[str]:
    """The names ``--only`` takes: the traceback's workloads, or the score ones."""
    if traceback:
        return [run[0] for run in _traceback_runs()]
    names = [run[0] for run in _score_runs()]
    return names + [f"protein {n}" for n in _PROTEIN_QUERIES] + [f"long {m}" for m in _LONG_MODES]


def _workloads(
    data: Path, database: int, only: list[str], long_reads_used: int
) -> Iterator[tuple[str, tuple, bool]]:
    """(name, ``stage`` arguments, whether local scores find their end cells) of each score
    workload named in ``only`` (all if it is empty; the long reads only if ``long_reads_used``),
    simulating or loading only what the named ones need."""

    def named(name: str) -> bool:
        return not only or name in only

    genome = None
    runs = [run for run in _score_runs() if named(run[0])]
    for (length, pairs), same in itertools.groupby(runs, key=lambda run: run[1:3]):
        if genome is None:
            _, genome = load_genome(str(data / "genome.fa.gz"))
        queries, targets, _ = simulate_batches(genome, length, pairs, seed=2)
        index = np.arange(pairs, dtype=np.int64)
        for name, _, _, mode, gap_open, ends in same:
            s = Scoring.dna(2, -1, gap_open, 1)
            yield (
                name,
                (queries, targets, index, index, s.matrix, mode, s.gap_open, s.gap_extend),
                ends,
            )
    lengths = list(_PROTEIN_QUERIES)
    if any(named(f"protein {length}") for length in lengths):
        real = proteins.load(str(data))
        db = proteins.shuffled_database(real, database)
        queries = proteins.pick_queries(real, lengths)
        s = Scoring.blosum62(11, 1)
        targets = np.arange(len(db), dtype=np.int64)
        for k, asked in enumerate(lengths):
            if named(f"protein {asked}"):
                index = np.full(len(db), k, dtype=np.int64)
                args = (queries, db, index, targets, s.matrix, "local", s.gap_open, s.gap_extend)
                yield f"protein {asked}", args, False
    modes = [mode for mode in _LONG_MODES if named(f"long {mode}")]
    if long_reads_used and modes:
        found = long_reads.load(data)
        reads, regions = found.reads[:long_reads_used], found.regions[:long_reads_used]
        index = np.arange(len(reads), dtype=np.int64)
        s = dna_scoring("affine")
        for mode in modes:
            args = (reads, regions, index, index, s.matrix, mode, s.gap_open, s.gap_extend)
            yield f"long {mode}", args, True


def _traceback_workloads(data: Path, only: list[str]) -> Iterator[tuple[str, Workload]]:
    """(name, workload) of each traceback A/B named in ``only`` (all if it is empty): the
    benchmark's reads and windows, simulated only for the lengths asked for."""
    _, genome = load_genome(str(data / "genome.fa.gz"))
    runs = [run for run in _traceback_runs() if not only or run[0] in only]
    for (length, pairs), same in itertools.groupby(runs, key=lambda run: run[1:3]):
        queries, targets, _ = simulate_batches(genome, length, pairs, seed=1 + length)
        for name, _, _, short, mode, gap in same:
            work = Workload(short, "short", length, queries, targets, dna_scoring(gap), mode)
            yield name, work


@contextlib.contextmanager
def _band_columns(columns: tuple[int, ...] | None) -> Iterator[None]:
    """The band fill's columns a thread, in order of preference for both gap models, while
    the block runs (``_gpu_traceback._BAND_COLUMNS``); None leaves the engine's own."""
    kept = _gpu_traceback._BAND_COLUMNS
    if columns is not None:
        _gpu_traceback._BAND_COLUMNS = {False: columns, True: columns}
    try:
        yield
    finally:
        _gpu_traceback._BAND_COLUMNS = kept


def padded_shared(shared: int, most: int, sm: plan.Multiprocessor) -> int:
    """Dynamic shared memory a block such that ``sm`` holds at most ``most`` blocks (exactly
    ``most`` where registers allow), for a kernel that needs ``shared`` bytes: a block's share
    of the multiprocessor, less the system's bytes a block and a slack for the kernel's static
    shared memory (up to half the gap between ``most`` and ``most + 1`` blocks' shares: the
    global band fills' 16 bytes; the local fills' snapshots, 8-20 KB, may leave a block fewer,
    which the A/B's rows show, as they report the blocks configured). Never less than
    ``shared``."""
    slack = sm.shared // (2 * most * (most + 1))
    return max(shared, sm.shared // most - sm.reserved - slack)


@contextlib.contextmanager
def _band_fills(most: int | None) -> Iterator[list[dict]]:
    """While the block runs, record each band fill's launch as configured (registers, shared
    memory a block with the kernel's static part, and the blocks a multiprocessor that they
    and the block size allow: ``plan.resident_blocks``), its grid padded to at most ``most``
    blocks a multiprocessor when ``most`` is given (:func:`padded_shared`)."""
    records: list[dict] = []
    band_grid, configure = _gpu_traceback._band_grid, _gpu_backend._Grid.configure
    # the band fills' grids by identity, held so that no other grid takes a freed one's id
    band_grids: dict[int, _gpu_backend._Grid] = {}

    def grid_of(*args: object, **kwargs: object) -> _gpu_backend._Grid:
        grid = band_grid(*args, **kwargs)
        if most is not None:
            sm = _gpu_backend._multiprocessor(_gpu_backend._current_device())
            grid = dataclasses.replace(grid, shared=padded_shared(grid.shared, most, sm))
        band_grids[id(grid)] = grid
        return grid

    def configured(grid: _gpu_backend._Grid, kernel: object) -> None:
        configure(grid, kernel)
        if band_grids.get(id(grid)) is grid:
            sm = _gpu_backend._multiprocessor(_gpu_backend._current_device())
            shared = grid.shared + kernel.shared_size_bytes
            blocks = plan.resident_blocks(kernel.num_regs, grid.threads, shared, sm)
            records.append({"registers": kernel.num_regs, "shared": shared, "blocks": blocks})

    _gpu_traceback._band_grid, _gpu_backend._Grid.configure = grid_of, configured
    try:
        yield records
    finally:
        _gpu_traceback._band_grid, _gpu_backend._Grid.configure = band_grid, configure


@contextlib.contextmanager
def _side(
    source: Path | None, columns: tuple[int, ...] | None, most: int | None
) -> Iterator[list[dict]]:
    """One side of a traceback A/B while the block runs: its kernel sources, band columns and
    most band fill blocks; yields its band fills' records (:func:`_band_fills`)."""
    _use_sources(source)
    with _band_columns(columns), _band_fills(most) as fills:
        yield fills


def _launch_text(tile: tuple[int, int] | None, fills: list[dict]) -> str:
    """A side's band tile and its fills' registers and blocks a multiprocessor."""
    if tile is None:
        return "whole"
    shapes = sorted({(f["registers"], f["blocks"]) for f in fills})
    told = ", ".join(f"{r} regs, {b} blocks" for r, b in shapes)
    return "x".join(map(str, tile)) + (f", {told}" if told else "")


def _ab_traceback(
    data: Path,
    sides: dict[str, Path | None],
    rounds: int,
    repeats: int,
    only: list[str],
    band_columns: dict[str, tuple[int, ...] | None] | None = None,
    fill_blocks: dict[str, int | None] | None = None,
) -> list:
    """One row a traceback workload (those named in ``only``, all if it is empty): equal
    results, phases and TCUPS of each side, and the band tile each side took with its fill's
    registers and blocks a multiprocessor (``band_columns``: a side's band columns in order of
    preference, where it differs from the engine's; ``fill_blocks``: a side's most band fill
    blocks a multiprocessor)."""
    columns, most = band_columns or {}, fill_blocks or {}
    rows = []
    for name, work in _traceback_workloads(data, only):
        s, pairs = work.scoring, len(work.queries)
        index = np.arange(pairs, dtype=np.int64)
        args = (work.queries, work.targets, index, index, s.matrix, work.mode, s.gap_open,
                s.gap_extend)  # fmt: skip
        _use_sources(None)  # the score kernels as the benchmark's score-only rows run them
        staged = _gpu_backend.stage(*args, ends=work.mode != "local")
        score = statistics.median(_time_kernels(staged, repeats) for _ in range(rounds))
        del staged
        # each side's band tile as band_group picks it for the workload's pairs as a whole (the
        # engine picks one a launch; the benchmark's pairs of a length are alike)
        m, n = work.queries.lengths, work.targets.lengths
        results, tiles, fills = {}, {}, {}
        for side, source in sides.items():
            with _side(source, columns.get(side), most.get(side)) as fills[side]:
                tiles[side] = _gpu_traceback.band_group(work.mode, s.gap_open != s.gap_extend, m, n)
                fields, cigars = _gpu_traceback.align(*args)
            results[side] = (np.asarray(fields), cigars.codes, cigars.offsets)
        equal = all(
            np.array_equal(a, b)
            for other in results.values()
            for a, b in zip(results["base"], other, strict=True)
        )
        phases: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(rounds):
            for side, source in sides.items():
                with _side(source, columns.get(side), most.get(side)):
                    phases[side].append(_traceback_kernel_seconds(work, index, repeats))
        row = {"workload": name, "pairs": pairs, "equal": equal,
               "score_tcups": work.cells / score / 1e12, "band_tiles": tiles,
               "band_fills": fills}  # fmt: skip
        for side, runs in phases.items():
            row[side] = {phase: statistics.median(r[phase] for r in runs) for phase in runs[0]}
            row[f"{side}_tcups"] = work.cells / sum(row[side].values()) / 1e12
        rows.append(row)
        print(f"{name:8s} equal {equal}  score kernels {row['score_tcups']:.3f} TCUPS", flush=True)
        width = max(len(side) for side in sides)
        for side in sides:
            ms = " ".join(f"{k} {v * 1e3:.2f}" for k, v in row[side].items())
            speed = row[f"{side}_tcups"] / row["base_tcups"]
            print(
                f"    {side:{width}s} of score {row[f'{side}_tcups'] / row['score_tcups']:.3f}"
                f"  x{speed:.3f}  ms: {ms}  ({_launch_text(tiles[side], fills[side])})",
                flush=True,
            )
    return rows


def _ab_scores(
    data: Path,
    database: int,
    sides: dict[str, Path | None],
    rounds: int,
    repeats: int,
    only: list[str],
    long_reads_used: int,
) -> list:
    """One row a score workload: equal results and each side's TCUPS (the long reads' also
    each kind of launch alone, ``launch_breakdown``)."""
    rows = []
    for name, args, ends in _workloads(data, database, only, long_reads_used):
        q, t = args[0].lengths[args[2]], args[1].lengths[args[3]]
        cells = float(np.sum(q.astype(np.float64) * t))
        staged, results = {}, {}
        for side, source in sides.items():
            _use_sources(source)
            staged[side] = _gpu_backend.stage(*args, ends=ends)
            results[side] = _results(staged[side], len(args[2]))
        # the pairs whose results every side gives as the base does
        equal = int(
            np.sum(np.all([np.all(r == results["base"], axis=1) for r in results.values()], axis=0))
        )
        times: dict[str, list[float]] = {side: [] for side in sides}
        for _ in range(rounds):
            for side in sides:
                times[side].append(_time_kernels(staged[side], repeats))
        tcups = {side: cells / statistics.median(times[side]) / 1e12 for side in sides}
        row = {"workload": name, "pairs": len(args[2]), "equal": equal, "tcups": tcups,
               "seconds": times}  # fmt: skip
        others = "  ".join(
            f"{side} {tcups[side]:.3f} x{tcups[side] / tcups['base']:.3f}"
            for side in sides
            if side != "base"
        )
        print(
            f"{name:14s} equal {equal}/{len(args[2])}  TCUPS base {tcups['base']:.3f}  {others}",
            flush=True,
        )
        if name.startswith("long"):
            row["launches"] = {}
            for side, launches in staged.items():
                alone = [_time_kernels([launch], repeats) for launch in launches]
                kinds = launch_breakdown(launches, alone, q, t)
                row["launches"][side] = kinds
                for kind in kinds:
                    print(f"    {side:4s} {kind_line(kind)}", flush=True)
        rows.append(row)
        del staged, results
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base", default="HEAD", help="git revision of the other kernels, or a folder of them"
    )
    parser.add_argument(
        "--tree",
        nargs="+",
        metavar="DIR[:columns=A/B][:blocks=N]",
        help="folders of kernel files for the other sides, each timed against the base in the "
        "same rounds, with the traceback's band columns and most band fill blocks of its own "
        "(default: one side, the package's own kernels)",
    )
    parser.add_argument("--data", type=Path, required=True, help="align-gpu --prepare-inputs")
    parser.add_argument("--database", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, help="JSON of the rows")
    parser.add_argument("--traceback", action="store_true", help="the traceback's kernels")
    parser.add_argument(
        "--only", nargs="+", default=[], help="workloads by name, such as '125 GL', 'protein 300'"
    )
    parser.add_argument(
        "--long-reads", type=int, default=0, help="the benchmark's long reads used (0: none)"
    )
    parser.add_argument(
        "--band-columns",
        type=int,
        nargs="+",
        help="with --traceback: the tree sides' band columns a thread, in order of preference "
        "(where a --tree gives none)",
    )
    parser.add_argument(
        "--fill-blocks",
        type=int,
        help="with --traceback: the tree sides' most band fill blocks a multiprocessor (where "
        "a --tree gives none)",
    )
    options = parser.parse_args()
    if options.long_reads and options.traceback:
        parser.error("--long-reads times the score kernels: not with --traceback")
    if options.band_columns and not options.traceback:
        parser.error("--band-columns is the traceback's band tile: only with --traceback")
    if options.fill_blocks is not None and not options.traceback:
        parser.error("--fill-blocks holds the traceback's band fills: only with --traceback")
    if options.fill_blocks is not None and options.fill_blocks < 1:
        parser.error("--fill-blocks: at least 1")
    unknown = sorted(set(options.only) - set(workload_names(options.traceback)))
    if unknown:
        parser.error(f"--only: no workload {unknown}; these: {workload_names(options.traceback)}")
    try:
        trees = [tree_side(spec) for spec in options.tree or []]
    except ValueError as error:
        parser.error(str(error))
    if not options.traceback and any(c or b is not None for _, c, b in trees):
        parser.error("--tree's columns and blocks are the traceback's band: only with --traceback")
    for spec, (tree, _, _) in zip(options.tree or [], trees, strict=True):
        missing = _missing_kernel_files(tree)
        if missing:
            parser.error(f"--tree {spec}: no {', '.join(missing)} (copy the whole folder)")
    # the other sides, by name: "tree" alone, else tree1, tree2, ... in the order given
    names = ["tree"] if len(trees) <= 1 else [f"tree{k}" for k in range(1, len(trees) + 1)]
    trees = trees or [(None, None, None)]
    told = options.tree or ["the package's kernels"]
    for name, spec in zip(names, told, strict=True):
        print(f"{name} = {spec}", flush=True)
    default_columns = tuple(options.band_columns) if options.band_columns else None
    with tempfile.TemporaryDirectory() as folder:
        base = Path(options.base)
        if not base.is_dir():
            base = Path(folder)
            _checkout(options.base, base)
        sides = {"base": base} | {name: t for name, (t, _, _) in zip(names, trees, strict=True)}
        if options.traceback:
            columns = {
                name: c or default_columns for name, (_, c, _) in zip(names, trees, strict=True)
            }
            most = {
                name: options.fill_blocks if b is None else b
                for name, (_, _, b) in zip(names, trees, strict=True)
            }
            rows = _ab_traceback(
                options.data, sides, options.rounds, options.repeats, options.only, columns,
                most,
            )  # fmt: skip
        else:
            rows = _ab_scores(
                options.data, options.database, sides, options.rounds, options.repeats,
                options.only, options.long_reads,
            )  # fmt: skip
    if options.out:
        sides_told = {"base": options.base} | dict(zip(names, told, strict=True))
        options.out.write_text(json.dumps({"sides": sides_told, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
