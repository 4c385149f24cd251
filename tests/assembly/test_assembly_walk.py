"""k-mer votes, the walk and the k-shift loop (MetaHipMer2 §3, §5, §6) on hand-built reads."""

from __future__ import annotations

import random

import numpy as np
import pytest
from assembly_naive import iterate
from assembly_walk_helpers import params, read_batch, walk_ends, walk_one

from seqwarp.assembly.kmer_table import find, hash_kmer
from seqwarp.assembly.pack import pack_ends
from seqwarp.assembly.walk import count_mers
from seqwarp.sequences import SequenceBatch


def random_dna(length: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice("ACGT") for _ in range(length))


def tiles(genome: str, starts: range, length: int, qual: str = "I") -> list[tuple[str, str]]:
    return [(genome[a : a + length], qual * length) for a in starts]


def votes_of(reads: list[tuple[str, str]], mer: str) -> list[int] | None:
    """The 8 vote counters of one k-mer after counting ``reads`` with k = len(mer)."""
    batch = read_batch(reads)
    reads_in, _ = pack_ends([batch[0]], np.array([0]), batch, np.array([len(reads)]), 121)
    table, votes = count_mers(reads_in, 0, len(reads), len(mer), params())
    codes = SequenceBatch.from_strings([mer])[0]
    slot = find(table, reads_in.codes, codes, 0, len(mer), hash_kmer(codes, 0, len(mer)))
    return None if slot < 0 else votes[slot].tolist()


# --- votes (§3) ---------------------------------------------------------------------------

MER = "ACGTACGTACGTACGTACGTA"  # 21 bp


@pytest.mark.parametrize(
    ("qual", "expected"),
    [("*", [0] * 8), ("+", [0, 1, 0, 0, 0, 0, 0, 0]), ("4", [0, 1, 0, 0, 0, 0, 0, 0])],
)
def test_successor_quality_thresholds_10_and_20(qual, expected):
    # '*' = Q9 (no vote), '+' = Q10 (vote), '4' = Q19 (vote, not high quality)
    assert votes_of([(MER + "C", "I" * 21 + qual)], MER) == expected


def test_successor_of_quality_20_is_a_high_quality_vote():
    assert votes_of([(MER + "C", "I" * 21 + "5")], MER) == [0, 1, 0, 0, 0, 1, 0, 0]


def test_quality_offset_is_subtracted_from_the_successor_quality_only():
    # the k-mer's own qualities do not matter
    assert votes_of([(MER + "G", "!" * 21 + "I")], MER) == [0, 0, 1, 0, 0, 0, 1, 0]


def test_a_read_last_kmer_has_no_successor_and_is_not_inserted():
    assert votes_of([(MER, "I" * 21)], MER) is None


def test_kmers_with_n_are_skipped_and_n_successors_do_not_vote():
    with_n = "N" + MER[1:]
    assert votes_of([(with_n + "C", "I" * 22)], with_n) is None
    assert votes_of([(MER + "NA", "I" * 23)], MER) == [0] * 8


def test_votes_add_up_over_reads():
    reads = [(MER + "T", "I" * 22)] * 3 + [(MER + "A", "I" * 21 + "+")]
    assert votes_of(reads, MER) == [1, 0, 0, 3, 0, 0, 0, 3]


# --- the walk (§5) ------------------------------------------------------------------------

GENOME = random_dna(600, 1)


def test_walk_follows_reads_to_the_last_kmer_with_a_successor():
    contig = GENOME[:200]
    # farthest read ends at 380; its last 21-mer has no successor
    outcome, walked, k, iterations = walk_one(contig, tiles(GENOME, range(100, 240, 10), 150))
    assert (outcome, walked, k, iterations) == ("X", GENOME[200:380], 21, 1)


def test_walk_limit_ends_as_a_dead_end_at_the_limit():
    contig = GENOME[:200]
    outcome, walked, _, iterations = walk_one(
        contig, tiles(GENOME, range(100, 240, 10), 150), limit=25
    )
    # 'L' is an X that ran out of steps: a downshift follows (21 - 8 < 21: stop)
    assert (outcome, walked, iterations) == ("L", GENOME[200:225], 1)


def test_walk_stops_at_a_fork_between_two_strains():
    contig = GENOME[:200]
    strain = GENOME[:230] + ("A" if GENOME[230] != "A" else "C") + GENOME[231:]
    reads = tiles(GENOME, range(100, 160, 20), 150) + tiles(strain, range(100, 160, 20), 150)
    # equal votes at every k: F at k = 21, 29, ..., 93; at 101 the contig's k-mer is missing
    assert walk_one(contig, reads) == ("F", GENOME[200:230], 21, 11)


def test_walk_missing_contig_kmer_is_a_dead_end_with_nothing_walked():
    outcome, walked, k, iterations = walk_one(GENOME[:200], tiles(GENOME, range(300, 400, 10), 150))
    assert (outcome, walked, k, iterations) == ("X", "", 21, 1)


def test_walk_stops_on_a_repeat_and_upshifts_until_the_contig_length():
    unit = random_dna(30, 2)
    periodic = unit * 20
    contig = periodic[:45]
    reads = tiles(periodic, range(0, 400, 15), 150)
    outcome, walked, k, iterations = walk_one(contig, reads)
    # k = 21, 29, 37, 45 all cycle (period 30); 53 > len(contig) = 45 ends the loop
    assert outcome == "R"
    assert walked == periodic[45:75]
    assert (k, iterations) == (21, 4)


def test_min_votes_stops_where_only_one_read_covers_the_next_base():
    contig = GENOME[:200]
    reads = tiles(GENOME, range(100, 240, 10), 150)
    # bases 370..379 are voted for by the last read only (k = 21: X, 13 < 21 stops)
    assert walk_one(contig, reads, min_votes=2) == ("X", GENOME[200:370], 21, 1)
    assert walk_one(contig, reads, min_votes=3) == ("X", GENOME[200:360], 21, 1)


def test_a_minority_strain_is_followed_by_default_and_forks_with_fork_ratio_zero():
    contig = GENOME[:200]
    strain = GENOME[:230] + ("A" if GENOME[230] != "A" else "C") + GENOME[231:]
    reads = tiles(GENOME, range(100, 160, 10), 150) + tiles(strain, range(100, 160, 20), 150)
    # 6 reads against 3 at depth 0: both bases rate 7 and the majority wins
    outcome, walked, _, _ = walk_one(contig, reads)
    assert (outcome, walked) == ("X", GENOME[200:300])
    outcome, walked, k, _ = walk_one(contig, reads, fork_ratio=0.0)
    assert (outcome, walked, k) == ("F", GENOME[200:230], 21)


def test_rival_ratio_forks_at_a_single_read_of_another_strain():
    contig = GENOME[:200]
    strain = GENOME[:230] + ("A" if GENOME[230] != "A" else "C") + GENOME[231:]
    reads = tiles(GENOME, range(100, 160, 10), 150) + tiles(strain, range(100, 101), 150)
    # 6 votes against 1 at k = 21: MHM2 follows the 6 (rating 7 against 1)
    assert walk_one(contig, reads)[:2] == ("X", GENOME[200:300])
    assert walk_one(contig, reads, rival_ratio=0.17)[:2] == ("X", GENOME[200:300])
    assert walk_one(contig, reads, rival_ratio=0.16)[:2] == ("F", GENOME[200:230])


# --- the k-shift loop (§6) ----------------------------------------------------------------


def test_fork_at_k_upshifts_and_a_dead_end_after_the_upshift_stops():
    # the contig is followed by a 25-bp repeat present three times: three sevens at k = 21
    repeat, tail = random_dna(25, 3), random_dna(400, 4)
    parts = ["A" + tail[1:60], "C" + tail[61:120], "G" + tail[121:]]
    genome = GENOME[:200] + "".join(repeat + part for part in parts)
    reads = tiles(genome, range(100, len(genome) - 149, 5), 150)
    outcome, walked, k, iterations = walk_one(GENOME[:200], reads, limit=1000)
    # k = 21: F after the first copy; k = 29 spans the repeat and walks to the last read's end
    assert (outcome, k, iterations) == ("X", 29, 2)
    assert walked == genome[200 : 100 + 5 * ((len(genome) - 250) // 5) + 150]


def test_dead_end_downshifts_until_a_fork_stops_the_loop():
    contig = GENOME[:200]
    strain = GENOME[:250] + ("A" if GENOME[250] != "A" else "C") + GENOME[251:]
    # reads reach 40 bases into the contig, so only k <= 40 finds the contig's last k-mer
    reads = tiles(GENOME, range(160, 170, 5), 150) + tiles(strain, range(162, 172, 5), 150)
    outcome, walked, k, iterations = walk_one(contig, reads, k=77)
    # k = 77, 69, 61, 53, 45: X (down-shifts); 37: F after a down-shift -> stop
    assert (outcome, walked, k, iterations) == ("F", GENOME[200:250], 37, 6)


def test_dead_end_downshifts_to_the_smallest_k_and_keeps_the_earliest_longest():
    contig = GENOME[:200]
    reads = tiles(GENOME, range(170, 175, 5), 150)
    outcome, walked, k, iterations = walk_one(contig, reads, k=45)
    # k = 45, 37: X (the read covers 30 contig bases); 29, 21: X at the read's end (320);
    # 13 < 21 stops; 29 and 21 tie and the earlier wins
    assert (outcome, walked, k, iterations) == ("X", GENOME[200:320], 29, 4)


def test_round_k_larger_than_the_contig_walks_nothing():
    # k = 33 > min(121, 30): the loop never runs
    assert walk_one(GENOME[:30], tiles(GENOME, range(0, 50, 5), 150), k=33) == ("-", "", 0, 0)


# --- the kernel against the plain-Python oracle ---------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_kernel_matches_the_oracle_on_random_ends(seed):
    rng = random.Random(seed)
    ends = []
    for end in range(4):
        genome = random_dna(700, 100 * seed + end)
        if rng.random() < 0.5:  # a second strain: forks
            p = rng.randrange(260, 400)
            strain = genome[:p] + rng.choice("ACGT") + genome[p + 1 :]
        else:
            strain = genome
        clen = rng.randrange(40, 250)
        reads = []
        for _ in range(rng.randrange(5, 60)):
            source = strain if rng.random() < 0.3 else genome
            a = rng.randrange(max(0, clen - 140), clen + 150)
            length = rng.randrange(60, 151)
            seq = list(source[a : a + length])
            for j in range(len(seq)):
                if rng.random() < 0.02:
                    seq[j] = rng.choice("ACGTN")
            quals = "".join(chr(33 + rng.choice([2, 9, 10, 15, 19, 20, 30, 40])) for _ in seq)
            reads.append(("".join(seq), quals))
        ends.append((genome[:clen], reads, rng.randrange(0, 40)))
    k = rng.choice([21, 33, 55])
    out = walk_ends(ends, k=k, limit=150)
    for e, (contig, reads, depth) in enumerate(ends):
        expected = iterate(contig, reads, k, depth, 150)
        walked = "".join("ACGT"[b] for b in out.bases[e, : out.length[e]])
        got = ("XFRL"[out.outcome[e]] if out.outcome[e] >= 0 else None, walked, int(out.k[e]))
        assert got == (expected if expected else (None, "", 0))
