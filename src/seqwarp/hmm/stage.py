"""The batched filter stage: which targets HMMER's MSV, bias and Viterbi filters let through.

The decisions follow ``p7_Pipeline`` step by step (P-values from the models' Gumbel
parameters, F1/F2 thresholds, the Viterbi filter only where the bias-corrected MSV P-value is
above F2). MSV and Viterbi-filter scores are HMMER's own bits; the null and bias-filter scores
are float32 re-derivations, so every comparison is given a small margin in the target's
favour. The stage may therefore keep a few targets that HMMER drops, never the reverse: the
survivors then go through HMMER's own pipeline (pyhmmer), which makes the final call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from . import cpu
from .plan import StripedBlocks, pack
from .profile import SCALE_B, FilterProfile, length_move, roundf

__all__ = [
    "Chunk",
    "FilterSettings",
    "msv_scores",
    "prepare",
    "ssv_scores",
    "survivors",
    "viterbi_scores",
]

LN2 = 0.69314718055994529
MARGIN = 0.05  # nats in the target's favour on every filter comparison
LANES = 16  # S: sequences per striped block (CUDAMPF++ lanes per warp)


@dataclass(frozen=True)
class FilterSettings:
    """HMMER's filter thresholds (``--F1 --F2 --nobias``); ``enabled=False`` is ``--max``.

    ``viterbi=False`` stops the stage after the bias filter and leaves the Viterbi filter to
    HMMER's pipeline (same survivors of the whole pipeline, a different split of the work).
    """

    F1: float = 0.02
    F2: float = 1e-3
    bias_filter: bool = True
    enabled: bool = True
    viterbi: bool = True


@dataclass(frozen=True)
class Chunk:
    """One chunk of targets, packed once and shared by every model."""

    codes: np.ndarray  # uint8[total]: digital residues (pyhmmer codes), CSR
    offsets: np.ndarray  # int64[n + 1]
    blocks: StripedBlocks
    tjb: np.ndarray  # int64[n]: MSV byte cost of the N/J move, per target length
    move: np.ndarray  # int64[n]: Viterbi-filter word score of the N/C/J move
    null: np.ndarray  # float64[n]: null-model score (nats), as p7_bg_NullOne

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def _blocks_for(n: int) -> int:
    """Enough blocks to keep every thread busy with balanced work."""
    return max(1, min(8 * numba.get_num_threads(), -(-n // LANES)))


def _length_terms(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-length filter constants, computed once per distinct length."""
    distinct, inverse = np.unique(lengths, return_inverse=True)
    moves = np.array([length_move(int(L)) for L in distinct], dtype=np.float32)
    tjb = np.minimum(-roundf(SCALE_B * moves), 255).astype(np.int64)
    move = np.clip(roundf(np.float32(500.0 / LN2) * moves), -32768, 32767).astype(np.int64)
    null = np.empty(len(distinct), dtype=np.float64)
    for i, L in enumerate(distinct):
        p1 = np.float32(np.float32(L) / np.float32(L + 1))
        loop = np.float32(math.log(p1)) if L > 0 else np.float32(-np.inf)
        null[i] = np.float32(
            np.float32(np.float32(L) * loop) + np.float32(math.log(np.float32(1.0) - p1))
        )
    return tjb[inverse], move[inverse], null[inverse]


def prepare(codes: np.ndarray, offsets: np.ndarray) -> Chunk:
    """Pack a CSR chunk into striped blocks and compute its per-target constants."""
    blocks = pack(codes, offsets, lanes=LANES, blocks=_blocks_for(len(offsets) - 1))
    tjb, move, null = _length_terms(np.diff(offsets))
    return Chunk(codes, offsets, blocks, tjb, move, null)


def msv_scores(profile: FilterProfile, chunk: Chunk) -> np.ndarray:
    """MSV filter score (nats; +inf on byte overflow) of every target: ``p7_MSVFilter``."""
    return _msv_ssv(profile, chunk)[0]


def ssv_scores(profile: FilterProfile, chunk: Chunk) -> np.ndarray:
    """SSV filter score (nats; NaN where SSV has no result) of every target: ``p7_SSVFilter``."""
    return _msv_ssv(profile, chunk)[1]


def _msv_ssv(profile: FilterProfile, chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
    b = chunk.blocks
    return cpu.msv_blocks(
        b.residues,
        b.row_offsets,
        b.lane_offsets,
        b.lane_order,
        chunk.tjb,
        profile.msv_cost,
        profile.bias_b,
        profile.tbm_b,
        profile.tec_b,
    )


def _subset(chunk: Chunk, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the chosen targets (copied, in the given order)."""
    lengths = chunk.lengths[indices]
    offsets = np.zeros(len(indices) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    gather = np.repeat(chunk.offsets[indices] - offsets[:-1], lengths) + np.arange(offsets[-1])
    return chunk.codes[gather], offsets


def viterbi_scores(
    profile: FilterProfile, chunk: Chunk, indices: np.ndarray | None = None
) -> np.ndarray:
    """Viterbi filter score (nats; +inf on word overflow) of the chosen targets (default all)."""
    if indices is None:
        indices = np.arange(len(chunk.offsets) - 1)
    if len(indices) == 0:
        return np.zeros(0, dtype=np.float32)
    codes, offsets = _subset(chunk, indices)
    b = pack(codes, offsets, lanes=LANES, blocks=_blocks_for(len(indices)))
    return cpu.viterbi_blocks(
        b.residues,
        b.row_offsets,
        b.lane_offsets,
        b.lane_order,
        chunk.move[indices],
        profile.vf_emit,
        profile.vf_trans,
        -500,
    )


def _gumbel_surv(x: np.ndarray, mu: float, lam: float) -> np.ndarray:
    """``esl_gumbel_surv``: P(S > x) of a Gumbel, accurate in the far tail."""
    with np.errstate(over="ignore", invalid="ignore"):
        ey = -np.exp(-lam * (x - mu))
        return np.where(np.abs(ey) < 5e-9, -ey, 1.0 - np.exp(ey))


def survivors(profile: FilterProfile, chunk: Chunk, settings: FilterSettings) -> np.ndarray:
    """Indices of the targets that may pass HMMER's MSV, bias and Viterbi filters."""
    n = len(chunk.offsets) - 1
    if not settings.enabled:
        return np.arange(n)
    lengths = chunk.lengths
    msv = msv_scores(profile, chunk).astype(np.float64)
    bits = (msv - chunk.null + MARGIN) / LN2
    p = _gumbel_surv(bits, profile.msv_mu, profile.msv_lambda)
    keep = ~(p > settings.F1) | (lengths == 0)  # NaN (and +inf scores) pass, as in HMMER
    candidates = np.flatnonzero(keep)
    if settings.bias_filter and not profile.bias.usable:
        return candidates  # no COMPO: HMMER's bias score is NaN or garbage; let HMMER decide
    filter_score = chunk.null[candidates]
    p = p[candidates]
    if settings.bias_filter:
        filter_score = cpu.bias_scores(
            *_subset(chunk, candidates), profile.bias.odds, profile.bias.t10, profile.bias.t11
        ).astype(np.float64)
        bits = (msv[candidates] - filter_score + MARGIN) / LN2
        p = _gumbel_surv(bits, profile.msv_mu, profile.msv_lambda)
        passed = ~(p > settings.F1) | (lengths[candidates] == 0)
        candidates, filter_score, p = candidates[passed], filter_score[passed], p[passed]
    if not settings.viterbi:
        return candidates
    needs_vf = p > settings.F2
    checked = candidates[needs_vf]
    vf = viterbi_scores(profile, chunk, checked).astype(np.float64)
    bits = (vf - filter_score[needs_vf] + MARGIN) / LN2
    vf_p = _gumbel_surv(bits, profile.vf_mu, profile.vf_lambda)
    kept = np.concatenate([candidates[~needs_vf], checked[~(vf_p > settings.F2)]])
    return np.sort(kept)
