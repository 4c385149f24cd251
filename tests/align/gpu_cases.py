"""Inputs shared by the GPU tests: batches from code arrays, the test scorings, mutated copies,
the DNA tiles whose stripes are not a power of two wide; the comparison of two backends'
alignments."""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from seqwarp.align import Cigars, _gpu_backend
from seqwarp.alphabets import Alphabet
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch

GAPS = {"linear": (1, 1), "affine": (2, 1)}  # DNA (gap_open, gap_extend)
PROTEIN_GAPS = {"linear": (4, 4), "affine": (11, 1)}
# (threads, columns a thread) of 20 or 24 columns: stripes not a power of two wide
ODD_TILES = [(g, k) for g, k in _gpu_backend._TILES_DNA if (g * k) & (g * k - 1)]
# the kernels run on the CPU emulator (tests/emulator), some thousand times slower than a GPU
EMULATED = os.environ.get("SEQWARP_GPU_EMULATOR") == "1"


def scaled(count: int, least: int = 300) -> int:
    """A case's number of pairs: ``count`` on a GPU; on the emulator a fiftieth of it, at
    least ``least``, which still takes every kernel path the case is for."""
    return max(least, count // 50) if EMULATED else count


def batch(sequences: list[np.ndarray], alphabet: Alphabet) -> SequenceBatch:
    """One batch of the given code arrays, named by their index."""
    offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sequences], out=offsets[1:])
    codes = np.concatenate(sequences) if sequences else np.empty(0, dtype=np.uint8)
    names = tuple(str(i) for i in range(len(sequences)))
    return SequenceBatch(codes.astype(np.uint8), offsets, names, alphabet)


def scoring_for(alphabet: str, gap: str = "affine") -> Scoring:
    """DNA +2/-1 with gaps 1/1 or 2/1; protein BLOSUM62 with gaps 4/4 or 11/1."""
    if alphabet == "dna":
        return Scoring.dna(match=2, mismatch=-1, gap_open=GAPS[gap][0], gap_extend=GAPS[gap][1])
    go, ge = PROTEIN_GAPS[gap]
    return Scoring.from_matrix("BLOSUM62", gap_open=go, gap_extend=ge)


def mutate(rng: np.random.Generator, source: np.ndarray, letters: int, rate: float) -> np.ndarray:
    """A copy of ``source`` with substitutions and single-residue insertions and deletions
    (each about ``rate / 3`` per residue)."""
    r = rng.random(len(source))
    keep = r >= rate / 3
    out = np.where(r < rate, rng.integers(letters, size=len(source)), source)[keep]
    inserts = rng.random(len(out)) < rate / 3
    if inserts.any():
        added = rng.integers(letters, size=int(inserts.sum()))
        out = np.insert(out, np.flatnonzero(inserts), added)
    return out.astype(np.uint8)


def assert_same_alignments(
    queries: list,
    targets: list,
    expected: tuple[np.ndarray, Cigars],
    got: tuple[np.ndarray, Cigars],
) -> None:
    """Every pair's fields and CIGAR in ``got`` equal to ``expected``'s (the CPU backend's),
    the first difference reported with the pair's lengths."""
    (cpu_fields, cpu_cigars), (gpu_fields, gpu_cigars) = expected, got
    bad = np.flatnonzero(np.any(cpu_fields != gpu_fields, axis=1))
    bad = np.union1d(bad, [p for p in range(len(cpu_cigars)) if cpu_cigars[p] != gpu_cigars[p]])
    fail_on_differences(
        bad,
        queries,
        targets,
        lambda p: (
            f"cpu={cpu_fields[p].tolist()} {cpu_cigars[p][:80]} "
            f"gpu={gpu_fields[p].tolist()} {gpu_cigars[p][:80]}"
        ),
    )


def fail_on_differences(
    bad: np.ndarray, queries: list, targets: list, describe: Callable[[int], str]
) -> None:
    """Fail when ``bad`` (the pairs that differ) is not empty, naming how many of the pairs
    differ and the first one: its lengths and ``describe(pair)``."""
    if len(bad):
        p = int(bad[0])
        raise AssertionError(
            f"{len(bad)} of {len(queries)} pairs differ; first: pair {p} "
            f"(m={len(queries[p])}, n={len(targets[p])}) {describe(p)}"
        )
