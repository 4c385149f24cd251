"""Batched pairwise alignment: what users call.

>>> from seqwarp.align import Aligner
>>> from seqwarp.scoring import Scoring
>>> aligner = Aligner(mode="local", scoring=Scoring.dna(match=2, mismatch=-1, gap_open=2, gap_extend=1))
>>> result = aligner.align(["ACGTACGT"], ["TTACGTAAGT"], output="cigar")
>>> int(result.score[0]), result.cigar[0]
(13, '5=1X2=')
"""

from __future__ import annotations

import numbers
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, wait
from typing import Literal, overload

import numpy as np

from ..devices import Backend, Device, resolve
from ..errors import InvalidParameter, LengthMismatch
from ..scoring import Scoring
from ..sequences import SequenceBatch, as_batch
from ._host_scan import indexed_running_cells, running_cells
from ._pools import pool
from .plan import (
    CrossBlock,
    PairShapes,
    cross_product_blocks,
    identity_index,
    largest_first,
    slices_by_total,
)
from .results import CigarResult, Cigars, EndsResult, ScoreResult, TopHits

__all__ = ["AlignMode", "Aligner", "Output", "align"]

AlignMode = Literal["global", "semi-global", "local"]
Output = Literal["score", "ends", "cigar"]
Progress = Callable[[int, int], None]

_MODES = ("global", "semi-global", "local")
_OUTPUTS = ("score", "ends", "cigar")
# |score| must stay far from int32's limit: |DP cell| <= (m + n) * max(|substitution|, gap cost)
_SCORE_LIMIT = (1 << 30) - (1 << 20)
# pairs per block of a cross product on the CPU (its index arrays stay small)
_CROSS_BLOCK_PAIRS = 1 << 20


def _check_threads(threads: object) -> None:
    """Refuse a thread count that is not a whole number of at least 1 (the CLI's rule)."""
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise InvalidParameter("threads", threads, hint="must be an integer")
    if threads < 1:
        raise InvalidParameter("threads", threads, hint="must be at least 1")


class Aligner:
    """Aligns batches of sequence pairs with one mode and scoring, on one backend.

    ``device`` is ``"auto"`` (the GPU when CuPy sees one, else the CPU), ``"cpu"``, ``"gpu"``
    or ``"cuda:N"``; ``gpus`` asks for that many GPUs of the host (default one). ``threads``
    sets the CPU threads, at least 1 (default: all cores). The backend never changes an answer.
    """

    def __init__(
        self,
        mode: AlignMode = "global",
        scoring: Scoring | None = None,
        *,
        device: Device = "auto",
        threads: int | None = None,
        gpus: int | None = None,
    ) -> None:
        if mode not in _MODES:
            raise InvalidParameter("mode", mode, choices=_MODES)
        if threads is not None:
            _check_threads(threads)
        self.mode = mode
        self.scoring = scoring if scoring is not None else Scoring.dna()
        self.threads = threads
        self.backend: Backend = resolve(device, gpus)

    def describe(self) -> str:
        """The choices made: mode, scoring, backend."""
        return f"{self.mode} alignment, {self.scoring.describe()}, {self.backend.describe()}"

    # --- pairs ---------------------------------------------------------------------------

    @overload
    def align(
        self, queries, targets, output: Literal["score"], progress: Progress | None = ...
    ) -> ScoreResult: ...
    @overload
    def align(
        self, queries, targets, output: Literal["ends"] = ..., progress: Progress | None = ...
    ) -> EndsResult: ...
    @overload
    def align(
        self, queries, targets, output: Literal["cigar"], progress: Progress | None = ...
    ) -> CigarResult: ...

    def align(
        self,
        queries: SequenceBatch | Sequence[str] | str,
        targets: SequenceBatch | Sequence[str] | str,
        output: Output = "ends",
        progress: Progress | None = None,
    ) -> ScoreResult:
        """Align ``queries[i]`` with ``targets[i]`` for every ``i``."""
        q = self._batch(queries, "queries")
        t = self._batch(targets, "targets")
        if len(q) != len(t):
            raise LengthMismatch("queries and targets", len(q), len(t))
        self._check_range(q, t)
        index = identity_index(len(q))  # read-only: it may be shared with other results
        # pair i is (q[i], t[i]): its lengths need no gather
        return self._align_pairs(q, t, index, index, output, progress, paired=True)

    def align_indexed(
        self,
        queries: SequenceBatch,
        targets: SequenceBatch,
        q_index: np.ndarray,
        t_index: np.ndarray,
        output: Output = "ends",
        progress: Progress | None = None,
    ) -> ScoreResult:
        """Align the pairs ``(queries[q_index[p]], targets[t_index[p]])``."""
        self._check_range(queries, targets)
        q_index = np.asarray(q_index, dtype=np.int64).reshape(-1)
        t_index = np.asarray(t_index, dtype=np.int64).reshape(-1)
        if len(q_index) != len(t_index):
            raise LengthMismatch("query and target indices", len(q_index), len(t_index))
        return self._align_pairs(queries, targets, q_index, t_index, output, progress)

    def _align_pairs(
        self,
        queries: SequenceBatch,
        targets: SequenceBatch,
        q_index: np.ndarray,
        t_index: np.ndarray,
        output: Output,
        progress: Progress | None,
        *,
        paired: bool = False,
    ) -> ScoreResult:
        """Align the pairs of ``q_index`` and ``t_index`` in calls of the engine's size
        (``paired``: pair ``i`` is ``(queries[i], targets[i])``, so nothing is gathered)."""
        if output not in _OUTPUTS:
            raise InvalidParameter("output", output, choices=_OUTPUTS)
        engine = self._engine()
        budget = engine.prepare(self.threads)
        if paired:
            m, n = queries.lengths, targets.lengths
        else:  # one pass: the gathers, their running total of cells and a bounds check
            m, n, cumulative, any_empty = indexed_running_cells(
                queries.lengths, targets.lengths, q_index, t_index
            )
        if self.backend.kind == "gpu":
            # the GPU engine orders pairs by shape itself and reads each call's residues as
            # spans: it takes consecutive pairs, and their running total of cells from here
            order = None
            if paired:
                cumulative, any_empty = running_cells(m, n)
        else:
            cells = m * n
            order = largest_first(cells)
            cumulative = np.cumsum(cells[order])
        total = int(cumulative[-1]) if len(cumulative) else 0
        same = q_index is t_index
        # columns contiguous: the result hands each field out as it is
        fields = np.empty((len(q_index), 8 if output == "cigar" else 3), dtype=np.int64, order="F")
        cigar_parts: list[tuple[np.ndarray, Cigars]] = []
        for part in slices_by_total(cumulative, budget.cells, budget.pairs):
            chosen = part if order is None else order[part]
            qi = q_index[chosen]
            args = (
                queries,
                targets,
                qi,
                qi if same else t_index[chosen],
                self.scoring.matrix,
                self.mode,
                self.scoring.gap_open,
                self.scoring.gap_extend,
            )
            known = (
                {"shapes": _call_shapes(m, n, cumulative, any_empty, part, paired)}
                if order is None
                else {}
            )
            if output == "cigar":
                values, strings = engine.align(*args, **known)
                cigar_parts.append((chosen, strings))
            else:
                # the GPU engine's local kernels skip the end cells a caller does not take
                ends = {"ends": output == "ends"} if order is None else {}
                values = engine.score(*args, **known, **ends)
            if order is None and values.shape == fields.shape:
                fields = values  # one chunk of all pairs, in call order: no copy
            else:
                fields[chosen] = values
            if progress is not None:
                progress(int(cumulative[part.stop - 1]), total)
        cigars = Cigars.scatter(len(q_index), cigar_parts) if output == "cigar" else None
        return self._result(output, q_index, t_index, fields, cigars, queries, targets)

    # --- cross product -------------------------------------------------------------------

    def score_matrix(self, queries, targets, progress: Progress | None = None) -> np.ndarray:
        """Scores of every query against every target: an ``(n_queries, n_targets)`` array."""
        q = self._batch(queries, "queries")
        t = self._batch(targets, "targets")
        # laid out as the blocks' pairs run (row by row, or column by column when the
        # targets are cut), so that each block's scores are copied in as they come
        layout = "C" if len(q) >= len(t) else "F"
        scores = np.empty((len(q), len(t)), dtype=np.int64, order=layout)
        for block, values in self._cross_scores(q, t, progress):
            scores[block.queries, block.targets] = values
        return scores

    def top_hits(self, queries, targets, k: int, progress: Progress | None = None) -> TopHits:
        """The ``k`` highest-scoring targets of each query (ties: smaller target index first)."""
        if k < 1:
            raise InvalidParameter("k", k, hint="must be at least 1")
        q = self._batch(queries, "queries")
        t = self._batch(targets, "targets")
        index = np.full((len(q), k), -1, dtype=np.int64)
        best = np.zeros((len(q), k), dtype=np.int64)
        for block, scores in self._cross_scores(q, t, progress):
            rows, first = block.queries, block.targets.start
            # the hits so far (of the targets before this block) first, so that a stable
            # sort keeps ties in target order
            kept = min(first, k)
            candidates = np.concatenate([best[rows, :kept], scores], axis=1)
            ids = np.arange(first, block.targets.stop, dtype=np.int64)
            candidate_ids = np.concatenate(
                [index[rows, :kept], np.broadcast_to(ids, scores.shape)], axis=1
            )
            ranked = np.argsort(-candidates, axis=1, kind="stable")[:, :k]
            filled = ranked.shape[1]
            index[rows, :filled] = np.take_along_axis(candidate_ids, ranked, axis=1)
            best[rows, :filled] = np.take_along_axis(candidates, ranked, axis=1)
        return TopHits(index, best, self.backend.describe(), q.names, t.names)

    def _cross_scores(
        self, queries: SequenceBatch, targets: SequenceBatch, progress: Progress | None
    ) -> Iterator[tuple[CrossBlock, np.ndarray]]:
        """Each block of a cross product with its (queries, targets) scores, in order,
        reporting the pairs done after each. On a GPU a block takes the engine's cross path
        (``score_block``: the device spells out its pairs) where it serves, else the indexed
        one, and two blocks are in flight: a block's host work overlaps the one before's
        kernels."""
        self._check_range(queries, targets)
        gpu = self.backend.kind == "gpu"

        def scores(block: CrossBlock) -> np.ndarray:
            if gpu:
                s = self.scoring
                found = self._engine().score_block(
                    queries, targets, block.queries, block.targets, s.matrix, self.mode,
                    s.gap_open, s.gap_extend,
                )  # fmt: skip
                if found is not None:
                    return found
            result = self.align_indexed(queries, targets, block.q_index, block.t_index, "score")
            return block.grid(result.score)

        done, total = 0, len(queries) * len(targets)

        def finish(block: CrossBlock, values: np.ndarray) -> tuple[CrossBlock, np.ndarray]:
            nonlocal done
            done += block.pairs
            if progress is not None:
                progress(done, total)
            return block, values

        blocks = cross_product_blocks(len(queries), len(targets), self._block_pairs())
        if not gpu:
            for block in blocks:
                yield finish(block, scores(block))
            return
        window: deque[tuple[CrossBlock, Future[np.ndarray]]] = deque()
        try:
            for block in blocks:
                window.append((block, pool("block").submit(scores, block)))
                if len(window) == 2:
                    block, future = window.popleft()
                    yield finish(block, future.result())
            while window:
                block, future = window.popleft()
                yield finish(block, future.result())
        finally:  # also when the caller stops early: no block is left running
            wait([future for _, future in window])

    # --- helpers ------------------------------------------------------------------------

    def _batch(self, sequences, what: str) -> SequenceBatch:
        return as_batch(sequences, self.scoring.alphabet, what)

    def _block_pairs(self) -> int:
        """Pairs per block of a cross product: on a GPU a whole call's worth (fewer calls, and
        the targets go to the device once per block), else ``_CROSS_BLOCK_PAIRS``."""
        if self.backend.kind == "gpu":
            return self._engine().prepare(self.threads).pairs
        return _CROSS_BLOCK_PAIRS

    def _engine(self):
        if self.backend.kind == "gpu":
            from . import _gpu_backend as engine

            engine.use(self.backend)
        else:
            from . import _cpu_backend as engine
        return engine

    def _check_range(self, queries: SequenceBatch, targets: SequenceBatch) -> None:
        """Refuse lengths whose scores could leave the exact range."""
        longest = queries.longest + targets.longest
        worst = max(
            abs(self.scoring.max_score), abs(self.scoring.min_score), self.scoring.gap_open, 1
        )
        if longest * worst > _SCORE_LIMIT:
            raise InvalidParameter(
                "sequence length",
                longest,
                hint=f"query + target length times the largest score magnitude ({worst}) must stay below {_SCORE_LIMIT}",
            )

    def _result(self, output, q_index, t_index, fields, cigars, queries, targets) -> ScoreResult:
        """The result of one call; ``fields`` is the call's own array, so its contiguous
        columns are handed out as they are (the GPU and API arrays are column-major)."""

        def column(k: int) -> np.ndarray:
            return np.ascontiguousarray(fields[:, k])

        common = {
            "query_index": q_index,
            "target_index": t_index,
            "score": column(0),
            "backend": self.backend.describe(),
            "query_names": queries.names,
            "target_names": targets.names,
        }
        if output == "score":
            return ScoreResult(**common)
        if output == "ends":
            return EndsResult(**common, query_end=column(1), target_end=column(2))
        return CigarResult(
            **common,
            query_begin=column(1),
            query_end=column(2),
            target_begin=column(3),
            target_end=column(4),
            cigar=cigars,
            matches=column(6),
            mismatches=column(7),
            alignment_length=column(5),
        )


def _call_shapes(
    m: np.ndarray,
    n: np.ndarray,
    cumulative: np.ndarray,
    any_empty: bool,
    part: slice,
    paired: bool,
) -> PairShapes:
    """The shapes of the pairs ``part`` of a job (``cumulative``: the job's running total of
    cells; ``paired``: its pair ``i`` is query ``i`` and target ``i``), their running total
    restarted at zero."""
    total = cumulative[part]
    if part.start:
        total = total - cumulative[part.start - 1]
    firsts = (part.start, part.start) if paired else None
    return PairShapes(m[part], n[part], total, any_empty, firsts)


def align(
    queries: SequenceBatch | Sequence[str] | str,
    targets: SequenceBatch | Sequence[str] | str,
    mode: AlignMode = "global",
    scoring: Scoring | None = None,
    output: Output = "ends",
    device: Device = "auto",
) -> ScoreResult:
    """One-call form of :meth:`Aligner.align`."""
    return Aligner(mode, scoring, device=device).align(queries, targets, output)
