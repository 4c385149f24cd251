"""Batched pairwise alignment: what users call.

>>> from seqwarp.align import Aligner
>>> from seqwarp.scoring import Scoring
>>> aligner = Aligner(mode="local", scoring=Scoring.dna(match=2, mismatch=-1, gap_open=2, gap_extend=1))
>>> result = aligner.align(["ACGTACGT"], ["TTACGTAAGT"], output="cigar")
>>> int(result.score[0]), result.cigar[0]
(13, '5=1X2=')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, overload

import numpy as np

from ..devices import Backend, Device, resolve
from ..errors import InvalidParameter, LengthMismatch
from ..scoring import Scoring
from ..sequences import SequenceBatch, as_batch
from .plan import cross_product_blocks, largest_first, slices_by_cells
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


class Aligner:
    """Aligns batches of sequence pairs with one mode and scoring, on one backend.

    ``device`` is ``"auto"`` (the GPU when CuPy sees one, else the CPU), ``"cpu"``, ``"gpu"``
    or ``"cuda:N"``; ``gpus`` asks for that many GPUs of the host (default one). ``threads``
    sets the CPU threads (default: all cores). The backend never changes an answer.
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
        index = np.arange(len(q), dtype=np.int64)
        q_lengths, t_lengths = q.lengths, t.lengths
        self._check_range(q_lengths, t_lengths)
        # pair i is (q[i], t[i]): its cells need no gather
        return self._align_pairs(q, t, index, index, q_lengths * t_lengths, output, progress)

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
        q_lengths, t_lengths = queries.lengths, targets.lengths
        self._check_range(q_lengths, t_lengths)
        cells = q_lengths[q_index] * t_lengths[t_index]
        return self._align_pairs(queries, targets, q_index, t_index, cells, output, progress)

    def _align_pairs(
        self,
        queries: SequenceBatch,
        targets: SequenceBatch,
        q_index: np.ndarray,
        t_index: np.ndarray,
        cells: np.ndarray,
        output: Output,
        progress: Progress | None,
    ) -> ScoreResult:
        """Align the pairs of ``q_index`` and ``t_index``, of ``cells`` DP cells each, in
        calls of the engine's size."""
        if output not in _OUTPUTS:
            raise InvalidParameter("output", output, choices=_OUTPUTS)
        engine = self._engine()
        budget = engine.prepare(self.threads)
        total = int(cells.sum()) if progress is not None else 0
        # the GPU engine orders pairs by shape itself and reads each chunk's residues as one
        # span: it takes consecutive pairs, sparing a sort and a gather per call
        ordered = self.backend.kind == "gpu"
        order = None if ordered else largest_first(cells)
        # columns contiguous: the result hands each field out as it is
        fields = np.empty((len(q_index), 8 if output == "cigar" else 3), dtype=np.int64, order="F")
        cigar_parts: list[tuple[np.ndarray, Cigars]] = []
        done = 0
        for part in slices_by_cells(
            cells if order is None else cells[order], budget.cells, budget.pairs
        ):
            chosen = part if order is None else order[part]
            args = (
                queries,
                targets,
                q_index[chosen],
                t_index[chosen],
                self.scoring.matrix,
                self.mode,
                self.scoring.gap_open,
                self.scoring.gap_extend,
            )
            if output == "cigar":
                values, strings = engine.align(*args)
                cigar_parts.append((chosen, strings))
            else:
                values = engine.score(*args)
            if order is None and values.shape == fields.shape:
                fields = values  # one chunk of all pairs, in call order: no copy
            else:
                fields[chosen] = values
            if progress is not None:
                done = total if part.stop == len(cells) else done + int(cells[chosen].sum())
                progress(done, total)
        cigars = Cigars.scatter(len(q_index), cigar_parts) if output == "cigar" else None
        return self._result(output, q_index, t_index, fields, cigars, queries, targets)

    # --- cross product -------------------------------------------------------------------

    def score_matrix(self, queries, targets, progress: Progress | None = None) -> np.ndarray:
        """Scores of every query against every target: an ``(n_queries, n_targets)`` array."""
        q = self._batch(queries, "queries")
        t = self._batch(targets, "targets")
        scores = np.empty((len(q), len(t)), dtype=np.int64)
        for rows, qi, ti in cross_product_blocks(len(q), len(t), self._block_pairs()):
            scores[rows] = self.align_indexed(q, t, qi, ti, "score", progress=None).score.reshape(
                -1, len(t)
            )
            if progress is not None:
                progress(rows.stop, len(q))
        return scores

    def top_hits(self, queries, targets, k: int, progress: Progress | None = None) -> TopHits:
        """The ``k`` highest-scoring targets of each query (ties: smaller target index first)."""
        if k < 1:
            raise InvalidParameter("k", k, hint="must be at least 1")
        q = self._batch(queries, "queries")
        t = self._batch(targets, "targets")
        keep = min(k, len(t))
        index = np.full((len(q), k), -1, dtype=np.int64)
        best = np.zeros((len(q), k), dtype=np.int64)
        for rows, qi, ti in cross_product_blocks(len(q), len(t), self._block_pairs()):
            block = self.align_indexed(q, t, qi, ti, "score").score.reshape(-1, len(t))
            ranked = np.argsort(-block, axis=1, kind="stable")[:, :keep]
            index[rows, :keep] = ranked
            best[rows, :keep] = np.take_along_axis(block, ranked, axis=1)
            if progress is not None:
                progress(rows.stop, len(q))
        return TopHits(index, best, self.backend.describe(), q.names, t.names)

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

    def _check_range(self, q_lengths: np.ndarray, t_lengths: np.ndarray) -> None:
        """Refuse lengths whose scores could leave the exact range."""
        longest = int(q_lengths.max(initial=0)) + int(t_lengths.max(initial=0))
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
