"""parasail on every core of the machine: the peer a user without a GPU has.

One spawned process per core holds the sequences from the start (each loads them from one
temporary pickle, rather than through its start-up pipe, and before any timing);
a run maps contiguous slices of the pairs over the pool and its time is the wall time of the
whole map. Pairs go through parasail's 16-bit striped functions (``nw_striped_16``,
``sg_trace_striped_16``, ...), database searches through ``sw_striped_profile_16`` with the
query's profile built once per task and reused for every target; a result that saturates
16 bits is recomputed with the 32-bit function (parasail's own ladder), so every score is
exact and can be compared with seqwarp's.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import tempfile
import time
from types import TracebackType

import numpy as np

__all__ = ["PARASAIL_MODES", "ParasailPool"]

# seqwarp mode -> parasail's function prefix
PARASAIL_MODES = {"global": "nw", "semi-global": "sg", "local": "sw"}
# tasks per process: small enough to balance, large enough to amortise the messages
_TASKS_PER_PROCESS = 4

_queries: list[str] = []
_targets: list[str] = []
_matrix = None


def _init_worker(path: str, matrix: tuple) -> None:
    """Hold the sequences pickled at ``path`` and parasail's matrix (``("dna", match,
    mismatch)`` or ``("blosum62",)``) in this worker."""
    import parasail

    global _queries, _targets, _matrix
    with open(path, "rb") as handle:
        _queries, _targets = pickle.load(handle)
    _matrix = (
        parasail.matrix_create("ACGT", matrix[1], matrix[2])
        if matrix[0] == "dna"
        else parasail.blosum62
    )


def _pairs_task(task: tuple[str, int, int, int, int]) -> np.ndarray:
    """Scores of pairs ``start..stop`` (query ``k`` with target ``k``) through one function;
    traceback functions also build each CIGAR string, as seqwarp's ``output="cigar"`` does."""
    import parasail

    function, start, stop, gap_open, gap_extend = task
    narrow = getattr(parasail, function)
    wide = getattr(parasail, function.replace("_16", "_32"))
    trace = "_trace" in function
    scores = np.empty(stop - start, dtype=np.int64)
    for k in range(start, stop):
        result = narrow(_queries[k], _targets[k], gap_open, gap_extend, _matrix)
        if result.saturated:
            result = wide(_queries[k], _targets[k], gap_open, gap_extend, _matrix)
        scores[k - start] = result.score
        if trace:
            result.cigar.decode.decode()
    return scores


def _search_task(task: tuple[int, int, int, int, int]) -> np.ndarray:
    """Local scores of query ``q`` against targets ``start..stop``, one profile for all."""
    import parasail

    q, start, stop, gap_open, gap_extend = task
    query = _queries[q]
    profile = parasail.profile_create_16(query, _matrix)
    scores = np.empty(stop - start, dtype=np.int64)
    for k in range(start, stop):
        result = parasail.sw_striped_profile_16(profile, _targets[k], gap_open, gap_extend)
        if result.saturated:
            result = parasail.sw_striped_32(query, _targets[k], gap_open, gap_extend, _matrix)
        scores[k - start] = result.score
    return scores


class ParasailPool:
    """``processes`` parasail workers holding ``queries`` and ``targets`` (use as a context
    manager: the workers exit with it)."""

    def __init__(
        self, queries: list[str], targets: list[str], matrix: tuple, processes: int
    ) -> None:
        import parasail  # noqa: F401 - fail here, not in workers that a pool would restart

        self.processes = processes
        self.folder = tempfile.TemporaryDirectory(prefix="seqwarp-parasail-")
        path = os.path.join(self.folder.name, "pairs.pickle")
        with open(path, "wb") as handle:
            pickle.dump((queries, targets), handle, protocol=pickle.HIGHEST_PROTOCOL)
        context = multiprocessing.get_context("spawn")
        self.pool = context.Pool(processes, initializer=_init_worker, initargs=(path, matrix))
        # every worker has started and loaded the sequences before the first timing
        self.pool.map(time.sleep, [0.01] * processes, chunksize=1)

    def __enter__(self) -> ParasailPool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.pool.close()
        self.pool.join()
        self.folder.cleanup()

    def _bounds(self, count: int) -> list[tuple[int, int]]:
        chunks = max(1, min(count, self.processes * _TASKS_PER_PROCESS))
        bounds = np.linspace(0, count, chunks + 1).astype(int)
        return [(int(a), int(b)) for a, b in itertools.pairwise(bounds) if b > a]

    def pairs(
        self, mode: str, output: str, count: int, gap_open: int, gap_extend: int
    ) -> tuple[float, np.ndarray, str]:
        """(wall seconds, scores, function) of the first ``count`` pairs."""
        trace = "_trace" if output == "cigar" else ""
        function = f"{PARASAIL_MODES[mode]}{trace}_striped_16"
        tasks = [(function, a, b, gap_open, gap_extend) for a, b in self._bounds(count)]
        start = time.perf_counter()
        parts = self.pool.map(_pairs_task, tasks, chunksize=1)
        return time.perf_counter() - start, np.concatenate(parts), function

    def search(
        self, queries: int, targets: int, gap_open: int, gap_extend: int
    ) -> tuple[float, np.ndarray]:
        """(wall seconds, ``(queries, targets)`` scores) of the first ``queries`` queries
        against the first ``targets`` targets, local alignment with query profiles."""
        tasks = [
            (q, a, b, gap_open, gap_extend)
            for q in range(queries)
            for a, b in self._bounds(targets)
        ]
        start = time.perf_counter()
        parts = self.pool.map(_search_task, tasks, chunksize=1)
        return time.perf_counter() - start, np.concatenate(parts).reshape(queries, targets)
