"""``seqwarp extend`` outputs: all or nothing, checked before any work, contig text kept."""

from __future__ import annotations

import pytest
from assembly_simulate import cli_inputs, random_dna
from assembly_simulate import run_extend as run

from seqwarp.assembly.api import extend_contigs

GENOME = random_dna(3000, 7)
# every IUPAC ambiguity code, N, lower case and U: none of them may be rewritten
ODD_TEXT = "ACGTRYKMSWBDHVNacgtu"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return cli_inputs(tmp_path_factory.mktemp("outputs"), GENOME)


def test_an_unwritable_report_fails_before_any_work_and_leaves_no_fasta(data, tmp_path):
    _, contigs, r1, r2 = data
    fasta = tmp_path / "o.fa"
    code, out, err = run(contigs, r1, r2, "-o", fasta, "--report", "/nonexist/x.tsv")
    assert (code, out) == (2, "")
    assert err == (
        "seqwarp extend: error: cannot write '/nonexist/x.tsv': folder '/nonexist' does not exist\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_folder_given_as_output_is_refused_before_the_inputs_are_read(data, tmp_path):
    _, contigs, r1, r2 = data
    broken = tmp_path / "broken.sam"
    broken.write_text("not a SAM file\n")
    args = ("--alignments", broken, "-o", tmp_path, "--report", tmp_path / "ends.tsv")
    code, _, err = run(contigs, r1, r2, *args)
    assert code == 2
    assert (
        err == f"seqwarp extend: error: cannot write '{tmp_path}': it is a directory, not a file\n"
    )
    assert list(tmp_path.iterdir()) == [broken]


@pytest.mark.parametrize("report", ["same.fa", "./same.fa"])
def test_output_and_report_may_not_name_one_file(data, tmp_path, monkeypatch, report):
    _, contigs, r1, r2 = data
    monkeypatch.chdir(tmp_path)
    code, _, err = run(contigs, r1, r2, "-o", "same.fa", "--report", report)
    assert (code, err) == (
        2,
        f"seqwarp extend: error: cannot write '{report}': "
        "--output and --report name the same file\n",
    )
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_fails_midway_leaves_earlier_outputs_untouched(data, tmp_path):
    directory, contigs, r1, r2 = data
    fasta, tsv = tmp_path / "o.fa", tmp_path / "ends.tsv"
    fasta.write_text("old fasta\n")
    sam = directory / "noheader.sam"
    sam.write_text("p0\t0\tc1\t1\t60\t10M\t*\t0\t0\tACGTACGTAC\tIIIIIIIIII\n")
    code, _, _ = run(contigs, r1, r2, "--alignments", sam, "-o", fasta, "--report", tsv)
    assert code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.fa"]
    assert fasta.read_text() == "old fasta\n"


def test_both_outputs_appear_when_the_run_succeeds(data, tmp_path):
    _, contigs, r1, r2 = data
    fasta, tsv = tmp_path / "o.fa", tmp_path / "ends.tsv"
    assert run(contigs, r1, r2, "-o", fasta, "--report", tsv)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ends.tsv", "o.fa"]
    assert fasta.read_text().splitlines()[1] == GENOME[596:2376]
    assert len(tsv.read_text().splitlines()) == 5


def test_contig_text_is_written_unchanged_when_nothing_is_extended(data, tmp_path):
    _, _, r1, r2 = data
    contigs = tmp_path / "odd.fa"
    contigs.write_text(f">a\n{ODD_TEXT}\n")
    code, out, _ = run(contigs, r1, r2, "--keep-short", "-i", "400:40")
    assert (code, out) == (0, f">a\n{ODD_TEXT}\n")


def test_extensions_are_added_to_the_contig_text_as_given(data, tmp_path):
    _, _, r1, r2 = data
    # c1's middle carries ambiguity codes; its ends lower case and U, which read as the same
    # bases, so the walks match those of the plain contig
    middle = GENOME[1000:1400] + "RYKMSWBDHVN" + GENOME[1411:1600]
    first = GENOME[1000:1030].replace("T", "U")
    last = GENOME[1600:2000].lower()
    text = first + middle[30:] + last
    contigs = tmp_path / "odd.fa"
    contigs.write_text(f">c1\n{text}\n>short\n{ODD_TEXT}\n")
    result = extend_contigs(contigs, r1, r2, insert_size=(396, 20), keep_short_contigs=True)
    assert result.sequences == (GENOME[596:1000] + text + GENOME[2000:2376], ODD_TEXT)
    assert result.ends.extension.tolist() == [376, 404]
    fasta = tmp_path / "o.fa"
    code, _, _ = run(contigs, r1, r2, "-i", "396:20", "--keep-short", "-o", fasta)
    assert code == 0
    assert fasta.read_text() == f">c1\n{result.sequences[0]}\n>short\n{ODD_TEXT}\n"


def test_contig_text_given_as_python_strings_is_kept(data):
    _, _, r1, r2 = data
    result = extend_contigs([ODD_TEXT], r1, r2, insert_size=(400, 40), keep_short_contigs=True)
    assert result.sequences == (ODD_TEXT,)
