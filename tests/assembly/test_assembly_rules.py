"""The rating table and the choice of the next base (MetaHipMer2 §4), pinned case by case."""

from __future__ import annotations

import numpy as np
import pytest

from seqwarp.assembly.rules import (
    DEAD_END,
    FORK,
    MHM2_RULE,
    ChoiceRule,
    base_rating,
    choose_extension,
    depth_thresholds,
)

A, C, G, T = 0, 1, 2, 3


def rate(nvotes: int, hiq: int, depth: int) -> int:
    return base_rating(nvotes, hiq, *depth_thresholds(depth, 0.2, 0.3))


def choose(low: list[int], high: list[int], depth: int = 0, rule: ChoiceRule = MHM2_RULE) -> int:
    votes = np.array(low + high, dtype=np.uint16)
    return choose_extension(votes, *depth_thresholds(depth, 0.2, 0.3), rule)


@pytest.mark.parametrize(
    ("depth", "expected"),
    [(0, (2.0, 2.0)), (9, (2.0, 2.7)), (10, (2.0, 3.0)), (20, (4.0, 6.0)), (33, (6.6, 9.9))],
)
def test_thresholds_are_fractions_of_depth_with_a_floor_of_two(depth, expected):
    assert depth_thresholds(depth, 0.2, 0.3) == pytest.approx(expected)


# depth 20: min_viable = 4, min_expected = 6
@pytest.mark.parametrize(
    ("nvotes", "hiq", "rating"),
    [
        (0, 0, 0),
        (1, 1, 1),
        (3, 3, 2),  # nvotes < min_viable
        (4, 3, 3),  # min_viable <= nvotes < min_expected, hiq < min_viable
        (5, 4, 4),  # ... hiq >= min_viable
        (6, 3, 5),  # nvotes >= min_expected, hiq < min_viable
        (6, 5, 6),  # min_viable < hiq < min_expected
        (6, 4, 7),  # quirk: hiq == min_viable rates 7, not 6
        (6, 6, 7),  # hiq >= min_expected
        (9, 9, 7),
    ],
)
def test_rating_boundaries_at_depth_20(nvotes, hiq, rating):
    assert rate(nvotes, hiq, 20) == rating


@pytest.mark.parametrize(
    ("nvotes", "hiq", "depth", "rating"),
    [
        (2, 0, 0, 5),  # low depth: both thresholds are 2
        (2, 1, 0, 5),
        (2, 2, 0, 7),  # hiq == min_viable == min_expected
        (2, 2, 7, 4),  # depth 7: min_expected = 2.1 > 2 votes
        (3, 2, 7, 7),  # hiq == min_viable (2) again rates 7
        (3, 3, 15, 4),  # depth 15: min_viable 3.0 exactly, min_expected 4.5
        (5, 3, 15, 7),
        (5, 4, 15, 6),  # 3 < 4 < 4.5
        (2, 2, 12, 2),  # depth 12: min_viable 2.4000000000000004
        (3, 2, 12, 3),
        (4, 3, 12, 6),  # min_expected 3.5999999999999996: 4 >= it; 2.4 < 3 < 3.6
    ],
)
def test_rating_boundaries_at_other_depths(nvotes, hiq, depth, rating):
    assert rate(nvotes, hiq, depth) == rating


def test_no_votes_is_a_dead_end():
    assert choose([0, 0, 0, 0], [0, 0, 0, 0]) == DEAD_END


def test_a_single_uncontested_vote_extends():
    assert choose([0, 0, 1, 0], [0, 0, 0, 0]) == G


def test_single_votes_contested_are_a_dead_end():
    assert choose([1, 0, 1, 0], [1, 0, 1, 0]) == DEAD_END


def test_rating_2_needs_an_uncontested_top():
    # depth 20: 3 votes rate 2; any runner-up vote blocks it
    assert choose([3, 0, 0, 0], [3, 0, 0, 0], 20) == A
    assert choose([3, 1, 0, 0], [3, 0, 0, 0], 20) == DEAD_END


def test_rating_5_beats_a_runner_up_below_3_only():
    assert choose([0, 6, 3, 0], [0, 0, 0, 0], 20) == C  # 5 vs 2
    assert choose([0, 6, 4, 0], [0, 0, 0, 0], 20) == DEAD_END  # 5 vs 3


def test_rating_6_beats_a_runner_up_below_4_only():
    assert choose([0, 0, 6, 4], [0, 0, 5, 0], 20) == G  # 6 vs 3
    assert choose([0, 0, 6, 5], [0, 0, 5, 4], 20) == DEAD_END  # 6 vs 4


def test_rating_7_beats_any_runner_up_below_7():
    assert choose([9, 0, 0, 8], [9, 0, 0, 5], 20) == A  # 7 vs 6


def test_two_sevens_are_resolved_by_votes_not_by_high_quality_votes():
    # A sorts first (more high-quality votes) but C has more votes overall and wins
    assert choose([10, 12, 0, 0], [10, 8, 0, 0]) == C
    assert choose([12, 10, 0, 0], [8, 10, 0, 0]) == A


def test_two_sevens_with_equal_votes_fork():
    assert choose([0, 7, 0, 7], [0, 7, 0, 3]) == FORK


def test_three_sevens_fork_even_with_unequal_votes():
    assert choose([10, 0, 5, 3], [10, 0, 5, 3]) == FORK


def test_high_quality_tie_breaks_equal_ratings_before_votes():
    # both rate 5 at depth 20 (hiq < 4); G has more hiq, T more votes: runner-up 5 >= 3 -> X
    assert choose([0, 0, 6, 7], [0, 0, 3, 2], 20) == DEAD_END


# --- stricter choices (options off by default) ----------------------------------------------


def rule(**changes) -> ChoiceRule:
    return MHM2_RULE._replace(**changes)


def test_min_votes_turns_a_single_uncontested_vote_into_a_dead_end():
    assert choose([0, 0, 1, 0], [0, 0, 0, 0], rule=rule(min_votes=2)) == DEAD_END
    assert choose([0, 0, 2, 0], [0, 0, 2, 0], rule=rule(min_votes=2)) == G
    assert choose([0, 0, 2, 0], [0, 0, 2, 0], rule=rule(min_votes=3)) == DEAD_END


def test_min_hiq_votes_counts_high_quality_votes_of_the_chosen_base():
    # depth 0: 3 votes, 1 high-quality rates 5 and extends under MHM2's rule
    assert choose([0, 0, 3, 0], [0, 0, 1, 0]) == G
    assert choose([0, 0, 3, 0], [0, 0, 1, 0], rule=rule(min_hiq_votes=2)) == DEAD_END
    assert choose([0, 0, 3, 0], [0, 0, 2, 0], rule=rule(min_hiq_votes=2)) == G


def test_min_rating_asks_for_votes_in_proportion_to_depth():
    # depth 20: min_viable 4; 3 uncontested votes rate 2, 4 votes with 3 hiq rate 3
    assert choose([3, 0, 0, 0], [3, 0, 0, 0], 20) == A
    assert choose([3, 0, 0, 0], [3, 0, 0, 0], 20, rule(min_rating=3)) == DEAD_END
    assert choose([4, 0, 0, 0], [3, 0, 0, 0], 20, rule(min_rating=3)) == A
    assert choose([4, 0, 0, 0], [3, 0, 0, 0], 20, rule(min_rating=4)) == DEAD_END


def test_fork_ratio_forks_two_sevens_whose_votes_are_close():
    # C wins 12 to 10 under MHM2; 10 >= 0.8 * 12 forks, 10 < 0.85 * 12 does not
    assert choose([10, 12, 0, 0], [10, 8, 0, 0], rule=rule(fork_ratio=0.8)) == FORK
    assert choose([10, 12, 0, 0], [10, 8, 0, 0], rule=rule(fork_ratio=0.85)) == C


def test_fork_ratio_zero_forks_every_two_sevens():
    assert choose([2, 20, 0, 0], [2, 20, 0, 0]) == C
    assert choose([2, 20, 0, 0], [2, 20, 0, 0], rule=rule(fork_ratio=0.0)) == FORK


def test_fork_ratio_does_not_touch_a_seven_against_a_lower_rating():
    assert choose([9, 0, 0, 8], [9, 0, 0, 5], 20, rule(fork_ratio=0.0)) == A  # 7 vs 6


def test_rival_ratio_forks_whatever_the_ratings():
    # depth 20: A rates 7, C (2 votes) rates 2; MHM2 takes A
    assert choose([10, 2, 0, 0], [10, 2, 0, 0], 20) == A
    assert choose([10, 2, 0, 0], [10, 2, 0, 0], 20, rule(rival_ratio=0.2)) == FORK
    assert choose([10, 2, 0, 0], [10, 2, 0, 0], 20, rule(rival_ratio=0.21)) == A
    assert choose([9, 0, 0, 8], [9, 0, 0, 5], 20, rule(rival_ratio=0.88)) == FORK
    assert choose([9, 0, 0, 8], [9, 0, 0, 5], 20, rule(rival_ratio=0.9)) == A


def test_rival_ratio_counts_a_single_vote_against_few():
    # depth 0: A (3 votes) rates 7, C (1 vote) rates 1
    assert choose([3, 1, 0, 0], [3, 1, 0, 0]) == A
    assert choose([3, 1, 0, 0], [3, 1, 0, 0], rule=rule(rival_ratio=0.34)) == A
    assert choose([3, 1, 0, 0], [3, 1, 0, 0], rule=rule(rival_ratio=0.33)) == FORK


def test_stricter_tests_leave_forks_and_dead_ends_alone():
    strict = rule(min_votes=5, rival_ratio=0.5)
    assert choose([0, 7, 0, 7], [0, 7, 0, 3], rule=strict) == FORK
    assert choose([1, 0, 1, 0], [1, 0, 1, 0], rule=strict) == DEAD_END
