"""``seqwarp hmmsearch`` tables equal HMMER 3.4's byte for byte (apart from ``#`` lines)."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from hmm_support import (
    ANAEROCOCCUS,
    DATA,
    DNA_MODELS,
    PROTEOMES,
    PYHMMER_DATA,
    all_amino_models,
    fasta_records,
    load_models,
    load_targets,
    proteome_path,
    run_hmmsearch,
    serial_hmmsearch,
    strip_comments,
    without_footer,
    write_fasta,
    write_models,
)
from pyhmmer.plan7 import Pipeline

from seqwarp.cli import main


@pytest.fixture(scope="module")
def amino_models(tmp_path_factory) -> Path:
    """Every protein model of the sets in one file: a many-model query, as hmmsearch reads."""
    return write_models(all_amino_models(), tmp_path_factory.mktemp("hmm") / "amino.hmm")


@pytest.fixture(scope="module")
def dna_models(tmp_path_factory) -> Path:
    models = [m for name in DNA_MODELS for m in load_models(name)]
    return write_models(models, tmp_path_factory.mktemp("hmm") / "dna.hmm")


def run_seqwarp(hmmfile: Path, seqdb: Path, args: list[str], tmp: Path) -> tuple[Path, Path]:
    """seqwarp's hmmsearch CLI run in process; the paths of its table and domain table."""
    tbl, dom = tmp / "ours.tbl", tmp / "ours.domtbl"
    out, err = io.StringIO(), io.StringIO()
    argv = ["hmmsearch", "--tblout", str(tbl), "--domtblout", str(dom), *args]
    status = main([*argv, str(hmmfile), str(seqdb)], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    return tbl, dom


def seqwarp_tables(hmmfile: Path, seqdb: Path, args: list[str], tmp: Path):
    tbl, dom = run_seqwarp(hmmfile, seqdb, args, tmp)
    return strip_comments(tbl.read_text()), strip_comments(dom.read_text())


CASES = [
    (database, args)
    for database in ("Anaerococcus", "Escherichia", "Staphylococcus", "Enterococcus")
    for args in ([], ["--nobias"], ["-E", "1000"], ["-Z", "1000000"])
    if not args or database in ("Anaerococcus", "Staphylococcus")
]


@pytest.mark.parametrize(("database", "args"), CASES)
def test_tables_equal_hmmsearch(database, args, amino_models, hmmsearch_binary, tmp_path):
    seqdb = proteome_path(database)
    expected = run_hmmsearch(hmmsearch_binary, amino_models, seqdb, args, tmp_path)
    got = seqwarp_tables(amino_models, seqdb, args, tmp_path)
    assert got[0] == expected[0]
    assert got[1] == expected[1]
    assert len(expected[1]) > 20  # the comparison covers real hits


@pytest.mark.parametrize("database", ["Anaerococcus"])
def test_max_tables_equal_hmmsearch(database, hmmsearch_binary, tmp_path) -> None:
    """``--max`` (every target through Forward) with the single-model pyhmmer files."""
    models = [m for name in ("PF02826", "Thioesterase", "KR", "LuxC")
              for m in load_models(f"pyhmmer:{name}")]  # fmt: skip
    hmmfile = write_models(models, tmp_path / "four.hmm")
    seqdb = proteome_path(database)
    expected = run_hmmsearch(hmmsearch_binary, hmmfile, seqdb, ["--max"], tmp_path)
    assert seqwarp_tables(hmmfile, seqdb, ["--max"], tmp_path) == expected
    assert len(expected[1]) > 20


@pytest.fixture(scope="module")
def dna_windows(tmp_path_factory) -> Path:
    """HMMER's tutorial dna_target.fa (one 330 kb sequence, over hmmsearch's 100 kb limit)
    cut into 5 kb windows, overlapping by 500 bases."""
    text = gzip.decompress((DATA / "seqs" / "dna_target.fa.gz").read_bytes()).decode()
    sequence = "".join(line for line in text.splitlines()[1:])
    path = tmp_path_factory.mktemp("dna") / "windows.fa"
    with open(path, "w") as handle:
        for start in range(0, len(sequence), 4500):
            handle.write(f">w{start + 1}\n{sequence[start : start + 5000]}\n")
    return path


@pytest.mark.parametrize("args", [[], ["--max"], ["-E", "1000"], ["--nobias"]])
def test_nucleotide_tables_equal_hmmsearch(
    args, dna_models, dna_windows, hmmsearch_binary, tmp_path
):
    expected = run_hmmsearch(hmmsearch_binary, dna_models, dna_windows, args, tmp_path)
    assert seqwarp_tables(dna_models, dna_windows, args, tmp_path) == expected
    assert len(expected[1]) > 5


def test_streamed_chunks_equal_one_pass(amino_models, hmmsearch_binary, tmp_path) -> None:
    """A database read in many chunks: Z is counted first, hits merged per model."""
    seqdb = proteome_path("Escherichia")
    expected = run_hmmsearch(hmmsearch_binary, amino_models, seqdb, [], tmp_path)
    got = seqwarp_tables(amino_models, seqdb, ["--chunk-residues", "150000"], tmp_path)
    assert got == expected


@pytest.mark.parametrize("name", ["PF02826", "RREFam"])
def test_pyhmmer_golden_tables(name: str, tmp_path) -> None:
    """pyhmmer's golden tables (HMMER 3.3 / 3.4), the missing-COMPO quirk of PF02826 included."""
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / f"{name}.hmm"
    got = seqwarp_tables(hmmfile, ANAEROCOCCUS, [], tmp_path)
    tables = PYHMMER_DATA / "tables"
    assert got[0] == strip_comments((tables / f"{name}.tbl").read_text())
    assert got[1] == strip_comments((tables / f"{name}.domtbl").read_text())


@pytest.mark.parametrize(
    "args",
    [
        ["--cut_ga"],
        ["--cut_nc"],
        ["--cut_tc"],
        ["-T", "25", "--domT", "20"],
        ["--incE", "1e-20", "--incdomE", "1", "--domE", "1e-3"],
        ["--incT", "100", "--incdomT", "50", "--domZ", "7"],
        ["--F1", "0.1", "--F2", "0.01", "--F3", "1e-3", "--seed", "7"],
    ],
)
def test_thresholds_and_cutoffs(args, hmmsearch_binary, tmp_path) -> None:
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / "PF02826.hmm"
    expected = run_hmmsearch(hmmsearch_binary, hmmfile, ANAEROCOCCUS, args, tmp_path)
    assert seqwarp_tables(hmmfile, ANAEROCOCCUS, args, tmp_path) == expected


def seqwarp_bytes(hmmfile: Path, seqdb: Path, args: list[str], tmp: Path):
    """seqwarp's tables as bytes without their footers (as ``serial_hmmsearch`` gives)."""
    tbl, dom = run_seqwarp(hmmfile, seqdb, args, tmp)
    return without_footer(tbl.read_bytes()), without_footer(dom.read_bytes())


@pytest.fixture(scope="module")
def four_proteomes(tmp_path_factory) -> Path:
    """The four test proteomes in one file (13,065 proteins; Escherichia's names run to 40)."""
    records = [
        r for name in ("Anaerococcus", *PROTEOMES) for r in fasta_records(proteome_path(name))
    ]
    return write_fasta(records, tmp_path_factory.mktemp("four") / "four.faa")


def test_max_keeps_hmmers_unreported_hits_for_the_width(
    four_proteomes, hmmsearch_binary, tmp_path
) -> None:
    """``--max`` stores every hit whose E-value against the targets read so far passes -E;
    a long name among those unreported hits widens HMMER's name column."""
    hmmfile = write_models(list(load_models("20aa")), tmp_path / "20aa.hmm")
    expected = serial_hmmsearch(hmmsearch_binary, hmmfile, four_proteomes, ["--max"], tmp_path)
    assert seqwarp_bytes(hmmfile, four_proteomes, ["--max"], tmp_path) == expected
    reported = [line.split()[0] for line in strip_comments(expected[0].decode())]
    width = expected[0].splitlines()[1].index(b" accession")
    assert width > max(map(len, reported))  # set by a hit that is not reported


def test_weak_long_named_hit_first_sets_the_width(hmmsearch_binary, tmp_path) -> None:
    """``-E 0.01`` with a weak hit first in the database: its E-value against one target
    passes, so HMMER stores it (unreported) and its long name sets the column width."""
    hmm = load_models("pyhmmer:PF02826")[0]
    records = fasta_records(ANAEROCOCCUS)
    hits = Pipeline(hmm.alphabet).search_hmm(hmm, load_targets(str(ANAEROCOCCUS)))
    weak = next(hit.name for hit in hits if hit.pvalue <= 0.01 < hit.evalue)
    long_name = b"a_weak_hit_whose_name_is_longer_than_every_other_one"
    first = next(r for r in records if r[0].split()[0] == weak.encode())
    records.remove(first)
    seqdb = write_fasta([(long_name, first[1]), *records], tmp_path / "weak_first.faa")
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / "PF02826.hmm"
    expected = serial_hmmsearch(hmmsearch_binary, hmmfile, seqdb, ["-E", "0.01"], tmp_path)
    assert seqwarp_bytes(hmmfile, seqdb, ["-E", "0.01"], tmp_path) == expected
    assert expected[0].splitlines()[1].startswith(b"# target name".ljust(len(long_name)) + b" ")
    assert long_name not in expected[0]


def test_names_and_descriptions_keep_their_bytes(hmmsearch_binary, tmp_path) -> None:
    """UTF-8 and Latin-1 names and descriptions are written as they are, as HMMER does."""
    records = fasta_records(PYHMMER_DATA / "seqs" / "LuxC.faa")
    headers = [
        b"caf\xc3\xa9 un caf\xc3\xa9 cr\xc3\xa8me",
        b"t\xe9 latin-1 \xe9t\xe9",
        b"\xe9l\xe8ve",
    ]
    renamed = [(h, r[1]) for h, r in zip(headers, records, strict=False)] + records[3:]
    seqdb = write_fasta(renamed, tmp_path / "bytes.faa")
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / "LuxC.hmm"
    expected = serial_hmmsearch(hmmsearch_binary, hmmfile, seqdb, [], tmp_path)
    assert seqwarp_bytes(hmmfile, seqdb, [], tmp_path) == expected
    assert all(b" " + h.split(b" ", 1)[-1] in expected[0] for h in headers[:2])


def test_protein_file_with_a_dna_like_first_record(hmmsearch_binary, tmp_path) -> None:
    """Targets are read in the model's alphabet, as hmmsearch reads them, whatever the first
    record looks like."""
    records = [(b"p1", b"GATTACAGATTACACAT"), *fasta_records(ANAEROCOCCUS)]
    seqdb = write_fasta(records, tmp_path / "dna_first.faa")
    hmmfile = PYHMMER_DATA / "hmms" / "txt" / "PF02826.hmm"
    expected = serial_hmmsearch(hmmsearch_binary, hmmfile, seqdb, [], tmp_path)
    assert seqwarp_bytes(hmmfile, seqdb, [], tmp_path) == expected
    assert len(expected[1].splitlines()) > 20
