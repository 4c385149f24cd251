"""Candidate reads per contig end (MetaHipMer2 §2) from hand-built alignment records."""

from __future__ import annotations

import numpy as np
import pytest

from seqwarp.assembly.options import LocalAssemblyOptions
from seqwarp.assembly.select import RIGHT, Alignments, best_per_read, select_reads

OPTS = LocalAssemblyOptions()
LENGTHS = np.full(64, 150)


def side_rows(alns: list[tuple], min_pair_len: int | None = None, **opts) -> list[tuple]:
    chosen = select_reads(
        Alignments.from_rows(alns), LENGTHS, LocalAssemblyOptions(**opts), min_pair_len
    )
    return [
        (int(r), int(c), "LR"[s], bool(f))
        for r, c, s, f in zip(chosen.read, chosen.contig, chosen.side, chosen.flip, strict=True)
    ]


# (read, contig, orient, rstart, rstop, rlen, cstart, cstop, clen, score)
PLUS_RIGHT = (0, 0, "+", 0, 100, 150, 900, 1000, 1000, 100)
PLUS_LEFT = (2, 0, "+", 50, 150, 150, 0, 100, 1000, 100)
MINUS_RIGHT = (4, 0, "-", 50, 150, 150, 900, 1000, 1000, 100)
MINUS_LEFT = (6, 0, "-", 0, 100, 150, 0, 100, 1000, 100)


@pytest.mark.parametrize(
    ("aln", "expected"),
    [
        (PLUS_RIGHT, (0, 0, "R", False)),  # contig-forward already
        (PLUS_LEFT, (2, 0, "L", True)),  # (+, left): reverse-complemented
        (MINUS_RIGHT, (4, 0, "R", True)),  # (-, right): reverse-complemented
        (MINUS_LEFT, (6, 0, "L", False)),  # (-, left): already revcomp-contig orientation
    ],
)
def test_orientation_for_both_ends_and_both_strands(aln, expected):
    assert side_rows([aln]) == [expected]


def test_reads_inside_the_contig_serve_no_end():
    assert side_rows([(0, 0, "+", 0, 150, 150, 400, 550, 1000, 150)]) == []


def test_alignments_with_more_than_one_unaligned_base_on_a_side_are_dropped():
    # the read stops 2 bases short of both its end and the contig end
    assert side_rows([(0, 0, "+", 0, 98, 150, 900, 998, 1000, 98)]) == []
    # one base short of both ends is tolerated: 51 unaligned read bases > 1 contig base
    assert side_rows([(0, 0, "+", 0, 99, 150, 900, 999, 1000, 99)]) == [(0, 0, "R", False)]


def test_minus_strand_quirk_a_read_ending_at_the_contig_start_counts_as_left():
    # (-): end = classify(rlen - rstop, cstart - 1) = classify(0, -1) -> EXTENDS
    assert side_rows([(0, 0, "-", 0, 150, 150, 0, 150, 1000, 150)]) == [(0, 0, "L", False)]
    # the same geometry on (+) serves no end
    assert side_rows([(0, 0, "+", 0, 150, 150, 0, 150, 1000, 150)]) == []


def test_reverse_strand_read_overhanging_both_ends_goes_right_only_by_default():
    # MHM2 v2.1 tests the read's start first: for '-' it overhangs the contig's right end
    short_contig = (0, 0, "-", 20, 120, 150, 0, 100, 100, 100)
    assert side_rows([short_contig]) == [(0, 0, "R", True)]
    assert side_rows([short_contig], overhang_both_sides=True) == [
        (0, 0, "L", False),
        (0, 0, "R", True),
    ]


def test_read_overhanging_both_ends_goes_left_only_by_default():
    short_contig = (0, 0, "+", 20, 120, 150, 0, 100, 100, 100)
    assert side_rows([short_contig]) == [(0, 0, "L", True)]
    assert side_rows([short_contig], overhang_both_sides=True) == [
        (0, 0, "L", True),
        (0, 0, "R", False),
    ]


# min_pair_len = 460 (insert 400 +- 20)
@pytest.mark.parametrize(
    ("aln", "expected"),
    [
        ((0, 0, "+", 0, 150, 150, 689, 839, 1000, 150), []),  # 460-150-0+1 = 311 <= 311
        ((0, 0, "+", 0, 150, 150, 690, 840, 1000, 150), [(1, 0, "R", True)]),  # 311 > 310
        ((3, 0, "+", 0, 150, 150, 700, 850, 1000, 150), [(2, 0, "R", True)]),  # mate of 3 is 2
        ((0, 0, "-", 0, 150, 150, 159, 309, 1000, 150), []),  # 460-300+0-1 = 159 <= 159
        ((0, 0, "-", 0, 150, 150, 158, 308, 1000, 150), [(1, 0, "L", True)]),  # '+' mate, left
    ],
)
def test_mate_projection(aln, expected):
    assert side_rows([aln], min_pair_len=460) == expected


def test_a_direct_read_and_its_projected_mate_both_serve_the_end():
    assert side_rows([PLUS_RIGHT], min_pair_len=460) == [(0, 0, "R", False), (1, 0, "R", True)]


def test_single_end_reads_project_no_mates():
    assert side_rows([(0, 0, "+", 0, 150, 150, 700, 850, 1000, 150)]) == []


def test_best_alignment_per_read_and_its_tie_rules():
    rows = [
        (0, 1, "+", 0, 100, 150, 900, 1000, 1000, 90),
        (0, 2, "+", 0, 100, 150, 900, 1000, 1000, 100),
        (0, 0, "+", 50, 150, 150, 0, 100, 1000, 100),
    ]
    last = best_per_read(Alignments.from_rows(rows), "last")
    assert last.contig.tolist() == [0]
    lowest = best_per_read(Alignments.from_rows(rows), "lowest")
    assert lowest.contig.tolist() == [0]  # cstart 0 < 900
    rows[2] = (0, 0, "+", 0, 100, 150, 900, 1000, 1000, 100)
    assert best_per_read(Alignments.from_rows(rows), "last").contig.tolist() == [0]
    assert best_per_read(Alignments.from_rows(rows), "lowest").contig.tolist() == [2]


def test_reads_shorter_than_121_are_skipped_unless_allowed():
    lengths = LENGTHS.copy()
    lengths[0] = 120
    alns = Alignments.from_rows([PLUS_RIGHT])
    assert len(select_reads(alns, lengths, OPTS, None).read) == 0
    relaxed = LocalAssemblyOptions(min_read_length=0)
    assert select_reads(alns, lengths, relaxed, None).read.tolist() == [0]


def test_at_most_max_reads_per_side_in_read_order():
    rows = [(r, 0, "+", 0, 100, 150, 900, 1000, 1000, 100) for r in (8, 2, 6, 4)]
    chosen = select_reads(
        Alignments.from_rows(rows), LENGTHS, LocalAssemblyOptions(max_reads_per_side=3), None
    )
    assert chosen.read.tolist() == [2, 4, 6]
    assert (chosen.direct, chosen.excess) == (4, 1)
    assert chosen.side.tolist() == [RIGHT] * 3


def test_min_identity_drops_alignments_with_mismatches_in_the_aligned_part():
    # 100 aligned bases scoring 96: two mismatches, identity 0.98
    two_mismatches = (0, 0, "+", 0, 100, 150, 900, 1000, 1000, 96)
    assert side_rows([two_mismatches]) == [(0, 0, "R", False)]
    assert side_rows([two_mismatches], min_identity=0.98) == [(0, 0, "R", False)]
    assert side_rows([two_mismatches], min_identity=0.981) == []


def test_min_identity_filters_before_the_best_alignment_is_chosen():
    # the higher-scoring alignment (contig 1, 120 bases, 4 mismatches) fails 0.97; contig 0 serves
    rows = [
        (0, 0, "+", 0, 100, 150, 900, 1000, 1000, 100),
        (0, 1, "+", 0, 120, 150, 880, 1000, 1000, 112),
    ]
    assert side_rows(rows) == [(0, 1, "R", False)]
    assert side_rows(rows, min_identity=0.97) == [(0, 0, "R", False)]
