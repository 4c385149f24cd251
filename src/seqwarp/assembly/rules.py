"""MetaHipMer2's choice of the next base from a k-mer's extension votes (rating scheme).

Bases are coded A=0 C=1 G=2 T=3; a choice is a base code, :data:`FORK` or :data:`DEAD_END`.
A k-mer's votes are 8 counters: ``votes[0:4]`` counts successors with quality >= ``min_qual``
(``nvotes``), ``votes[4:8]`` those with quality >= ``hi_qual`` (``hiq``).

:class:`ChoiceRule` holds the stricter tests a caller may add on top of MHM2's rule (see
:class:`~seqwarp.assembly.options.LocalAssemblyOptions`); :data:`MHM2_RULE` adds none.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit

__all__ = [
    "DEAD_END",
    "FORK",
    "MHM2_RULE",
    "ChoiceRule",
    "base_rating",
    "choose_extension",
    "depth_thresholds",
]

FORK = 4
DEAD_END = 5


class ChoiceRule(NamedTuple):
    """Tests applied to MHM2's choice (field meanings: ``LocalAssemblyOptions``)."""

    min_votes: int
    min_hiq_votes: int
    min_rating: int
    fork_ratio: float
    rival_ratio: float


MHM2_RULE = ChoiceRule(1, 0, 1, 1.0, 0.0)


@jit
def depth_thresholds(depth: int, viable_factor: float, expected_factor: float) -> tuple:
    """(min_viable, min_expected) for an integer contig depth; both are at least 2."""
    return max(viable_factor * depth, 2.0), max(expected_factor * depth, 2.0)


@jit
def base_rating(nvotes: int, hiq: int, min_viable: float, min_expected: float) -> int:
    """Rate one candidate base 0..7; ``hiq == min_viable`` falls through to 7 (MHM2's quirk)."""
    if nvotes == 0:
        return 0
    if nvotes == 1:
        return 1
    if nvotes < min_viable:
        return 2
    if nvotes < min_expected:
        return 3 if hiq < min_viable else 4
    if hiq < min_viable:
        return 5
    if min_viable < hiq < min_expected:
        return 6
    return 7


@jit
def choose_extension(
    votes: np.ndarray, min_viable: float, min_expected: float, rule: ChoiceRule
) -> int:
    """The next base, FORK or DEAD_END, from 8 vote counters (see the module docstring).

    MHM2's rating rule picks a base; two bases rating 7 fork when the lesser has at least
    ``rule.fork_ratio`` of the greater's votes (1.0: only equal votes, as MHM2). The picked
    base must then have ``rule.min_votes`` votes, ``rule.min_hiq_votes`` high-quality votes and
    rate at least ``rule.min_rating`` (else DEAD_END), and with ``rule.rival_ratio > 0`` no
    other base may have ``rival_ratio`` of its votes (else FORK).
    """
    choice = _mhm2_choice(votes, min_viable, min_expected, rule.fork_ratio)
    if choice >= FORK:
        return choice
    nvotes, hiq = int(votes[choice]), int(votes[4 + choice])
    if nvotes < rule.min_votes or hiq < rule.min_hiq_votes:
        return DEAD_END
    if base_rating(nvotes, hiq, min_viable, min_expected) < rule.min_rating:
        return DEAD_END
    if rule.rival_ratio > 0.0:
        for b in range(4):
            if b != choice and votes[b] > 0 and votes[b] >= rule.rival_ratio * votes[choice]:
                return FORK
    return choice


@jit
def _mhm2_choice(
    votes: np.ndarray, min_viable: float, min_expected: float, fork_ratio: float
) -> int:
    """MHM2's rule, with the vote ratio at which two rating-7 bases fork as a parameter."""
    # b = base code; order[i] = base in rank i (rating, then hiq, then nvotes, descending)
    rating = np.empty(4, dtype=np.int64)
    order = np.arange(4)
    for b in range(4):
        rating[b] = base_rating(int(votes[b]), int(votes[4 + b]), min_viable, min_expected)
    for i in range(1, 4):
        j = i
        while j > 0 and _ranks_before(order[j], order[j - 1], rating, votes):
            order[j], order[j - 1] = order[j - 1], order[j]
            j -= 1
    top, runner, third = order[0], order[1], order[2]
    top_rating, runner_rating = rating[top], rating[runner]
    if top_rating == 0:
        return DEAD_END
    if top_rating <= 3:
        return top if runner_rating == 0 else DEAD_END
    if top_rating <= 5:
        return top if runner_rating < 3 else DEAD_END
    if top_rating == 6:
        return top if runner_rating < 4 else DEAD_END
    if runner_rating < 7:
        return top
    lesser, greater = min(votes[top], votes[runner]), max(votes[top], votes[runner])
    if rating[third] == 7 or lesser >= fork_ratio * greater:
        return FORK
    return top if votes[top] > votes[runner] else runner


@jit
def _ranks_before(a: int, b: int, rating: np.ndarray, votes: np.ndarray) -> bool:
    """Strict order: higher rating, then more high-quality votes, then more votes."""
    if rating[a] != rating[b]:
        return rating[a] > rating[b]
    if votes[4 + a] != votes[4 + b]:
        return votes[4 + a] > votes[4 + b]
    return votes[a] > votes[b]
