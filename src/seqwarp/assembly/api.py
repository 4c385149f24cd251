"""Extend contig ends with the reads that overhang them: what users call.

>>> result = extend_contigs("contigs.fa", "reads_1.fq", "reads_2.fq")  # doctest: +SKIP
>>> result.describe()  # doctest: +SKIP

Reads are mapped to the contig ends (seqwarp's aligner, or a SAM/BAM given as
``alignments=``), the reads of each end are chosen and oriented by MetaHipMer2's rules, and each
end is extended by mer-walks with k shifts: right ends first, then left ends of the
right-extended contigs.

The default options reproduce MetaHipMer2; ``options=LocalAssemblyOptions.preset("strict")``
trades length for accuracy (see :mod:`seqwarp.assembly.options`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import dnaio
import numpy as np

from .._jit import set_threads
from ..alphabets import Alphabet
from ..errors import InvalidParameter, LengthMismatch, SequenceFileError
from ..sequences import SequenceBatch, as_batch, read_sequences
from .candidates import map_reads, oriented_reads
from .depth import coverage_depths, header_depths
from .insert import estimate_insert_size
from .options import LocalAssemblyOptions
from .pack import pack_ends
from .select import LEFT, RIGHT, Alignments, SideReads, best_per_read, select_reads
from .walk import WalkOut, WalkParams, run_walks

__all__ = ["DepthSource", "EndReport", "ExtendResult", "extend_contigs"]

DepthSource = Literal["auto", "headers", "coverage"]
Input = SequenceBatch | Sequence[str] | str | os.PathLike

OUTCOMES = {0: "X", 1: "F", 2: "R", 3: "L", -1: "-"}
DEFAULT_WINDOW = 1000


@dataclass(frozen=True, eq=False)
class EndReport:
    """One row per contig end with reads: which contig and side, its reads and the walk's result.

    ``outcome``: ``X`` dead end, ``F`` fork, ``R`` repeat, ``L`` walk length limit (an ``X``
    for MetaHipMer2), ``-`` not walked (the contig is shorter than k).
    """

    contig: np.ndarray
    side: np.ndarray
    reads: np.ndarray
    depth: np.ndarray
    k: np.ndarray
    extension: np.ndarray
    outcome: list[str]
    iterations: np.ndarray
    outcomes_seen: np.ndarray


@dataclass(frozen=True, eq=False)
class ExtendResult:
    """Extended contigs (same order and names) and what happened at each end.

    ``sequences`` are the contigs as written: the input text unchanged (case, IUPAC codes and
    ``U`` kept) with the new bases added; ``contigs`` holds the same as codes, where every
    ambiguity code reads as ``N``.
    """

    contigs: SequenceBatch
    sequences: tuple[str, ...]
    ends: EndReport
    insert_size: tuple[int, int] | None
    walk_limit: int
    depth_source: str
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        """A one-paragraph summary: ends walked, bases added, outcomes."""
        added = int(self.ends.extension.sum())
        outcomes = {o: self.ends.outcome.count(o) for o in "XFRL-"}
        unwalked = outcomes["-"]
        skipped = f" ({unwalked} with reads not walked: contig shorter than k)" if unwalked else ""
        return (
            f"{len(self.ends.outcome) - unwalked} contig ends walked{skipped}, "
            f"{added} bases added; "
            f"outcomes X={outcomes['X']} F={outcomes['F']} R={outcomes['R']} "
            f"limit={outcomes['L']}; insert size {self.insert_size}, walk limit "
            f"{self.walk_limit}, depth from {self.depth_source}"
        )


def extend_contigs(
    contigs: Input,
    reads_1: Input,
    reads_2: Input | None = None,
    *,
    alignments: Alignments | str | os.PathLike | None = None,
    insert_size: tuple[int, int] | None = None,
    depth: DepthSource | np.ndarray = "auto",
    options: LocalAssemblyOptions | None = None,
    threads: int | None = None,
    keep_short_contigs: bool = False,
) -> ExtendResult:
    """Extend every contig end by MetaHipMer2's local assembly (see the module docstring).

    ``insert_size`` is ``(mean, stddev)``; without it, it is estimated from pairs that align
    to one contig (single-end reads need it: it sets the walk length limit). Contigs shorter
    than ``options.k`` are an error unless ``keep_short_contigs`` (then they pass unchanged).
    """
    options = options or LocalAssemblyOptions()
    _check_threads(threads)
    set_threads(threads)
    clock = [time.perf_counter()]
    ctgs, texts = _load_contigs(contigs)
    _check_contig_lengths(ctgs, contigs, options.k, keep_short_contigs)
    _check_depth(depth, ctgs)
    reads, paired = _load_reads(reads_1, reads_2)
    alns, covered = _alignments(alignments, ctgs, reads, paired, insert_size, threads)
    clock.append(time.perf_counter())
    best = best_per_read(alns, options.best_alignment_ties)
    if insert_size is None:
        if not paired:
            raise InvalidParameter(
                "insert_size", None, hint="single-end reads need the insert size as MEAN:STDDEV"
            )
        insert_size = estimate_insert_size(best)
    mean, stddev = (int(v) for v in insert_size)
    if mean <= 0 or stddev < 0:
        raise InvalidParameter("insert_size", insert_size, hint="expected MEAN > 0, STDDEV >= 0")
    depths, source = _depths(depth, contigs, ctgs, best, covered)
    chosen = select_reads(alns, reads.lengths, options, mean + 3 * stddev if paired else None)
    walk_limit = mean + 2 * stddev
    params = _walk_params(options, walk_limit)
    both = oriented_reads(reads)
    int_depths = np.trunc(depths).astype(np.int64)
    seqs = [ctgs[i] for i in range(len(ctgs))]
    reports = []
    for side in (RIGHT, LEFT):
        ends, out, per_end = _walk_side(seqs, side, chosen, both, len(reads), int_depths, params)
        _add_walks(seqs, texts, side, ends, out, ctgs.alphabet)
        reports.append((side, ends, out, per_end))
    clock.append(time.perf_counter())
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in seqs], out=offsets[1:])
    codes = np.concatenate(seqs) if seqs else np.zeros(0, dtype=np.uint8)
    extended = SequenceBatch(codes, offsets, ctgs.names, ctgs.alphabet)
    counts = {
        "reads": len(reads),
        "short_reads": int((reads.lengths < options.min_read_length).sum()),
        "alignments": len(alns.read),
        "direct": chosen.direct,
        "projected": chosen.projected,
        "excess_reads": chosen.excess,
    }
    seconds = {"load_and_map": clock[1] - clock[0], "select_and_walk": clock[2] - clock[1]}
    return ExtendResult(
        extended,
        tuple(texts),
        _end_report(reports, int_depths),
        (mean, stddev),
        walk_limit,
        source,
        counts,
        seconds,
    )


# --- inputs -------------------------------------------------------------------------------


def _label(source: Input, default: str) -> str:
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else default


def _check_threads(threads: int | None) -> None:
    """``None`` (all cores) or a whole number >= 1, as on the command line."""
    if threads is None:
        return
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise InvalidParameter(
            "threads", threads, hint="expected a value >= 1 (leave it out for all cores)"
        )


def _load_contigs(contigs: Input) -> tuple[SequenceBatch, list[str]]:
    """The contigs as codes, and as the text given (written back unchanged but for extensions)."""
    if isinstance(contigs, (str, os.PathLike)):
        batch = read_sequences(contigs, "dna")
        with dnaio.open(os.fspath(contigs)) as reader:
            return batch, [record.sequence for record in reader]
    batch = as_batch(contigs, "dna", "contigs")
    if isinstance(contigs, SequenceBatch):
        return batch, [batch.sequence(i) for i in range(len(batch))]
    return batch, [s if isinstance(s, str) else bytes(s).decode("ascii") for s in contigs]


def _check_contig_lengths(ctgs: SequenceBatch, source: Input, k: int, keep: bool) -> None:
    short = np.flatnonzero(ctgs.lengths < k)
    if len(short) and not keep:
        i = int(short[0])
        raise SequenceFileError(
            _label(source, "contigs"),
            f"record {ctgs.names[i]!r} (#{i}) is {int(ctgs.lengths[i])} bp, shorter than "
            f"k={k} ({len(short)} contig(s) in all)",
        )


def _load_one(reads: Input, label: str) -> SequenceBatch:
    if isinstance(reads, (str, os.PathLike)):
        return read_sequences(reads, "dna", require_qualities=True)
    batch = as_batch(reads, "dna", label)
    if batch.qualities is None:
        raise SequenceFileError(label, "has no base qualities (FASTQ is required)")
    return batch


def _load_reads(reads_1: Input, reads_2: Input | None) -> tuple[SequenceBatch, bool]:
    """All reads in one batch; pairs interleaved so that mates are ``2p`` and ``2p + 1``."""
    first = _load_one(reads_1, _label(reads_1, "reads_1"))
    if reads_2 is None:
        return first.compact(), False
    second = _load_one(reads_2, _label(reads_2, "reads_2"))
    labels = f"{_label(reads_1, 'reads_1')} and {_label(reads_2, 'reads_2')}"
    if len(first) != len(second):
        raise LengthMismatch(labels, len(first), len(second))
    _check_mates(first.names, second.names, labels)
    a, b = first.compact(), second.compact()
    offsets = np.concatenate([a.offsets, a.offsets[-1] + b.offsets[1:]])
    joined = SequenceBatch(
        np.concatenate([a.codes, b.codes]),
        offsets,
        a.names + b.names,
        a.alphabet,
        np.concatenate([a.qualities, b.qualities]),
    )
    n = len(a)
    order = np.empty(2 * n, dtype=np.int64)
    order[0::2] = np.arange(n)
    order[1::2] = np.arange(n, 2 * n)
    return joined.take(order), True


def _pair_name(name: str) -> str:
    """A read's name up to the first whitespace, without a trailing ``/1`` or ``/2``."""
    name = (name.split(maxsplit=1) or [name])[0]
    return name[:-2] if name.endswith(("/1", "/2")) else name


def _check_mates(first: Sequence[str], second: Sequence[str], labels: str) -> None:
    """Record ``i`` of both files must be mates (same name), else the pairs would be nonsense."""
    for i, (one, two) in enumerate(zip(first, second, strict=True)):
        if _pair_name(one) != _pair_name(two):
            raise SequenceFileError(
                labels,
                f"record #{i} is {one!r} in the first file but {two!r} in the second; "
                "mates must have the same name, in the same order",
            )


def _alignments(
    alignments: Alignments | str | os.PathLike | None,
    ctgs: SequenceBatch,
    reads: SequenceBatch,
    paired: bool,
    insert_size: tuple[int, int] | None,
    threads: int | None,
) -> tuple[Alignments, np.ndarray]:
    """The alignments (given, read from SAM/BAM, or mapped) and the contig bases they cover."""
    if isinstance(alignments, Alignments):
        return alignments, ctgs.lengths
    if alignments is not None:
        from .sam import read_alignments

        contig_index = {name: i for i, name in enumerate(ctgs.names)}
        read_index = _read_index(reads, paired)
        alns = read_alignments(alignments, contig_index, ctgs.lengths, read_index, paired)
        return alns, ctgs.lengths
    window = DEFAULT_WINDOW
    if insert_size is not None:
        window = max(window, insert_size[0] + 3 * insert_size[1])
    window += int(reads.lengths.max())
    return map_reads(ctgs, reads, window, threads), np.minimum(ctgs.lengths, 2 * window)


def _walk_params(options: LocalAssemblyOptions, walk_limit: int) -> WalkParams:
    """The scalars the walk kernel reads, from the options and the walk length limit."""
    return WalkParams(
        options.k,
        options.min_k,
        options.max_k,
        options.k_shift,
        walk_limit,
        options.qual_offset,
        options.min_qual,
        options.hi_qual,
        float(options.min_viable_depth),
        float(options.min_expected_depth),
        options.min_votes,
        options.min_hiq_votes,
        options.min_rating,
        float(options.fork_ratio),
        float(options.rival_ratio),
    )


def _read_index(reads: SequenceBatch, paired: bool) -> dict[str, int]:
    """Read (pair) name without ``/1``/``/2`` -> read index (pair index for pairs)."""
    names = reads.names[::2] if paired else reads.names
    return {_pair_name(n): i for i, n in enumerate(names)}


def _check_depth(depth: DepthSource | np.ndarray, ctgs: SequenceBatch) -> None:
    """A known depth source, or one finite depth >= 0 per contig (checked before any work)."""
    if isinstance(depth, str):
        if depth not in ("auto", "headers", "coverage"):
            raise InvalidParameter("depth", depth, choices=["auto", "headers", "coverage"])
        return
    values = np.asarray(depth, dtype=np.float64)
    if values.shape != (len(ctgs),):
        raise LengthMismatch("depths and contigs", values.size, len(ctgs))
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if len(bad):
        i = int(bad[0])
        raise InvalidParameter(
            "depth",
            float(values[i]),
            hint=f"expected a finite value >= 0 (contig {ctgs.names[i]!r}, #{i})",
        )


def _depths(
    depth: DepthSource | np.ndarray,
    source: Input,
    ctgs: SequenceBatch,
    best: Alignments,
    covered: np.ndarray,
) -> tuple[np.ndarray, str]:
    """Each contig's depth (given, from ``multi=`` headers, or from coverage) and its source."""
    if not isinstance(depth, str):
        return np.asarray(depth, dtype=np.float64), "the caller"
    if depth != "coverage" and isinstance(source, (str, os.PathLike)):
        values = header_depths(source)
        if values is not None:
            return values, "contig headers (multi=)"
    if depth == "headers":
        raise SequenceFileError(
            _label(source, "contigs"), "not every contig header carries its depth as multi="
        )
    return coverage_depths(best, covered), "read coverage"


# --- walking ------------------------------------------------------------------------------


def _walk_side(
    seqs: list[np.ndarray],
    side: int,
    chosen: SideReads,
    both: SequenceBatch,
    n_reads: int,
    depths: np.ndarray,
    params: WalkParams,
) -> tuple[np.ndarray, WalkOut, np.ndarray]:
    """Walk one side of every contig that has reads there; left ends walk the revcomp."""
    mine = chosen.side == side
    contig, read, flip = chosen.contig[mine], chosen.read[mine], chosen.flip[mine]
    ends, per_end = np.unique(contig, return_counts=True)
    if side == LEFT:
        complement = both.alphabet.complement_codes
        walked_from = [complement[seqs[e][::-1]] for e in ends]
    else:
        walked_from = [seqs[e] for e in ends]
    oriented = both.take(read + n_reads * flip)
    reads_in, ends_in = pack_ends(walked_from, depths[ends], oriented, per_end, params.max_k)
    return ends, run_walks(reads_in, ends_in, params), per_end


def _add_walks(
    seqs: list[np.ndarray],
    texts: list[str],
    side: int,
    ends: np.ndarray,
    out: WalkOut,
    alphabet: Alphabet,
) -> None:
    """Append (right) or prepend (left, reverse-complemented) each end's walk, codes and text."""
    complement = alphabet.complement_codes
    for row, e in enumerate(ends):
        walked = out.bases[row, : out.length[row]]
        if side == RIGHT:
            seqs[e] = np.concatenate([seqs[e], walked])
            texts[e] = texts[e] + alphabet.decode(walked)
        else:
            added = complement[walked[::-1]]
            seqs[e] = np.concatenate([added, seqs[e]])
            texts[e] = alphabet.decode(added) + texts[e]


def _end_report(reports: list, depths: np.ndarray) -> EndReport:
    """One row per end with reads, sorted by contig, right before left."""
    contig = np.concatenate([r[1] for r in reports])
    side = np.concatenate([np.full(len(r[1]), r[0]) for r in reports])
    order = np.lexsort((-side, contig))

    def cat(get) -> np.ndarray:
        return np.concatenate([get(r) for r in reports])[order]

    outcome = cat(lambda r: r[2].outcome)
    return EndReport(
        contig=contig[order],
        side=np.where(side[order] == RIGHT, "R", "L"),
        reads=cat(lambda r: r[3]),
        depth=depths[contig[order]],
        k=cat(lambda r: r[2].k),
        extension=cat(lambda r: r[2].length),
        outcome=[OUTCOMES[int(o)] for o in outcome],
        iterations=cat(lambda r: r[2].iterations),
        outcomes_seen=np.concatenate([r[2].outcomes_seen for r in reports])[order],
    )
