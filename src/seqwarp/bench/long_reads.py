"""Long-read workload: PBSIM CLR reads against the genome regions they were simulated from.

PBSIM 1.0.3 (Debian package ``pbsim``, the version the AnySeq/GPU paper used) simulates reads
of a genome with its continuous-long-read (CLR) error profile and writes, beside the FASTQ, a
MAF alignment that says where each read came from. :func:`prepare` keeps the first ``count``
reads and writes two FASTA files, pair ``i`` being ``reads[i]`` and ``regions[i]``: the
genome region the read covers, reverse-complemented for reads of the reverse strand (so both
sides of a pair read in the same direction). The files are gzipped: they travel to the GPU
machine, which has no PBSIM.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..sequences import SequenceBatch, read_sequences

__all__ = ["LongReadSet", "load", "parse_maf_sources", "prepare", "write_fasta"]

READS, REGIONS = "long_reads.fa.gz", "long_read_regions.fa.gz"
# the CLR quality model of the Debian package (PBSIM's own data/model_qc_clr)
_MODEL = "/usr/share/pbsim/models/model_qc_clr"
_COMPLEMENT = bytes.maketrans(b"ACGTN", b"TGCAN")


@dataclass(frozen=True)
class LongReadSet:
    """Reads and the regions they came from, aligned pair by pair."""

    reads: SequenceBatch
    regions: SequenceBatch

    @property
    def cells(self) -> int:
        return int(np.sum(self.reads.lengths * self.regions.lengths))


def parse_maf_sources(lines: Iterable[str]) -> list[tuple[str, int, int, str]]:
    """(read name, region start, region length, read strand) of each block of a PBSIM MAF.

    A block is two ``s`` lines: the reference (always ``+``) then the read, whose strand says
    whether the read is the region itself or its reverse complement.
    """
    sources = []
    reference: list[str] | None = None
    for line in lines:
        if not line.startswith("s "):
            continue
        fields = line.split(maxsplit=6)
        if reference is None:
            reference = fields
            continue
        sources.append((fields[1], int(reference[2]), int(reference[3]), fields[4]))
        reference = None
    return sources


def write_fasta(path: str | os.PathLike[str], records: Iterable[tuple[str, bytes]]) -> None:
    """Write ``(name, sequence)`` records as gzipped FASTA (one line per sequence; the
    timestamp left out, so equal inputs give equal files)."""
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        for name, sequence in records:
            handle.write(b">" + name.encode() + b"\n" + sequence + b"\n")


def prepare(
    genome: np.ndarray,
    genome_name: str,
    out: str | os.PathLike[str],
    *,
    count: int = 2500,
    seed: int = 1,
    length: tuple[int, int] = (4000, 60000),
    length_mean: int = 9000,
    length_sd: int = 5000,
) -> dict[str, object]:
    """Simulate CLR reads of ``genome`` with PBSIM, keep the first ``count`` and write the
    reads and their regions into ``out``; returns the facts for the inputs' manifest."""
    pbsim = shutil.which("pbsim")
    if pbsim is None:
        raise RuntimeError("PBSIM is not installed: apt-get install pbsim")
    # enough depth for ``count`` reads of the mean length, with a margin
    depth = 1.2 * count * length_mean / len(genome)
    command = [
        pbsim,
        "--data-type",
        "CLR",
        "--depth",
        f"{depth:.3f}",
        "--length-min",
        str(length[0]),
        "--length-max",
        str(length[1]),
        "--length-mean",
        str(length_mean),
        "--length-sd",
        str(length_sd),
        "--model_qc",
        _MODEL,
        "--seed",
        str(seed),
        "--prefix",
        "sim",
    ]
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "genome.fa"), "wb") as handle:
            handle.write(b">genome\n" + genome.tobytes() + b"\n")
        subprocess.run(
            [*command, "genome.fa"], cwd=work, check=True, capture_output=True, text=True
        )
        with open(os.path.join(work, "sim_0001.maf"), encoding="ascii") as handle:
            sources = parse_maf_sources(handle)[:count]
        reads = _fastq_sequences(os.path.join(work, "sim_0001.fastq"), len(sources))
    if len(sources) < count:
        raise RuntimeError(f"PBSIM gave {len(sources)} reads, fewer than the {count} asked for")
    regions = []
    for name, start, size, strand in sources:
        region = genome[start : start + size].tobytes()
        regions.append((f"{name} {start}-{start + size}{strand}", _oriented(region, strand)))
    os.makedirs(out, exist_ok=True)
    write_fasta(os.path.join(out, READS), [(name, reads[name]) for name, *_ in sources])
    write_fasta(os.path.join(out, REGIONS), regions)
    lengths = np.array([len(reads[name]) for name, *_ in sources])
    return {
        "files": [READS, REGIONS],
        "genome": genome_name,
        "simulator": "PBSIM 1.0.3 (Debian pbsim), CLR model",
        "command": " ".join(["pbsim", *command[1:], "genome.fa"]),
        "reads": count,
        "read_length_mean": round(float(lengths.mean()), 1),
        "read_length_min": int(lengths.min()),
        "read_length_max": int(lengths.max()),
    }


def _oriented(region: bytes, strand: str) -> bytes:
    """The region as the read reads it: reverse-complemented for a read of the ``-`` strand."""
    return region.translate(_COMPLEMENT)[::-1] if strand == "-" else region


def _fastq_sequences(path: str, count: int) -> dict[str, bytes]:
    """Name -> sequence of the first ``count`` records of a FASTQ file."""
    out: dict[str, bytes] = {}
    with open(path, "rb") as handle:
        while len(out) < count:
            header = handle.readline()
            if not header:
                break
            sequence = handle.readline().rstrip()
            handle.readline()
            handle.readline()
            out[header[1:].split()[0].decode()] = sequence.upper()
    return out


def load(folder: str | os.PathLike[str]) -> LongReadSet:
    """The reads and regions :func:`prepare` wrote into ``folder``."""
    reads = read_sequences(os.path.join(folder, READS), "dna")
    regions = read_sequences(os.path.join(folder, REGIONS), "dna")
    if len(reads) != len(regions):
        raise ValueError(f"{folder}: {len(reads)} reads but {len(regions)} regions")
    return LongReadSet(reads, regions)
