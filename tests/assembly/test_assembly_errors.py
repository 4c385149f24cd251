"""Bad input: a clear typed error naming the file and record, from the API and the CLI."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from assembly_simulate import random_dna, simulate_pairs, write_fastq, write_pairs

from seqwarp.assembly.api import extend_contigs
from seqwarp.assembly.options import LocalAssemblyOptions
from seqwarp.cli import main
from seqwarp.errors import InvalidParameter, LengthMismatch, SequenceFileError

GENOME = random_dna(2000, 3)


@pytest.fixture
def files(tmp_path):
    r1, r2 = write_pairs(tmp_path, simulate_pairs(GENOME, 60, 2))
    contigs = tmp_path / "contigs.fa"
    contigs.write_text(f">c1\n{GENOME[500:1500]}\n")
    return tmp_path, contigs, r1, r2


def cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["extend", *map(str, args)], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_reads_without_qualities(files):
    directory, contigs, _, _ = files
    fasta = directory / "reads.fa"
    fasta.write_text(f">r1\n{GENOME[:150]}\n")
    message = f"{fasta}: has no base qualities (FASTQ is required)"
    with pytest.raises(SequenceFileError, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, fasta, insert_size=(400, 20))
    assert cli(contigs, fasta, "-i", "400:20") == (2, "", f"seqwarp extend: error: {message}\n")


def test_contig_shorter_than_k(files):
    directory, _, r1, r2 = files
    contigs = directory / "short.fa"
    contigs.write_text(f">long\n{GENOME[:500]}\n>tiny\n{GENOME[:20]}\n")
    message = f"{contigs}: record 'tiny' (#1) is 20 bp, shorter than k=21 (1 contig(s) in all)"
    with pytest.raises(SequenceFileError, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, r1, r2)
    assert cli(contigs, r1, r2)[0::2] == (2, f"seqwarp extend: error: {message}\n")
    kept = extend_contigs(contigs, r1, r2, insert_size=(400, 20), keep_short_contigs=True)
    assert kept.contigs.sequence(1) == GENOME[:20]


@pytest.mark.parametrize("which", ["contigs", "reads"])
def test_empty_files(files, which):
    directory, contigs, r1, r2 = files
    empty = directory / "empty.fq"
    empty.write_text("")
    args = (empty, r1, r2) if which == "contigs" else (contigs, empty, r2)
    message = f"{empty}: holds no sequences (empty file)"
    with pytest.raises(SequenceFileError, match=f"^{re.escape(message)}$"):
        extend_contigs(*args)
    assert cli(*args)[0::2] == (2, f"seqwarp extend: error: {message}\n")


def test_paired_files_of_unequal_length(files):
    directory, contigs, r1, _ = files
    r2 = write_fastq(directory / "short_2.fq", ["a/2"], [(GENOME[:150], "I" * 150)])
    message = f"{r1} and {r2}: 60 vs 1 records; they must pair up one-to-one"
    with pytest.raises(LengthMismatch, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, r1, r2)
    assert cli(contigs, r1, r2)[0::2] == (2, f"seqwarp extend: error: {message}\n")


def test_paired_files_whose_mates_differ(files):
    directory, contigs, r1, _ = files
    records = r1.read_text().splitlines()
    second = [records[i : i + 4] for i in range(0, len(records), 4)]
    second[5], second[12] = second[12], second[5]
    for record in second:
        record[0] = record[0][:-1] + "2 extra words"
    r2 = directory / "shuffled_2.fq"
    r2.write_text("\n".join(line for record in second for line in record) + "\n")
    message = (
        f"{r1} and {r2}: record #5 is 'p5/1' in the first file but 'p12/2' in the second; "
        "mates must have the same name, in the same order"
    )
    with pytest.raises(SequenceFileError, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, r1, r2)
    assert cli(contigs, r1, r2)[0::2] == (2, f"seqwarp extend: error: {message}\n")


def test_mates_match_by_name_up_to_whitespace_without_1_and_2(files):
    directory, contigs, r1, r2 = files
    plain = directory / "plain_2.fq"
    lines = r2.read_text().splitlines()
    lines[0::4] = [line[:-2] + " 2:N:0:1" for line in lines[0::4]]
    plain.write_text("\n".join(lines) + "\n")
    assert extend_contigs(contigs, r1, plain, insert_size=(400, 20)).ends.extension.sum() > 0


@pytest.mark.parametrize(
    ("depth", "message"),
    [
        (
            [float("nan")],
            "invalid value for 'depth': nan; expected a finite value >= 0 (contig 'c1', #0)",
        ),
        ([-1.0], "invalid value for 'depth': -1.0; expected a finite value >= 0 (contig 'c1', #0)"),
        ([3.0, 4.0], "depths and contigs: 2 vs 1 records; they must pair up one-to-one"),
    ],
    ids=["nan", "negative", "one-too-many"],
)
def test_depths_given_by_the_caller_are_checked_before_any_work(files, depth, message):
    _, contigs, _, _ = files
    # the reads do not exist: the depths are refused before the reads are read
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, "no-such-reads.fq", depth=np.array(depth))


@pytest.mark.parametrize("threads", [0, -2, 1.5, True])
def test_threads_must_be_a_whole_number_of_at_least_one(files, threads):
    _, contigs, r1, r2 = files
    message = f"invalid value for 'threads': {threads!r}; expected a value >= 1 (leave it out for all cores)"
    with pytest.raises(InvalidParameter, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, r1, r2, threads=threads)


def test_single_end_reads_need_an_insert_size(files):
    _, contigs, r1, _ = files
    message = (
        "invalid value for 'insert_size': None; "
        "single-end reads need the insert size as MEAN:STDDEV"
    )
    with pytest.raises(InvalidParameter, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, r1)


def test_too_few_pairs_to_estimate_the_insert_size(files):
    directory, _, _, _ = files
    r1, r2 = write_pairs(directory, simulate_pairs(GENOME, 3, 5))
    contigs = directory / "whole.fa"
    contigs.write_text(f">whole\n{GENOME}\n")
    message = (
        "invalid value for 'insert_size': 'auto'; only 3 read pairs align facing each other "
        "on one contig (at least 10 needed); give the insert size as MEAN:STDDEV"
    )
    with pytest.raises(InvalidParameter, match=f"^{re.escape(message)}$"):
        extend_contigs(contigs, r1, r2)


def test_missing_file(files):
    _, contigs, r1, _ = files
    code, _, err = cli(contigs, r1, "nowhere.fq")
    assert (code, err) == (2, "seqwarp extend: error: nowhere.fq: no such file\n")


def test_bad_option_values(files):
    _, contigs, r1, r2 = files
    code, _, err = cli(contigs, r1, r2, "-k", "10")
    assert (code, err) == (
        2,
        "seqwarp extend: error: invalid value for 'k': 10; expected a value in 21..121\n",
    )
    code, _, err = cli(contigs, r1, r2, "-i", "400")
    assert code == 2
    assert err.splitlines()[-1].endswith("expected MEAN:STDDEV, got '400'")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"best_alignment_ties": "first"},
            "invalid value for 'best_alignment_ties': 'first' (expected one of: last, lowest)",
        ),
        ({"k": 130}, "invalid value for 'k': 130; expected a value in 21..121"),
        (
            {"max_reads_per_side": 0},
            "invalid value for 'max_reads_per_side': 0; expected a value >= 1",
        ),
        ({"min_read_length": 1.5}, "invalid value for 'min_read_length': 1.5; expected an integer"),
        ({"min_votes": 0}, "invalid value for 'min_votes': 0; expected a value >= 1"),
        ({"min_hiq_votes": -1}, "invalid value for 'min_hiq_votes': -1; expected a value >= 0"),
        ({"min_rating": 8}, "invalid value for 'min_rating': 8; expected a value in 1..7"),
        ({"rival_ratio": -0.1}, "invalid value for 'rival_ratio': -0.1; expected a value in 0..1"),
        ({"min_identity": 2.0}, "invalid value for 'min_identity': 2.0; expected a value in 0..1"),
    ],
)
def test_invalid_options(options, message):
    with pytest.raises(InvalidParameter, match=f"^{re.escape(message)}$"):
        LocalAssemblyOptions(**options)


def test_unknown_accuracy_preset():
    message = "invalid value for 'accuracy': 'loose' (expected one of: mhm2, strict)"
    with pytest.raises(InvalidParameter, match=f"^{re.escape(message)}$"):
        LocalAssemblyOptions.preset("loose")
