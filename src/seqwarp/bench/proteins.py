"""Protein database workload: real proteomes, grown to a million sequences with shuffles.

The real sequences are prokka's genus databases (Debian package ``prokka``: curated protein
FASTA of *Enterococcus*, *Escherichia* and *Staphylococcus*, about 11,000 proteins). A
database of ``size`` sequences holds them all, then shuffles of them in turn (sequence
``k`` past the real ones is a shuffle of real sequence ``k mod count``): the same lengths and
residue composition as real proteins, without their homology, as the database searches of
CUDASW++ and SWIPE pad theirs. Shuffles are generated where the benchmark runs, from a seeded
numpy generator, so only the real proteomes travel.

Index letters: ``s`` = database sequence, ``i`` = position in it.
"""

from __future__ import annotations

import glob
import os

import numpy as np

from .._jit import parallel_jit, prange
from ..sequences import SequenceBatch, read_sequences
from .long_reads import write_fasta

__all__ = ["PROKKA_GENUS", "QUERY_LENGTHS", "load", "pick_queries", "prepare", "shuffled_database"]

PROTEOMES = "proteomes.fa.gz"
# query lengths of the database search: one real protein of each
QUERY_LENGTHS = (100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
# where Debian's prokka package keeps its genus protein databases (plain FASTA)
PROKKA_GENUS = "/usr/share/prokka/db/genus"


def prepare(out: str | os.PathLike[str], source: str = PROKKA_GENUS) -> dict[str, object]:
    """Copy the proteomes of ``source`` (a folder of protein FASTA files) into one gzipped
    FASTA in ``out``, checked against the protein alphabet; returns the manifest's facts."""
    paths = sorted(glob.glob(os.path.join(source, "*")))
    if not paths:
        raise RuntimeError(f"no proteomes in {source}: apt-get install prokka")
    records: list[tuple[str, bytes]] = []
    genera = {}
    for path in paths:
        batch = read_sequences(path, "protein")  # refuses a residue seqwarp cannot read
        genus = os.path.basename(path)
        genera[genus] = len(batch)
        records += [
            (f"{genus}|{name}", batch.sequence(k).encode()) for k, name in enumerate(batch.names)
        ]
    os.makedirs(out, exist_ok=True)
    write_fasta(os.path.join(out, PROTEOMES), records)
    lengths = np.array([len(sequence) for _, sequence in records])
    return {
        "files": [PROTEOMES],
        "source": "prokka genus databases (Debian package prokka)",
        "sequences": genera,
        "residues": int(lengths.sum()),
    }


def load(folder: str | os.PathLike[str]) -> SequenceBatch:
    """The real proteomes :func:`prepare` wrote into ``folder``."""
    return read_sequences(os.path.join(folder, PROTEOMES), "protein")


def shuffled_database(real: SequenceBatch, size: int, seed: int = 0) -> SequenceBatch:
    """``real`` followed by shuffles of its sequences, ``size`` sequences in all."""
    real = real.compact()
    count = len(real)
    lengths = real.lengths[np.arange(size, dtype=np.int64) % count]
    offsets = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # sequence s is a copy of real sequence s mod count: whole copies of the buffer, then a part
    cycles, rest = divmod(size, count)
    codes = np.concatenate([np.tile(real.codes, cycles), real.codes[: real.offsets[rest]]])
    kept = min(count, size)
    first = int(offsets[kept])
    draws = np.random.default_rng(seed).integers(
        0, 1 << 32, size=len(codes) - first, dtype=np.uint32
    )
    _shuffle_segments(codes, offsets[kept:] - first, draws, first)
    names = real.names[:kept] + tuple(
        f"shuffle{s}_of_{real.names[s % count]}" for s in range(count, size)
    )
    return SequenceBatch(codes, offsets, names, real.alphabet)


@parallel_jit
def _shuffle_segments(
    codes: np.ndarray, offsets: np.ndarray, draws: np.ndarray, first: int
) -> None:
    """Fisher-Yates shuffle of each segment ``first + offsets[s] .. first + offsets[s + 1]``
    of ``codes``, position ``i`` swapped with ``draws[i] mod (i + 1)``: the result does not
    depend on the number of threads."""
    for s in prange(len(offsets) - 1):
        begin, end = offsets[s], offsets[s + 1]
        for i in range(end - begin - 1, 0, -1):
            j = np.int64(draws[begin + i]) % (i + 1)
            a, b = first + begin + i, first + begin + j
            codes[a], codes[b] = codes[b], codes[a]


def pick_queries(real: SequenceBatch, lengths: list[int]) -> SequenceBatch:
    """One real protein per requested length: the first of the closest length."""
    have = real.lengths
    chosen = [int(np.argmin(np.abs(have - length))) for length in lengths]
    return real.take(chosen)
