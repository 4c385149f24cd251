"""``python -m seqwarp.bench hmm``: seqwarp hmmsearch vs pyhmmer vs HMMER's ``hmmsearch``.

All three run the same searches on the same cores in one run, each from the files on disk to
its hit tables; the record keeps the wall-clock times, the speed in Mcells/s (model length x
database residues) and whether the three sets of tables are identical (apart from ``#``).

Queries: the protein models of pyhmmer's test data, plus HMMER's tutorial and test-suite models
where Debian's ``hmmer-examples`` is installed. Databases: pyhmmer's 2,100-protein
*Anaerococcus* set, plus Debian ``prokka``'s genus proteomes where installed.
Needs ``pip install hmmer`` (the ``hmmsearch`` binary) and matplotlib (``seqwarp[bench]``).
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pyhmmer
from pyhmmer.easel import SequenceFile
from pyhmmer.plan7 import HMMFile

from .._jit import set_threads
from ..hmm import hmmsearch
from ..hmm.tables import table
from .report import (
    bar_chart,
    load_average,
    machine_info,
    print_table,
    result_stem,
    source_digest,
    usable_cores,
    write_json,
)

__all__ = ["main"]

PYHMMER_DATA = Path(pyhmmer.__file__).resolve().parent / "tests" / "data"
EXAMPLES = Path("/usr/share/doc/hmmer/examples")
GENUS = Path("/usr/share/prokka/db/genus")
PYHMMER_MODELS = ("PF02826", "Thioesterase", "KR", "LuxC", "RREFam")
EXAMPLE_MODELS = (
    "tutorial/Pkinase", "tutorial/fn3", "tutorial/globins4", "testsuite/RRM_1",
    "testsuite/SMC_N", "testsuite/Caudal_act", "testsuite/Patched", "testsuite/2OG-FeII_Oxy_3",
)  # fmt: skip


def _model_files() -> list[Path]:
    files = [PYHMMER_DATA / "hmms" / "txt" / f"{name}.hmm" for name in PYHMMER_MODELS]
    for name in EXAMPLE_MODELS:
        for path in (EXAMPLES / f"{name}.hmm", EXAMPLES / f"{name}.hmm.gz"):
            if path.exists():
                files.append(path)
    return files


def _workloads(work: Path, copies: int) -> list[tuple[str, Path, Path]]:
    """(label, query file, database file): all models in one file, then the largest alone."""
    models = []
    for path in _model_files():
        with HMMFile(str(path)) as handle:
            models.extend(handle)
    everything = work / "all.hmm"
    with open(everything, "wb") as handle:
        for hmm in models:
            hmm.write(handle)
    largest = max(models, key=lambda hmm: hmm.M)
    single = work / "largest.hmm"
    with open(single, "wb") as handle:
        largest.write(handle)
    database = work / "proteomes.faa"
    sources = [PYHMMER_DATA / "seqs" / "938293.PRJEB85.HG003687.faa"]
    sources += sorted(GENUS.glob("*")) if GENUS.is_dir() else []
    with open(database, "wb") as out:
        for copy in range(copies):
            for source in sources:
                opener = gzip.open if source.suffix == ".gz" else open
                with opener(source, "rb") as handle:
                    data = handle.read()
                out.write(data.replace(b">", f">c{copy}_".encode()) if copies > 1 else data)
    return [
        (f"{len(models)} models (sum M={sum(h.M for h in models)})", everything, database),
        (f"{largest.name} (M={largest.M})", single, database),
    ]


def _seqwarp(hmmfile: Path, database: Path, threads: int) -> list[str]:
    set_threads(threads)
    results = hmmsearch(hmmfile, database)
    return _strip(table(results, "domains", {}))


def _pyhmmer(hmmfile: Path, database: Path, threads: int) -> list[str]:
    with HMMFile(str(hmmfile)) as handle:
        models = list(handle)
    with SequenceFile(str(database), digital=True, alphabet=models[0].alphabet) as handle:
        targets = handle.read_block()
    buffer = io.BytesIO()
    hits = pyhmmer.hmmer.hmmsearch(models, targets, cpus=threads)
    for index, found in enumerate(hits):
        found.write(buffer, format="domains", header=index == 0)
    return _strip(buffer.getvalue().decode())


def _binary(hmmfile: Path, database: Path, threads: int) -> list[str]:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "domtbl"
        subprocess.run(
            ["hmmsearch", "--cpu", str(threads), "--noali", "-o", os.devnull,
             "--domtblout", str(out), str(hmmfile), str(database)],
            check=True,
        )  # fmt: skip
        return _strip(out.read_text())


def _strip(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


TOOLS: dict[str, Callable[[Path, Path, int], list[str]]] = {
    "seqwarp": _seqwarp,
    "pyhmmer": _pyhmmer,
    "hmmsearch": _binary,
}


def _cells(hmmfile: Path, database: Path) -> int:
    with HMMFile(str(hmmfile)) as handle:
        total_m = sum(hmm.M for hmm in handle)
    with SequenceFile(str(database), digital=True) as handle:
        residues = sum(len(s) for s in handle.read_block())
    return total_m * residues


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m seqwarp.bench hmm", description=__doc__)
    parser.add_argument(
        "--threads",
        type=int,
        nargs="+",
        help="cores for every tool; several counts run one after the other (default: all usable)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per tool; median (3)")
    parser.add_argument("--copies", type=int, default=1, help="copies of the database (1)")
    parser.add_argument("--out", default="bench/results", help="folder of JSON/PNG records")
    return parser


def _case(label: str, hmmfile: Path, database: Path, threads: int, repeats: int) -> dict:
    """One workload on ``threads`` cores: every tool ``repeats`` times, interleaved."""
    cells = _cells(hmmfile, database)
    _seqwarp(hmmfile, database, threads)  # compile the numba kernels first
    timings: dict[str, list[float]] = {name: [] for name in TOOLS}
    outputs: dict[str, list[str]] = {}
    for _ in range(repeats):
        for name, tool in TOOLS.items():  # interleaved, so load drifts hit all alike
            start = time.perf_counter()
            outputs[name] = tool(hmmfile, database, threads)
            timings[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in timings.items()}
    return {
        "workload": label,
        "cells": cells,
        "threads": threads,
        "seconds": medians,
        "runs": timings,
        "mcells_per_s": {n: cells / s / 1e6 for n, s in medians.items()},
        "tables_identical": outputs["seqwarp"] == outputs["pyhmmer"] == outputs["hmmsearch"],
        "domain_rows": len(outputs["hmmsearch"]),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run every workload with every tool; 0 when all tables agree, 1 otherwise."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    thread_counts = args.threads or [usable_cores()]
    if shutil.which("hmmsearch") is None:
        print("seqwarp.bench hmm: needs the hmmsearch binary (pip install hmmer)", file=sys.stderr)
        return 2
    load_before = load_average()
    with tempfile.TemporaryDirectory() as work:
        workloads = _workloads(Path(work), args.copies)
        cases = [
            _case(label, hmmfile, database, threads, args.repeats)
            for threads in thread_counts
            for label, hmmfile, database in workloads
        ]
    rows = [
        [case["workload"], case["threads"], name, seconds, case["mcells_per_s"][name],
         case["seconds"]["pyhmmer"] / seconds, "yes" if case["tables_identical"] else "NO"]
        for case in cases
        for name, seconds in case["seconds"].items()
    ]  # fmt: skip
    print_table(
        f"hmmsearch (median of {args.repeats})",
        ["workload", "threads", "tool", "seconds", "Mcells/s", "speed vs pyhmmer", "identical"],
        rows,
    )
    stem = result_stem(args.out, "hmm")
    write_json(
        f"{stem}.json",
        {
            "benchmark": "hmm",
            "argv": list(argv or []),
            "machine": machine_info(),
            "load_average_before": load_before,
            "load_average_after": load_average(),
            "source": source_digest("seqwarp.hmm"),
            "cases": cases,
        },
    )
    labels = [f"{case['workload']}, {case['threads']} thr." for case in cases]
    series = {name: [case["seconds"][name] for case in cases] for name in TOOLS}
    bar_chart(f"{stem}.png", "hmmsearch wall time", {"seconds": (labels, series)}, "seconds")
    print(f"wrote {stem}.json and {stem}.png")
    return 0 if all(case["tables_identical"] for case in cases) else 1
