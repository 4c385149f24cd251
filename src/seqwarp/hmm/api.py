"""``hmmsearch``: HMMER 3.4's hmmsearch with seqwarp's batched filter stage in front.

Targets are read in chunks; one numba pass scores every model's MSV over a chunk, then the
bias filter runs on each model's candidates. The few survivors go through pyhmmer's
``Pipeline`` (HMMER itself), so hits, E-values, domains and alignments are HMMER's; the
survivors are cut into pieces of similar estimated cost for the thread pool (likely hits
weigh more), and the pieces' results are merged per model, with Z the whole database. The
hits stored but not reported are HMMER's too: a serial hmmsearch stores a hit when its
E-value against the targets read so far passes ``-E`` (see ``hits``). With several
threads, the next chunk is filtered while the pool works on the current one.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numba
import numpy as np
from pyhmmer.easel import Alphabet, DigitalSequence, DigitalSequenceBlock
from pyhmmer.plan7 import HMM, Background, Pipeline, TopHits

from ..errors import AlphabetMismatch, EmptyInput, InvalidParameter
from . import files, hits, stage
from .profile import FilterProfile

__all__ = ["Cutoffs", "SearchOptions", "hmmsearch"]

Cutoffs = Literal["gathering", "noise", "trusted"]
CUTOFF_TAGS = {"gathering": "GA", "noise": "NC", "trusted": "TC"}
DEFAULT_CHUNK_RESIDUES = 50_000_000
Piece = tuple[int, int, Future]  # model, part, HMMER's hits on that part of the survivors
PIECES_PER_WORKER = 8  # per chunk: small enough that the last pieces leave little idle time
STRONG_COST = 20.0  # HMMER's work on a likely hit, relative to a target the Viterbi filter drops


@dataclass(frozen=True)
class SearchOptions:
    """hmmsearch's reporting, inclusion and filter options, with HMMER's defaults."""

    E: float = 10.0
    T: float | None = None
    domE: float = 10.0
    domT: float | None = None
    incE: float = 0.01
    incT: float | None = None
    incdomE: float = 0.01
    incdomT: float | None = None
    cutoffs: Cutoffs | None = None
    Z: float | None = None
    domZ: float | None = None
    max: bool = False
    F1: float = 0.02
    F2: float = 1e-3
    F3: float = 1e-5
    bias_filter: bool = True
    seed: int = 42

    def check(self) -> None:
        """Refuse values HMMER refuses (negative thresholds, unknown cutoffs, ...)."""
        self._check_types()
        for name in ("E", "domE", "incE", "incdomE", "Z", "domZ"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise InvalidParameter(name, value, hint="must be > 0")
        for name in ("F1", "F2", "F3"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise InvalidParameter(name, value, hint="must be in (0, 1]")
        if self.cutoffs is not None and self.cutoffs not in CUTOFF_TAGS:
            raise InvalidParameter("cutoffs", self.cutoffs, choices=list(CUTOFF_TAGS))
        if self.seed < 0:
            raise InvalidParameter("seed", self.seed, hint="must be >= 0")

    def _check_types(self) -> None:
        """Numbers where numbers are due (``E="1"`` is refused, not compared)."""
        for name in ("E", "T", "domE", "domT", "incE", "incT", "incdomE", "incdomT", "Z", "domZ"):
            _check_number(name, getattr(self, name), optional=True)
        for name in ("F1", "F2", "F3"):
            _check_number(name, getattr(self, name), optional=False)
        if not _is_integer(self.seed):
            raise InvalidParameter("seed", self.seed, hint="must be an integer")

    @property
    def running_z(self) -> bool:
        """Whether HMMER's cut while searching is ``P * (targets so far) <= E``: reporting by
        E-value with Z counted from the database (not ``-Z``, ``-T`` or ``--cut_*``)."""
        return self.Z is None and self.T is None and self.cutoffs is None

    def filters(self) -> stage.FilterSettings:
        """The settings of the batched filter stage (``--max`` turns it off).

        On the CPU the stage ends after MSV and the bias filter: HMMER's striped SSE Viterbi
        filter, run by the pipeline on those few survivors, is faster than the numba one
        (which stays the bit-exact reference of the GPU kernel, see ``stage.viterbi_scores``).
        """
        return stage.FilterSettings(
            F1=self.F1,
            F2=self.F2,
            bias_filter=self.bias_filter,
            enabled=not self.max,
            viterbi=False,
        )

    def pipeline(self, alphabet: Alphabet, Z: float) -> Pipeline:
        """HMMER's pipeline with these options and Z fixed to the whole database."""
        full = self.max
        return Pipeline(
            alphabet,
            Background(alphabet),
            bias_filter=self.bias_filter and not full,
            seed=self.seed,
            Z=Z,
            domZ=self.domZ,
            F1=1.0 if full else self.F1,
            F2=1.0 if full else self.F2,
            F3=1.0 if full else self.F3,
            E=self.E,
            T=self.T,
            domE=self.domE,
            domT=self.domT,
            incE=self.incE,
            incT=self.incT,
            incdomE=self.incdomE,
            incdomT=self.incdomT,
            bit_cutoffs=self.cutoffs,
        )


def _is_integer(value: object) -> bool:
    """An ``int`` proper (``True`` is no count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_number(name: str, value: object, *, optional: bool) -> None:
    """An int or float (``None`` where the option may be unset); anything else is refused."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameter(name, value, hint="must be a number")


def _load_hmms(hmms: str | os.PathLike[str] | HMM | Iterable[HMM]) -> list[HMM]:
    if isinstance(hmms, (str, os.PathLike)):
        return files.read_hmms(hmms)
    models = [hmms] if isinstance(hmms, HMM) else list(hmms)
    if not models:
        raise EmptyInput("the list of HMMs")
    for hmm in models:
        if not isinstance(hmm, HMM):
            raise InvalidParameter(
                "hmms", type(hmm).__name__, hint="expected pyhmmer HMMs or an HMM file path"
            )
    return models


def _check_cutoffs(models: Sequence[HMM], cutoffs: Cutoffs | None) -> None:
    """With ``--cut_ga/nc/tc`` every model must carry that line, as HMMER requires."""
    if cutoffs is None:
        return
    for hmm in models:
        available = getattr(hmm.cutoffs, f"{cutoffs}_available")()
        if not available:
            raise InvalidParameter(
                f"cut_{CUTOFF_TAGS[cutoffs].lower()}",
                True,
                hint=f"model {hmm.name!r} has no {CUTOFF_TAGS[cutoffs]} line",
            )


class _Targets(NamedTuple):
    """The target chunks, a name for messages, and a way to count Z."""

    chunks: Iterable[DigitalSequenceBlock]
    name: str
    count: Callable[[], int]


@contextlib.contextmanager
def _targets(
    targets: str | os.PathLike[str] | DigitalSequenceBlock | Iterable,
    alphabet: Alphabet,
    chunk_residues: int,
) -> Iterator[_Targets]:
    """The targets as chunks; a database path (or ``-``) stays open for the whole search."""
    if isinstance(targets, (str, os.PathLike)):
        with files.open_database(targets) as database:
            yield _Targets(
                database.chunks(alphabet, chunk_residues),
                database.name,
                lambda: database.count(alphabet),
            )
        return
    block = targets if isinstance(targets, DigitalSequenceBlock) else _block(targets, alphabet)
    if len(block) == 0:
        raise EmptyInput("the target sequences")
    if block.alphabet != alphabet:
        raise AlphabetMismatch(files.kind(alphabet), files.kind(block.alphabet), "targets")
    yield _Targets([block], "targets", lambda: len(block))


def _block(targets: Iterable, alphabet: Alphabet) -> DigitalSequenceBlock:
    """In-memory targets as one block; text sequences and other objects are refused."""
    sequences = list(targets)
    for sequence in sequences:
        if not isinstance(sequence, DigitalSequence):
            raise InvalidParameter(
                "targets",
                type(sequence).__name__,
                hint="expected pyhmmer DigitalSequence objects (digitize text sequences with "
                "sequence.digitize(alphabet)) or a sequence file path",
            )
        if sequence.alphabet != alphabet:
            raise AlphabetMismatch(files.kind(alphabet), files.kind(sequence.alphabet), "targets")
    return DigitalSequenceBlock(alphabet, sequences)


def hmmsearch(
    hmms: str | os.PathLike[str] | HMM | Iterable[HMM],
    targets: str | os.PathLike[str] | DigitalSequenceBlock | Iterable,
    options: SearchOptions | None = None,
    *,
    chunk_residues: int = DEFAULT_CHUNK_RESIDUES,
    progress: Callable[[int], None] | None = None,
) -> list[TopHits]:
    """Search every model against every target; one ``TopHits`` per model, in file order.

    ``targets`` is a sequence file (read in chunks of about ``chunk_residues`` residues in the
    models' alphabet; ``-`` or a pipe is copied to a temporary file first) or pyhmmer digital
    sequences. ``progress`` is called with the residues done after each chunk.
    """
    options = options or SearchOptions()
    options.check()
    if not _is_integer(chunk_residues) or chunk_residues < 1:
        raise InvalidParameter("chunk_residues", chunk_residues, hint="must be an integer >= 1")
    models = _load_hmms(hmms)
    alphabet = files.hmm_alphabet(models)
    _check_cutoffs(models, options.cutoffs)
    with _targets(targets, alphabet, chunk_residues) as source:
        return _search_all(models, options, alphabet, source, progress)


def _search_all(
    models: list[HMM],
    options: SearchOptions,
    alphabet: Alphabet,
    source: _Targets,
    progress: Callable[[int], None] | None,
) -> list[TopHits]:
    """Filter chunk after chunk and let the pool run HMMER on the survivors; one ``TopHits``
    per model, its pieces merged (which also marks what is reported with the final Z)."""
    iterator = iter(source.chunks)
    first = next(iterator)
    second = next(iterator, None)
    Z = options.Z
    if Z is None:  # HMMER's Z: the number of targets in the whole database
        Z = len(first) if second is None else source.count()
    stream = itertools.chain([first], [] if second is None else [second], iterator)
    search = _Search.of(models, options, alphabet, Z, source.name)
    results: list[list[TopHits]] = [[] for _ in models]
    lag = 0 if search.workers == 1 else 1  # one thread: never filter while HMMER runs
    with ThreadPoolExecutor(max_workers=search.workers) as pool:  # pyhmmer releases the GIL
        pending: list[tuple[list[Piece], int]] = []
        start = 0
        for block in stream:  # with several threads the next chunk is filtered meanwhile
            pending.append(search.submit(pool, block, start))
            start += len(block)
            while len(pending) > lag:
                _collect(*pending.pop(0), results, progress)
        for submitted in pending:
            _collect(*submitted, results, progress)
    return [hits[0].merge(*hits[1:]) for hits in results]


def _collect(
    pieces: list[Piece],
    residues: int,
    results: list[list[TopHits]],
    progress: Callable[[int], None] | None,
) -> None:
    """Wait for one chunk's pieces, file them per model in a fixed order, report progress."""
    for model, _, future in sorted(pieces, key=lambda piece: piece[:2]):
        results[model].append(future.result())
    if progress is not None:
        progress(residues)


@dataclass(frozen=True)
class _Search:
    """What every chunk of one search shares: models, filter tables, options, Z."""

    models: list[HMM]
    profiles: list[FilterProfile]
    tables: stage.MSVTables
    options: SearchOptions
    alphabet: Alphabet
    Z: float
    name: str
    workers: int
    local: threading.local = field(default_factory=threading.local, compare=False, repr=False)

    @classmethod
    def of(
        cls, models: list[HMM], options: SearchOptions, alphabet: Alphabet, Z: float, name: str
    ) -> _Search:
        """Configure every model's filter profile and stack their tables, once."""
        background = Background(alphabet)
        profiles = [FilterProfile.from_hmm(hmm, background) for hmm in models]
        tables = stage.MSVTables.of(profiles)
        workers = numba.get_num_threads()
        return cls(models, profiles, tables, options, alphabet, Z, name, workers)

    def submit(
        self, pool: ThreadPoolExecutor, block: DigitalSequenceBlock, start: int
    ) -> tuple[list[Piece], int]:
        """Filter one chunk (its first target is the database's ``start``-th, from 0) and hand
        the survivors to HMMER's pipeline in the pool, costliest pieces first: (model, part,
        future) per piece, and the chunk's residue count."""
        codes, offsets = files.as_csr(block)
        lengths = np.diff(offsets)
        files.check_lengths(block, lengths, self.name)
        chunk = stage.prepare(codes, offsets)
        kept = stage.survivors_all(self.profiles, self.tables, chunk, self.options.filters())
        F3 = self.options.F3
        costs = [_costs(h.M, lengths, k, F3) for h, k in zip(self.models, kept, strict=True)]
        futures = []
        pieces = 1 if self.workers == 1 else PIECES_PER_WORKER * self.workers
        jobs = _jobs([k.indices for k in kept], costs, pieces)
        for model, part, piece, _ in sorted(jobs, key=lambda job: -job[3]):
            targets = DigitalSequenceBlock(self.alphabet, [block[int(i)] for i in piece])
            ranks = start + 1 + piece  # 1-based, in the whole database
            futures.append((model, part, pool.submit(self._search, model, targets, ranks)))
        return futures, int(offsets[-1])

    def _search(self, model: int, targets: DigitalSequenceBlock, ranks: np.ndarray) -> TopHits:
        """HMMER's pipeline on one piece, in the pool thread's own pipeline: pyhmmer's are
        not thread-safe, and reusing one (reset after each search, as pyhmmer's hmmsearch
        does between queries) keeps its dynamic-programming matrices allocated.

        With HMMER's running Z (``SearchOptions.running_z``) the piece is searched in runs of
        distinct names, each with Z its smallest rank, and only the hits HMMER would store
        are kept (``hits.keep_stored``)."""
        pipeline = getattr(self.local, "pipeline", None)
        if pipeline is None:
            pipeline = self.local.pipeline = self.options.pipeline(self.alphabet, self.Z)
        if not self.options.running_z or len(targets) == 0:
            pipeline.Z = self.Z  # a run of an earlier piece may have set another
            return self._run(pipeline, model, targets)
        parts = [
            self._search_run(pipeline, model, targets, ranks, run) for run in hits.runs(targets)
        ]
        return parts[0].merge(*parts[1:])

    def _search_run(
        self,
        pipeline: Pipeline,
        model: int,
        targets: DigitalSequenceBlock,
        ranks: np.ndarray,
        run: hits.Run,
    ) -> TopHits:
        """One run of distinct names with Z its smallest rank (a superset of what HMMER
        stores), less the hits HMMER would not have stored."""
        positions = list(run.values())
        if len(positions) < len(targets):
            targets = DigitalSequenceBlock(self.alphabet, [targets[i] for i in positions])
        pipeline.Z = float(ranks[positions].min())
        found = self._run(pipeline, model, targets)
        return hits.keep_stored(found, hits.rank_of(run, ranks), self.options.E, self.Z)

    def _run(self, pipeline: Pipeline, model: int, targets: DigitalSequenceBlock) -> TopHits:
        """One pyhmmer search, leaving the pipeline ready for the next."""
        try:
            return pipeline.search_hmm(self.models[model], targets)
        finally:
            pipeline.clear()


def _costs(M: int, lengths: np.ndarray, kept: stage.Kept, F3: float) -> np.ndarray:
    """Estimated cost of HMMER's work on each survivor: its length times the model's (the
    Viterbi, Forward and Backward matrices), STRONG_COST times more where the MSV P-value
    alone already passes F3, since such targets usually go on through Forward, Backward
    and domain definition."""
    strong = np.where(kept.msv_p <= F3, STRONG_COST, 1.0)
    return lengths[kept.indices].astype(np.float64) * M * strong


def _jobs(
    kept: Sequence[np.ndarray], costs: Sequence[np.ndarray], pieces: int
) -> list[tuple[int, int, np.ndarray, float]]:
    """HMMER's work on the survivors in about ``pieces`` pieces of similar estimated cost
    for the thread pool: (model, part, targets, estimated cost). A large model is cut into
    several pieces, so that it does not keep one thread busy while the others idle
    (pyhmmer's query-parallel mode cannot do this). Every model gets at least one (possibly
    empty) piece."""
    share = sum(float(c.sum()) for c in costs) / pieces
    jobs = []
    for model, (keep, cost) in enumerate(zip(kept, costs, strict=True)):
        total = float(cost.sum())
        parts = 1 if share == 0 else min(len(keep), math.ceil(total / share))
        jobs += [
            (model, part, keep[piece], float(cost[piece].sum()))
            for part, piece in enumerate(_deal(cost, max(parts, 1)))
        ]
    return jobs


def _deal(cost: np.ndarray, parts: int) -> list[np.ndarray]:
    """Positions of ``cost`` in ``parts`` pieces of about equal total: dealt from the
    costliest down in serpentine order (so every piece gets its share of the expensive
    targets), each piece then in database order."""
    rank = np.argsort(-cost, kind="stable")
    turn, position = np.divmod(np.arange(len(cost)), parts)
    piece = np.where(turn % 2 == 0, position, parts - 1 - position)
    return [np.sort(rank[piece == part]) for part in range(parts)]
