"""extend_contigs end to end on simulated pairs: truth, determinism, depth and insert size."""

from __future__ import annotations

import numpy as np
import pytest
from assembly_simulate import random_dna, revcomp, simulate_pairs, write_pairs

from seqwarp.assembly.api import _walk_params, extend_contigs
from seqwarp.assembly.options import PRESETS, LocalAssemblyOptions
from seqwarp.assembly.report import write_ends, write_fasta
from seqwarp.assembly.rules import MHM2_RULE
from seqwarp.assembly.select import Alignments

GENOME = random_dna(3000, 7)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    directory = tmp_path_factory.mktemp("extend")
    r1, r2 = write_pairs(directory, simulate_pairs(GENOME, 400, 1))
    contigs = directory / "contigs.fa"
    contigs.write_text(f">c1\n{GENOME[1000:2000]}\n>c2\n{revcomp(GENOME[2200:2600])}\n")
    return directory, contigs, r1, r2


def test_extensions_match_the_genome(data):
    _, contigs, r1, r2 = data
    result = extend_contigs(contigs, r1, r2)
    first = result.contigs.sequence(0)
    second = revcomp(result.contigs.sequence(1))
    assert first == GENOME[596:2376]
    assert second == GENOME[1818:2993]
    assert result.insert_size == (396, 20)
    assert result.walk_limit == 436
    ends = result.ends
    assert ends.side.tolist() == ["R", "L", "R", "L"]
    assert ends.extension.tolist() == [376, 404, 382, 393]
    assert ends.outcome == ["X", "X", "X", "X"]
    assert ends.k.tolist() == [21, 21, 21, 21]


@pytest.mark.parametrize("accuracy", ["mhm2", "strict"])
def test_output_is_identical_with_1_and_2_threads_and_run_to_run(data, tmp_path, accuracy):
    _, contigs, r1, r2 = data
    options = LocalAssemblyOptions.preset(accuracy)
    outputs = []
    for run, threads in enumerate((1, 2, 2)):
        result = extend_contigs(contigs, r1, r2, options=options, threads=threads)
        write_fasta(result, tmp_path / f"{run}.fa")
        write_ends(result, tmp_path / f"{run}.tsv")
        outputs.append(
            ((tmp_path / f"{run}.fa").read_bytes(), (tmp_path / f"{run}.tsv").read_bytes())
        )
    assert outputs[0] == outputs[1] == outputs[2]


def test_given_insert_size_sets_the_walk_limit(data):
    _, contigs, r1, r2 = data
    result = extend_contigs(contigs, r1, r2, insert_size=(100, 10))
    assert result.walk_limit == 120
    # every walk stops at the limit and down-shifts once (21 - 8 < 21)
    assert result.ends.outcome == ["L", "L", "L", "L"]
    assert result.ends.extension.tolist() == [120] * 4
    assert result.contigs.sequence(0) == GENOME[880:2120]


def test_depth_comes_from_megahit_headers_truncated(data, tmp_path):
    _, _, r1, r2 = data
    contigs = tmp_path / "megahit.fa"
    contigs.write_text(
        f">k21_1 flag=1 multi=12.9000 len=1000\n{GENOME[1000:2000]}\n"
        f">k21_2 flag=1 multi=3.5 len=400\n{revcomp(GENOME[2200:2600])}\n"
    )
    result = extend_contigs(contigs, r1, r2)
    assert result.depth_source == "contig headers (multi=)"
    assert result.ends.depth.tolist() == [12, 12, 3, 3]
    coverage = extend_contigs(contigs, r1, r2, depth="coverage")
    assert coverage.depth_source == "read coverage"
    assert coverage.ends.depth.tolist() == [41, 41, 45, 45]


def test_single_end_reads_walk_without_mates(data):
    _, contigs, r1, _ = data
    result = extend_contigs(contigs, r1, insert_size=(396, 20))
    assert result.counts["projected"] == 0
    assert GENOME.find(result.contigs.sequence(0)) >= 0
    assert np.all(result.ends.extension > 0)


def test_short_reads_are_skipped_by_default_and_used_on_request(data, tmp_path):
    _, contigs, r1, r2 = data
    short = []
    for path in (r1, r2):
        lines = path.read_text().splitlines()
        for i in range(1, len(lines), 4):
            lines[i] = lines[i][:100]
            lines[i + 2] = lines[i + 2][:100]
        short.append(tmp_path / path.name)
        short[-1].write_text("\n".join(lines) + "\n")
    skipped = extend_contigs(contigs, *short, insert_size=(396, 20))
    assert len(skipped.ends.side) == 0
    assert skipped.contigs.sequence(0) == GENOME[1000:2000]
    used = extend_contigs(
        contigs, *short, insert_size=(396, 20), options=LocalAssemblyOptions(min_read_length=0)
    )
    assert used.ends.extension.sum() > 0


def test_reads_on_both_strands_extend_both_ends(tmp_path):
    # contig = G[200:500]; two reads per end, one on each strand, given as alignments
    contig = GENOME[200:500]
    reads = [
        GENOME[400:550],  # '+', overhangs the right end
        revcomp(GENOME[420:570]),  # '-', overhangs the right end
        GENOME[150:300],  # '+', overhangs the left end
        revcomp(GENOME[130:280]),  # '-', overhangs the left end
    ]
    fastq = tmp_path / "reads.fq"
    fastq.write_text("".join(f"@r{i}\n{s}\n+\n{'I' * len(s)}\n" for i, s in enumerate(reads)))
    contigs = tmp_path / "contig.fa"
    contigs.write_text(f">c\n{contig}\n")
    alns = Alignments.from_rows(
        [
            (0, 0, "+", 0, 100, 150, 200, 300, 300, 100),
            (1, 0, "-", 70, 150, 150, 220, 300, 300, 80),
            (2, 0, "+", 50, 150, 150, 0, 100, 300, 100),
            (3, 0, "-", 0, 80, 150, 0, 80, 300, 80),
        ]
    )
    result = extend_contigs(contigs, fastq, alignments=alns, insert_size=(300, 10))
    assert result.contigs.sequence(0) == GENOME[130:570]
    assert result.ends.reads.tolist() == [2, 2]
    assert result.ends.extension.tolist() == [70, 70]


def test_defaults_are_mhm2_and_the_strict_preset_only_adds_stricter_choices():
    assert LocalAssemblyOptions.preset("mhm2") == LocalAssemblyOptions()
    strict = LocalAssemblyOptions.preset("strict")
    default = LocalAssemblyOptions()
    changed = {
        name
        for name in (
            "min_votes",
            "min_hiq_votes",
            "min_rating",
            "fork_ratio",
            "rival_ratio",
            "min_identity",
        )
        if getattr(strict, name) != getattr(default, name)
    }
    assert changed == set(PRESETS["strict"])
    assert strict.k == default.k and strict.min_read_length == default.min_read_length
    assert LocalAssemblyOptions.preset("strict", min_rating=1).min_rating == 1


def test_default_walk_params_apply_mhm2_choices():
    params = _walk_params(LocalAssemblyOptions(), 100)
    chosen = (
        params.min_votes,
        params.min_hiq_votes,
        params.min_rating,
        params.fork_ratio,
        params.rival_ratio,
    )
    assert chosen == tuple(MHM2_RULE)
