"""Run the walk kernel on Python strings, for hand-built cases."""

from __future__ import annotations

import numpy as np

from seqwarp.assembly.pack import pack_ends
from seqwarp.assembly.walk import WalkOut, WalkParams, run_walks
from seqwarp.sequences import SequenceBatch

OUTCOME_LETTERS = {0: "X", 1: "F", 2: "R", 3: "L", -1: "-"}


def params(k: int = 21, limit: int = 200, **strict) -> WalkParams:
    """MHM2's constants with the round's k, a walk limit and optional stricter choices."""
    return WalkParams(k, 21, 121, 8, limit, 33, 10, 20, 0.2, 0.3)._replace(**strict)


def read_batch(reads: list[tuple[str, str]]) -> SequenceBatch:
    """Reads (sequence, Phred+33 qualities) as a batch with qualities."""
    batch = SequenceBatch.from_strings([s for s, _ in reads])
    quals = np.frombuffer("".join(q for _, q in reads).encode(), dtype=np.uint8)
    return SequenceBatch(batch.codes, batch.offsets, batch.names, batch.alphabet, quals)


def walk_ends(
    ends: list[tuple[str, list[tuple[str, str]], int]], k: int = 21, limit: int = 200, **strict
) -> WalkOut:
    """Walk several ends given as (sequence, [(read, quals)], depth)."""
    batch = read_batch([r for _, rs, _ in ends for r in rs])
    seqs = SequenceBatch.from_strings([s for s, _, _ in ends])
    reads_in, ends_in = pack_ends(
        [seqs[i] for i in range(len(seqs))],
        np.array([d for _, _, d in ends]),
        batch,
        np.array([len(rs) for _, rs, _ in ends]),
        121,
    )
    return run_walks(reads_in, ends_in, params(k, limit, **strict))


def walk_one(
    contig: str,
    reads: list[tuple[str, str]],
    depth: int = 0,
    k: int = 21,
    limit: int = 200,
    **strict,
) -> tuple[str, str, int, int]:
    """(outcome letter, walk, k of the longest walk, iterations) for one end."""
    out = walk_ends([(contig, reads, depth)], k, limit, **strict)
    walked = "".join("ACGT"[b] for b in out.bases[0, : out.length[0]])
    return OUTCOME_LETTERS[int(out.outcome[0])], walked, int(out.k[0]), int(out.iterations[0])
