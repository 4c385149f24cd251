"""``hmmsearch``: HMMER 3.4's hmmsearch with seqwarp's batched filter stage in front.

Targets are read in chunks; one numba pass scores every model's MSV over a chunk, then the
bias filter runs on each model's candidates. The few survivors go through pyhmmer's
``Pipeline`` (HMMER itself) with ``Z`` fixed to the whole database, so hits, E-values, domains
and alignments are HMMER's; the survivors are cut into pieces of similar cost for the thread
pool, and the pieces' results are merged per model.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np
from pyhmmer.easel import Alphabet, DigitalSequenceBlock
from pyhmmer.plan7 import HMM, Background, Pipeline, TopHits

from ..errors import AlphabetMismatch, EmptyInput, InvalidParameter
from . import files, stage
from .profile import FilterProfile

__all__ = ["Cutoffs", "SearchOptions", "hmmsearch"]

Cutoffs = Literal["gathering", "noise", "trusted"]
CUTOFF_TAGS = {"gathering": "GA", "noise": "NC", "trusted": "TC"}
DEFAULT_CHUNK_RESIDUES = 50_000_000


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


def _load_hmms(hmms: str | os.PathLike[str] | HMM | Iterable[HMM]) -> list[HMM]:
    if isinstance(hmms, (str, os.PathLike)):
        return files.read_hmms(hmms)
    models = [hmms] if isinstance(hmms, HMM) else list(hmms)
    if not models:
        raise EmptyInput("the list of HMMs")
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


def _chunks(
    targets: str | os.PathLike[str] | DigitalSequenceBlock | Iterable,
    alphabet: Alphabet,
    chunk_residues: int,
) -> tuple[Iterable[DigitalSequenceBlock], str, Callable[[], int]]:
    """The target chunks, a name for messages, and a way to count Z."""
    if isinstance(targets, (str, os.PathLike)):
        name = os.fspath(targets)
        return (
            files.read_chunks(name, alphabet, chunk_residues),
            name,
            lambda: files.count_targets(name, alphabet),
        )
    block = targets if isinstance(targets, DigitalSequenceBlock) else None
    if block is None:
        block = DigitalSequenceBlock(alphabet, list(targets))
    if len(block) == 0:
        raise EmptyInput("the target sequences")
    if block.alphabet != alphabet:
        raise AlphabetMismatch(str(alphabet), str(block.alphabet), what="targets")
    return [block], "targets", lambda: len(block)


def hmmsearch(
    hmms: str | os.PathLike[str] | HMM | Iterable[HMM],
    targets: str | os.PathLike[str] | DigitalSequenceBlock | Iterable,
    options: SearchOptions | None = None,
    *,
    chunk_residues: int = DEFAULT_CHUNK_RESIDUES,
    progress: Callable[[int], None] | None = None,
) -> list[TopHits]:
    """Search every model against every target; one ``TopHits`` per model, in file order.

    ``targets`` is a sequence file (read in chunks of about ``chunk_residues`` residues) or
    pyhmmer digital sequences. ``progress`` is called with the residues done after each chunk.
    """
    options = options or SearchOptions()
    options.check()
    if chunk_residues < 1:
        raise InvalidParameter("chunk_residues", chunk_residues, hint="must be >= 1")
    models = _load_hmms(hmms)
    alphabet = files.hmm_alphabet(models)
    _check_cutoffs(models, options.cutoffs)
    background = Background(alphabet)
    profiles = [FilterProfile.from_hmm(hmm, background) for hmm in models]
    settings = options.filters()
    chunks, name, count = _chunks(targets, alphabet, chunk_residues)

    iterator = iter(chunks)
    first = next(iterator)
    second = next(iterator, None)
    Z = options.Z
    if Z is None:  # HMMER's Z: the number of targets in the whole database
        Z = len(first) if second is None else count()
    stream = itertools.chain([first], [] if second is None else [second], iterator)
    tables = stage.MSVTables.of(profiles)
    results: list[list[TopHits]] = [[] for _ in models]
    workers = numba.get_num_threads()
    with ThreadPoolExecutor(max_workers=workers) as pool:  # pyhmmer releases the GIL
        for block in stream:
            codes, offsets = files.as_csr(block)
            files.check_lengths(block, np.diff(offsets), name)
            prepared = stage.prepare(codes, offsets)
            kept = stage.survivors_all(profiles, tables, prepared, settings)
            jobs = _jobs([hmm.M for hmm in models], kept, np.diff(offsets), workers)
            futures = []
            for model, part, piece, _ in sorted(jobs, key=lambda job: -job[3]):  # costliest first
                pipeline = options.pipeline(alphabet, Z)  # one per job: it is not thread-safe
                targets = DigitalSequenceBlock(alphabet, [block[int(i)] for i in piece])
                job = pool.submit(pipeline.search_hmm, models[model], targets)
                futures.append((model, part, job))
            for model, _, future in sorted(futures, key=lambda job: job[:2]):  # fixed order
                results[model].append(future.result())
            if progress is not None:
                progress(int(offsets[-1]))
    return [hits[0].merge(*hits[1:]) if len(hits) > 1 else hits[0] for hits in results]


def _jobs(
    sizes: Sequence[int], kept: Sequence[np.ndarray], lengths: np.ndarray, workers: int
) -> list[tuple[int, int, np.ndarray, float]]:
    """HMMER's work on the survivors in pieces for the thread pool: (model, part, targets,
    estimated cost). The cost of a target is its length times the model's (the Viterbi,
    Forward and Backward matrices). A model whose survivors cost more than a quarter of one
    worker's share of the total is cut into pieces of about that size, so that one large
    model does not keep one thread busy while the others idle (pyhmmer's query-parallel
    mode cannot do this). Every model gets at least one (possibly empty) piece."""
    costs = [lengths[keep].astype(np.float64) * M for M, keep in zip(sizes, kept, strict=True)]
    share = sum(float(c.sum()) for c in costs) / (4 * workers)
    jobs = []
    for model, (keep, cost) in enumerate(zip(kept, costs, strict=True)):
        total = float(cost.sum())
        parts = 1 if workers == 1 or share == 0 else min(len(keep), math.ceil(total / share))
        parts = max(parts, 1)
        cuts = np.searchsorted(np.cumsum(cost), total * np.arange(1, parts) / parts)
        pieces = [piece for piece in np.split(keep, cuts) if len(piece)] or [keep]
        jobs += [
            (model, part, piece, float(lengths[piece].sum()) * sizes[model])
            for part, piece in enumerate(pieces)
        ]
    return jobs
