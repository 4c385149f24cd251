"""The batched filter stage: which targets HMMER's MSV, bias and Viterbi filters let through.

The decisions follow ``p7_Pipeline`` step by step (P-values from the models' Gumbel
parameters, F1/F2 thresholds, the Viterbi filter only where the bias-corrected MSV P-value is
above F2). MSV and Viterbi-filter scores are HMMER's own bits; the null and bias-filter scores
are float32 re-derivations, so every comparison is given a small margin in the target's
favour. The stage may therefore keep a few targets that HMMER drops, never the reverse: the
survivors then go through HMMER's own pipeline (pyhmmer), which makes the final call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from . import cpu
from .plan import pack
from .profile import NCODES, PAD, SCALE_B, FilterProfile, roundf

__all__ = [
    "Chunk",
    "FilterSettings",
    "Kept",
    "MSVTables",
    "msv_scores",
    "prepare",
    "ssv_scores",
    "survivors",
    "survivors_all",
    "viterbi_scores",
]

LN2 = 0.69314718055994529
MARGIN = 0.05  # nats in the target's favour on every filter comparison
LANES = 16  # S: sequences per striped block (CUDAMPF++ lanes per warp)
SSV_STEP = 64  # diagonals per SIMD vector of the SSV kernel (one AVX-512 vector of int8)
GROUP_STEPS = 1024  # diagonals per SSV pass over a group of small models (its table stays in cache)
GAP = cpu.ROWS + 1  # dead columns before each model in a group of the SSV table


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
    """One chunk of targets with its per-target constants, shared by every model."""

    codes: np.ndarray  # uint8[total]: digital residues (pyhmmer codes), CSR
    offsets: np.ndarray  # int64[n + 1]
    order: np.ndarray  # int64[n]: targets from longest to shortest (work balancing)
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
    moves, null = cpu.length_scores(distinct)
    tjb = np.minimum(-roundf(SCALE_B * moves), 255).astype(np.int64)
    move = np.clip(roundf(np.float32(500.0 / LN2) * moves), -32768, 32767).astype(np.int64)
    return tjb[inverse], move[inverse], null[inverse]


def prepare(codes: np.ndarray, offsets: np.ndarray) -> Chunk:
    """Compute a CSR chunk's per-target constants and its longest-first work order."""
    lengths = np.diff(offsets)
    tjb, move, null = _length_terms(lengths)
    order = np.argsort(-lengths, kind="stable").astype(np.int64)
    return Chunk(codes, offsets, order, tjb, move, null)


@dataclass(frozen=True)
class MSVTables:
    """The byte tables of several models side by side, so one kernel pass scores them all.

    ``cost`` is HMMER's biased byte cost (``rbv``) for the full MSV, node k of model m at
    column ``cols[m] + k``. ``gain`` is ``bias - cost`` as signed bytes for the SSV passes
    (``cpu._ssv_tops``): models are packed into groups of up to GROUP_STEPS diagonals (one
    pass of the SSV kernel advances a whole group, and its rows stay in cache), each model
    after ``GAP`` dead columns (-128) so that no model's cells reach the next one, plus a
    dead ``PAD`` row. Group g starts at column ``groups[g, 0]`` and one pass advances
    ``groups[g, 1]`` diagonals (a whole number of SIMD vectors); model m's best SSV cell
    is the maximum of the pass positions ``spans[m, 1]:spans[m, 2]`` of group
    ``spans[m, 0]``. ``members`` lists the models group by group, the order in which the
    kernel meets them.
    """

    cost: np.ndarray  # uint8[NCODES, sum(M + 1)]
    cols: np.ndarray  # int64[models]
    widths: np.ndarray  # int64[models]: M
    gain: np.ndarray  # int8[NCODES, sum(steps + ROWS - 1)]
    groups: np.ndarray  # int64[groups, 2]: first column, steps
    spans: np.ndarray  # int64[models, 3]: group, first and end position
    members: np.ndarray  # int64[models]: model indices, group by group
    params: np.ndarray  # int64[models, 3]: bias, tbm and tec bytes

    @classmethod
    def of(cls, profiles: Sequence[FilterProfile]) -> MSVTables:
        """Stack the models' MSV tables (done once per search, not per chunk)."""
        costs = [p.msv_cost[:, : p.M + 1] for p in profiles]
        gains, groups = [], []
        spans = np.zeros((len(profiles), 3), dtype=np.int64)
        packed = _groups(profiles)
        for group, members in enumerate(packed):
            gain, member_spans = _gains([profiles[m] for m in members])
            spans[members] = [(group, first, end) for first, end in member_spans]
            groups.append((sum(g.shape[1] for g in gains), gain.shape[1] - cpu.ROWS + 1))
            gains.append(gain)
        return cls(
            cost=np.concatenate(costs, axis=1),
            cols=_starts([c.shape[1] for c in costs]),
            widths=np.array([p.M for p in profiles], dtype=np.int64),
            gain=np.concatenate(gains, axis=1),
            groups=np.array(groups, dtype=np.int64),
            spans=spans,
            members=np.array([m for members in packed for m in members], dtype=np.int64),
            params=np.array([[p.bias_b, p.tbm_b, p.tec_b] for p in profiles], dtype=np.int64),
        )


def _starts(widths: Sequence[int]) -> np.ndarray:
    """First column of each of several tables laid side by side."""
    starts = np.zeros(len(widths), dtype=np.int64)
    starts[1:] = np.cumsum(widths[:-1], dtype=np.int64)
    return starts


def _groups(profiles: Sequence[FilterProfile]) -> list[list[int]]:
    """The models (indices) packed into groups of at most GROUP_STEPS columns, the largest
    first, each into the first group with room (a larger model alone): every group is one
    more SSV pass over each target, so few and full groups are cheapest."""
    groups: list[list[int]] = []
    room: list[int] = []
    for model in sorted(range(len(profiles)), key=lambda m: -profiles[m].M):
        need = GAP + profiles[model].M
        fits = [g for g, free in enumerate(room) if need <= free]
        if fits:
            groups[fits[0]].append(model)
            room[fits[0]] -= need
        else:
            groups.append([model])
            room.append(GROUP_STEPS - (cpu.ROWS - 1 - GAP) - need)
    return [sorted(members) for members in groups]


def _gains(profiles: Sequence[FilterProfile]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """One group's SSV gains ``bias - cost`` and each model's span of pass positions.

    Model nodes start at column ROWS - 1 (position 0 of a pass then meets node 1 on its
    last row) and follow each other after GAP dead columns; dead columns fill the table up
    to a whole number of SIMD vectors of positions. A model's span covers the positions
    whose rows meet its nodes; the GAP columns stop any height of 128 or more (inexact)
    from reaching the next model's span.
    """
    first = []
    column = cpu.ROWS - 1
    for profile in profiles:
        first.append(column)
        column += profile.M + GAP
    steps = -(-(column - GAP) // SSV_STEP) * SSV_STEP
    gain = np.full((NCODES, steps + cpu.ROWS - 1), -128, dtype=np.int16)
    for profile, start in zip(profiles, first, strict=True):
        nodes = profile.bias_b - profile.msv_cost[:, 1 : profile.M + 1].astype(np.int16)
        gain[:, start : start + profile.M] = np.maximum(nodes, -128)
    gain[PAD] = -128
    spans = [(start - cpu.ROWS + 1, start + p.M) for p, start in zip(profiles, first, strict=True)]
    return gain.astype(np.int8), spans


def _tasks() -> int:
    """Work lists per kernel pass: small enough shares for dynamic balancing."""
    return 32 * numba.get_num_threads()


def _msv_ssv(tables: MSVTables, chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
    """MSV and SSV scores, ``[model, target]``, of every model of ``tables``.

    The work lists are handed out one at a time (dynamic scheduling): on a shared machine
    a thread that loses its core no longer holds up the whole pass.
    """
    with numba.parallel_chunksize(1):
        return cpu.msv_scores(
            chunk.codes,
            chunk.offsets,
            chunk.order,
            _tasks(),
            chunk.tjb,
            tables.cost,
            tables.cols,
            tables.widths,
            tables.gain,
            tables.groups,
            tables.spans,
            tables.members,
            tables.params,
        )


def msv_scores(profile: FilterProfile, chunk: Chunk) -> np.ndarray:
    """MSV filter score (nats; +inf on byte overflow) of every target: ``p7_MSVFilter``."""
    return _msv_ssv(MSVTables.of([profile]), chunk)[0][0]


def ssv_scores(profile: FilterProfile, chunk: Chunk) -> np.ndarray:
    """SSV filter score (nats; NaN where SSV has no result) of every target: ``p7_SSVFilter``."""
    return _msv_ssv(MSVTables.of([profile]), chunk)[1][0]


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


class Kept(NamedTuple):
    """One model's survivors in a chunk, with the stage's estimate of each one's MSV P-value
    (bias-corrected where the bias filter ran; 1 where the stage is off)."""

    indices: np.ndarray  # int64, ascending
    msv_p: np.ndarray  # float64


def survivors_all(
    profiles: Sequence[FilterProfile],
    tables: MSVTables,
    chunk: Chunk,
    settings: FilterSettings,
) -> list[Kept]:
    """``survivors`` of every model (``tables`` stacks the same profiles): one MSV pass."""
    n = len(chunk.offsets) - 1
    if not settings.enabled:
        return [Kept(np.arange(n), np.ones(n)) for _ in profiles]
    msv = _msv_ssv(tables, chunk)[0]
    return [_after_msv(p, chunk, settings, s) for p, s in zip(profiles, msv, strict=True)]


def survivors(profile: FilterProfile, chunk: Chunk, settings: FilterSettings) -> np.ndarray:
    """Indices of the targets that may pass HMMER's MSV, bias and Viterbi filters."""
    return survivors_all([profile], MSVTables.of([profile]), chunk, settings)[0].indices


def _after_msv(
    profile: FilterProfile, chunk: Chunk, settings: FilterSettings, msv: np.ndarray
) -> Kept:
    """The MSV P-value cut, then the bias and Viterbi filters, for one model."""
    lengths = chunk.lengths
    msv = msv.astype(np.float64)
    bits = (msv - chunk.null + MARGIN) / LN2
    p = _gumbel_surv(bits, profile.msv_mu, profile.msv_lambda)
    keep = ~(p > settings.F1) | (lengths == 0)  # NaN (and +inf scores) pass, as in HMMER
    candidates = np.flatnonzero(keep)
    p = p[candidates]
    if settings.bias_filter and not profile.bias.usable:
        return Kept(candidates, p)  # no COMPO: HMMER's bias score is NaN or garbage
    filter_score = chunk.null[candidates]
    if settings.bias_filter:
        filter_score = cpu.bias_scores(
            chunk.codes,
            chunk.offsets,
            candidates,
            profile.bias.odds,
            profile.bias.t10,
            profile.bias.t11,
        ).astype(np.float64)
        bits = (msv[candidates] - filter_score + MARGIN) / LN2
        p = _gumbel_surv(bits, profile.msv_mu, profile.msv_lambda)
        passed = ~(p > settings.F1) | (lengths[candidates] == 0)
        candidates, filter_score, p = candidates[passed], filter_score[passed], p[passed]
    if not settings.viterbi:
        return Kept(candidates, p)
    needs_vf = p > settings.F2
    checked = candidates[needs_vf]
    vf = viterbi_scores(profile, chunk, checked).astype(np.float64)
    bits = (vf - filter_score[needs_vf] + MARGIN) / LN2
    vf_p = _gumbel_surv(bits, profile.vf_mu, profile.vf_lambda)
    kept = ~needs_vf
    kept[needs_vf] = ~(vf_p > settings.F2)
    return Kept(candidates[kept], p[kept])
