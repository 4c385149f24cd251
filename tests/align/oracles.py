"""Third-party oracles for alignment scores: parasail (32-bit) and Biopython."""

from __future__ import annotations

import numpy as np
import parasail
from Bio.Align import PairwiseAligner

from seqwarp.scoring import Scoring

_PARASAIL = {
    "global": parasail.nw_scan_32,
    "semi-global": parasail.sg_scan_32,
    "local": parasail.sw_scan_32,
}


def parasail_matrix(scoring: Scoring) -> parasail.Matrix:
    """Our code-order matrix as a parasail matrix over the alphabet's canonical letters."""
    symbols = scoring.alphabet.symbols
    matrix = parasail.matrix_create(symbols, 0, 0)
    for a in range(len(symbols)):
        for b in range(len(symbols)):
            matrix[a, b] = int(scoring.matrix[a, b])
    return matrix


def parasail_score(
    query: str, target: str, scoring: Scoring, mode: str, matrix: parasail.Matrix
) -> int:
    """parasail's 32-bit score (``open`` is charged alone on a gap's first position, like ours)."""
    if not query or not target:
        return _empty_score(len(query) + len(target), scoring, mode)
    return _PARASAIL[mode](query, target, scoring.gap_open, scoring.gap_extend, matrix).score


def biopython_score(query: str, target: str, scoring: Scoring, mode: str) -> float:
    """Biopython's score; semi-global is global with free end gaps on both sequences."""
    aligner = PairwiseAligner()
    aligner.mode = "local" if mode == "local" else "global"
    aligner.substitution_matrix = _bio_matrix(scoring)
    aligner.open_gap_score = -scoring.gap_open
    aligner.extend_gap_score = -scoring.gap_extend
    if mode == "semi-global":
        aligner.end_gap_score = 0
    if not query or not target:
        return _empty_score(len(query) + len(target), scoring, mode)
    return aligner.score(query, target)


def _bio_matrix(scoring: Scoring):
    from Bio.Align.substitution_matrices import Array

    symbols = scoring.alphabet.symbols
    return Array(alphabet=symbols, dims=2, data=np.asarray(scoring.matrix, dtype=float))


def _empty_score(length: int, scoring: Scoring, mode: str) -> int:
    if mode != "global" or length == 0:
        return 0
    return -(scoring.gap_open + (length - 1) * scoring.gap_extend)
