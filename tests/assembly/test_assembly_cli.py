"""``seqwarp extend``: every option exercised once through ``seqwarp.cli.main``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from assembly_simulate import cli_inputs, random_dna, revcomp
from assembly_simulate import run_extend as run

from seqwarp.assembly.report import END_COLUMNS
from seqwarp.cli import main

GENOME = random_dna(3000, 7)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return cli_inputs(tmp_path_factory.mktemp("cli"), GENOME)


def report_rows(path) -> list[list[str]]:
    lines = path.read_text().splitlines()
    assert lines[0].split("\t") == list(END_COLUMNS)
    return [line.split("\t") for line in lines[1:]]


def test_outputs_and_report(data, tmp_path):
    _, contigs, r1, r2 = data
    fasta, tsv = tmp_path / "out.fa", tmp_path / "ends.tsv"
    code, out, err = run(contigs, r1, r2, "-o", fasta, "--report", tsv)
    assert (code, out) == (0, "")
    assert err == (
        "seqwarp extend: 4 contig ends walked, 1555 bases added; outcomes X=4 F=0 R=0 limit=0; "
        "insert size (396, 20), walk limit 436, depth from read coverage\n"
    )
    assert fasta.read_text() == f">c1\n{GENOME[596:2376]}\n>c2\n{revcomp(GENOME[1818:2993])}\n"
    assert report_rows(tsv)[0] == ["c1", "R", "78", "41", "21", "376", "X", "1", "1", "0", "0"]


def test_fasta_to_stdout_by_default(data):
    _, contigs, r1, r2 = data
    code, out, _ = run(contigs, r1, r2)
    assert code == 0
    assert out.splitlines()[1] == GENOME[596:2376]


def test_insert_size_option(data, tmp_path):
    _, contigs, r1, r2 = data
    code, _, err = run(contigs, r1, r2, "-i", "100:10", "-o", tmp_path / "o.fa")
    assert code == 0
    assert "limit=4;" in err and "walk limit 120" in err


def test_k_option_starts_the_walk_at_that_k(data, tmp_path):
    _, contigs, r1, r2 = data
    tsv = tmp_path / "ends.tsv"
    assert run(contigs, r1, r2, "-k", "33", "--report", tsv, "-o", tmp_path / "o.fa")[0] == 0
    # X at 33 -> down-shift to 25 -> X -> 17 < 21: two iterations, the first wins the tie
    assert {(row[4], row[7]) for row in report_rows(tsv)} == {("33", "2")}


def test_depth_option(data, tmp_path):
    _, contigs, r1, r2 = data
    code, _, err = run(contigs, r1, r2, "--depth", "headers", "-o", tmp_path / "o.fa")
    assert (code, err) == (
        2,
        f"seqwarp extend: error: {contigs}: not every contig header carries its depth as multi=\n",
    )


def test_read_selection_options(data, tmp_path):
    _, contigs, r1, r2 = data
    tsv = tmp_path / "ends.tsv"
    args = ("--max-reads", "5", "--ties", "lowest", "--both-sides", "--min-read-length", "0")
    assert run(contigs, r1, r2, *args, "--report", tsv, "-o", tmp_path / "o.fa")[0] == 0
    assert {row[2] for row in report_rows(tsv)} == {"5"}


def test_threads_and_keep_short(data, tmp_path):
    directory, _, r1, r2 = data
    contigs = directory / "with_short.fa"
    contigs.write_text(f">c1\n{GENOME[1000:2000]}\n>tiny\nACGT\n")
    code, out, _ = run(contigs, r1, r2, "--keep-short", "-t", "1")
    assert code == 0
    assert out.splitlines()[2:] == [">tiny", "ACGT"]


def test_alignments_option_reads_a_sam(data, tmp_path):
    _, contigs, r1, r2 = data
    sam = tmp_path / "none.sam"
    sam.write_text("@HD\tVN:1.6\n@SQ\tSN:c1\tLN:1000\n@SQ\tSN:c2\tLN:400\n")
    code, out, err = run(contigs, r1, r2, "--alignments", sam, "-i", "400:20")
    # no alignments: nothing walked, contigs unchanged
    assert code == 0
    assert out == f">c1\n{GENOME[1000:2000]}\n>c2\n{revcomp(GENOME[2200:2600])}\n"
    assert err.startswith("seqwarp extend: 0 contig ends walked, 0 bases added;")


def test_accuracy_strict_extends_less_or_as_much(data, tmp_path):
    _, contigs, r1, r2 = data
    mhm2_tsv, strict_tsv = tmp_path / "default.tsv", tmp_path / "strict.tsv"
    assert run(contigs, r1, r2, "--report", mhm2_tsv, "-o", tmp_path / "d.fa")[0] == 0
    code, _, _ = run(contigs, r1, r2, "--accuracy", "strict", "--report", strict_tsv)
    assert code == 0
    mhm2 = [int(row[5]) for row in report_rows(mhm2_tsv)]
    strict = [int(row[5]) for row in report_rows(strict_tsv)]
    assert len(strict) == len(mhm2)
    assert all(s <= d for d, s in zip(mhm2, strict, strict=True))
    assert sum(strict) < sum(mhm2)


@pytest.mark.parametrize(
    "flag",
    [
        ("--min-votes", "2"),
        ("--min-hiq-votes", "2"),
        ("--min-rating", "3"),
        ("--fork-ratio", "0"),
        ("--rival-ratio", "0.2"),
        ("--min-identity", "0.98"),
    ],
)
def test_each_accuracy_flag_is_accepted(data, tmp_path, flag):
    _, contigs, r1, r2 = data
    assert run(contigs, r1, r2, *flag, "-o", tmp_path / "o.fa")[0] == 0


def test_an_accuracy_flag_overrides_the_preset(data, tmp_path):
    _, contigs, r1, r2 = data
    preset, relaxed = tmp_path / "preset.tsv", tmp_path / "relaxed.tsv"
    assert run(contigs, r1, r2, "--accuracy", "strict", "--report", preset)[0] == 0
    args = ("--accuracy", "strict", "--min-rating", "1", "--report", relaxed)
    assert run(contigs, r1, r2, *args)[0] == 0
    assert [r[5] for r in report_rows(preset)] != [r[5] for r in report_rows(relaxed)]


def test_bad_accuracy_values_fail(data):
    _, contigs, r1, r2 = data
    code, _, err = run(contigs, r1, r2, "--fork-ratio", "1.5")
    assert (code, err) == (
        2,
        "seqwarp extend: error: invalid value for 'fork_ratio': 1.5; expected a value in 0..1\n",
    )
    code, _, err = run(contigs, r1, r2, "--accuracy", "loose")
    assert code == 2
    assert "invalid choice: 'loose'" in err


def test_ends_not_walked_are_not_counted_as_walked(data, tmp_path):
    directory, _, r1, r2 = data
    contigs = directory / "with_30bp.fa"
    contigs.write_text(f">c1\n{GENOME[1000:2000]}\n>tiny\n{GENOME[2500:2530]}\n")
    tsv = tmp_path / "ends.tsv"
    code, _, err = run(contigs, r1, r2, "-k", "33", "--keep-short", "--report", tsv)
    assert code == 0
    # tiny (30 bp < k) has reads at both ends but is not walked
    assert [row[6] for row in report_rows(tsv)] == ["X", "X", "-", "-"]
    assert err.startswith(
        "seqwarp extend: 2 contig ends walked (2 with reads not walked: contig shorter than k), "
    )


def test_a_warning_when_min_read_length_skips_most_reads(data):
    _, contigs, r1, r2 = data
    code, _, err = run(contigs, r1, r2, "--min-read-length", "151", "-i", "400:20")
    assert code == 0
    assert err.splitlines()[0] == (
        "seqwarp extend: warning: 800 of 800 reads are shorter than --min-read-length 151 and "
        "were skipped; --min-read-length 0 uses them"
    )
    code, _, err = run(contigs, r1, r2, "-i", "400:20")
    assert code == 0
    assert "warning" not in err


def help_text() -> str:
    out = io.StringIO()
    assert main(["extend", "--help"], stdout=out) == 0
    return " ".join(out.getvalue().split())


def test_help_says_where_mhm2_puts_a_read_overhanging_both_ends():
    assert (
        "MHM2 v2.1 gives it one: the left end for a read on the contig's strand, the right for "
        "a reverse-strand read" in help_text()
    )


def test_help_of_threads():
    assert "-t THREADS, --threads THREADS threads (default: all cores)" in help_text()
    assert "numba" not in help_text()


def test_readme_lists_every_report_column_and_outcome():
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("## Local assembly")[1].split("\n## ")[0]
    for column in END_COLUMNS:
        assert f"`{column}`" in section
    for outcome in ("X", "F", "R", "L", "-"):
        assert f"`{outcome}`" in section
