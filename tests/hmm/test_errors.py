"""Bad input gives one clear, typed error naming the file or record (API and CLI)."""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

import pytest
from hmm_support import ANAEROCOCCUS, PYHMMER_DATA, load_models, model_path, write_models
from pyhmmer.easel import Alphabet, TextSequence

from seqwarp.cli import main
from seqwarp.errors import (
    AlphabetMismatch,
    EmptyInput,
    InvalidParameter,
    ModelFileError,
    SequenceFileError,
)
from seqwarp.hmm import SearchOptions, hmmsearch

THIOESTERASE = PYHMMER_DATA / "hmms" / "txt" / "Thioesterase.hmm"
LUXC_FAA = PYHMMER_DATA / "seqs" / "LuxC.faa"


@pytest.fixture
def bad(tmp_path: Path) -> dict[str, Path]:
    """Broken inputs, one per kind of mistake."""
    text = THIOESTERASE.read_text()
    files = {
        "truncated.hmm": text[:30000],
        "corrupt.hmm": text.replace("LENG  243", "LENG  24x"),
        "garbage.hmm": "this is not an HMM\n",
        "empty.hmm": "",
        "empty.fa": "",
        "nonascii.fa": ">a\nMKV\u00c4LL\n",
        "illegal.fa": ">a\nMKV1LL\n",
        "noheader.fa": "MKVLL\n",
        "dna.fa": ">a\nACGTACGTTGCAACGT\n>b\nACGGTTCAACGTAGCT\n",
        "long.fa": ">huge some description\n" + "MKVL" * 25001 + "\n",
    }
    paths = {}
    for name, content in files.items():
        paths[name] = tmp_path / name
        paths[name].write_text(content, encoding="utf-8")
    packed = gzip.compress(LUXC_FAA.read_bytes(), mtime=0)
    binary = {
        "corrupt.fa.gz": packed[:10] + b"garbage" * 20,
        "truncated.fa.gz": packed[: len(packed) // 2],
        "empty.fa.gz": gzip.compress(b"", mtime=0),
        "junk.txt": b"junk",
    }
    for name, content in binary.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(content)
    return paths


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("truncated.hmm", ModelFileError, r"Too few probability fields on insert line, node 63"),
        ("corrupt.hmm", ModelFileError, r"Expected closing //; found 25 instead"),
        ("garbage.hmm", ModelFileError, r"format not recognized by HMMER"),
    ],
)
def test_broken_hmm_files(bad, name, error, message) -> None:
    with pytest.raises(error, match=rf"^{bad[name]}: {message}.*$"):
        hmmsearch(bad[name], LUXC_FAA)


def test_empty_and_missing_hmm_files(bad, tmp_path) -> None:
    with pytest.raises(EmptyInput, match=rf"^HMM file {bad['empty.hmm']} is empty$"):
        hmmsearch(bad["empty.hmm"], LUXC_FAA)
    with pytest.raises(ModelFileError, match=r"^.*nothere\.hmm: no such file$"):
        hmmsearch(tmp_path / "nothere.hmm", LUXC_FAA)


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("empty.fa", EmptyInput, r"^sequence database {path} is empty$"),
        ("nonascii.fa", SequenceFileError, r"^{path}: Line 2: non-ASCII character \? in sequence$"),
        ("illegal.fa", SequenceFileError, r"^{path}: Line 2: illegal character 1$"),
        ("noheader.fa", SequenceFileError, r"^{path}: Line 1: unexpected char M; expected FASTA.*$"),
        ("corrupt.fa.gz", SequenceFileError, r"^{path}: empty or misformatted \(corrupt or truncated gzip data: .*\)$"),
        ("truncated.fa.gz", SequenceFileError, r"^{path}: empty or misformatted \(corrupt or truncated gzip data: Compressed file ended.*\)$"),
        ("empty.fa.gz", EmptyInput, r"^sequence database {path} is empty$"),
        ("junk.txt", SequenceFileError, r"^{path}: empty or misformatted \(format not recognized\)$"),
        ("long.fa", SequenceFileError, r"^{path}: record 'huge' has 100004 residues, over HMMER's 100,000-residue limit.*$"),
    ],
)  # fmt: skip
def test_bad_target_files(bad, name, error, message) -> None:
    with pytest.raises(error, match=message.format(path=bad[name])):
        hmmsearch(THIOESTERASE, bad[name])


def test_nucleotide_model_against_protein_targets() -> None:
    with pytest.raises(
        AlphabetMismatch, match=r"^.*LuxC\.faa: expected DNA sequences, got protein$"
    ):
        hmmsearch(model_path("MADE1"), LUXC_FAA)


def test_models_of_different_alphabets(tmp_path) -> None:
    models = [*load_models("fn3"), *load_models("MADE1")]
    mixed = write_models(models, tmp_path / "mixed.hmm")
    with pytest.raises(ModelFileError, match=r"^.*mixed\.hmm: Expected amino alphabet$"):
        hmmsearch(mixed, LUXC_FAA)
    with pytest.raises(
        AlphabetMismatch, match=r"^model MADE1: expected protein sequences, got DNA$"
    ):
        hmmsearch(models, LUXC_FAA)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (SearchOptions(E=-1), r"^invalid value for 'E': -1; must be > 0$"),
        (SearchOptions(Z=0), r"^invalid value for 'Z': 0; must be > 0$"),
        (SearchOptions(F1=2.0), r"^invalid value for 'F1': 2.0; must be in \(0, 1\]$"),
        (SearchOptions(seed=-3), r"^invalid value for 'seed': -3; must be >= 0$"),
    ],
)
def test_invalid_options(options, message) -> None:
    with pytest.raises(InvalidParameter, match=message):
        hmmsearch(THIOESTERASE, LUXC_FAA, options)


def test_cutoffs_missing_from_a_model() -> None:
    with pytest.raises(
        InvalidParameter,
        match=r"^invalid value for 'cut_ga': True; model 'Thioesterase' has no GA line$",
    ):
        hmmsearch(THIOESTERASE, LUXC_FAA, SearchOptions(cutoffs="gathering"))


def test_empty_target_list() -> None:
    with pytest.raises(EmptyInput, match=r"^the target sequences is empty$"):
        hmmsearch(THIOESTERASE, [])


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["hmmsearch", *map(str, argv)], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("hmm", "targets", "message"),
    [
        ("truncated.hmm", None, r"truncated\.hmm: Too few probability fields"),
        ("corrupt.hmm", None, r"corrupt\.hmm: Expected closing //"),
        ("empty.hmm", None, r"HMM file .*empty\.hmm is empty"),
        (None, "empty.fa", r"sequence database .*empty\.fa is empty"),
        (None, "nonascii.fa", r".*nonascii\.fa: Line 2: non-ASCII character"),
        (
            None,
            "truncated.fa.gz",
            r".*truncated\.fa\.gz: empty or misformatted \(corrupt or truncated gzip",
        ),
        (
            None,
            "corrupt.fa.gz",
            r".*corrupt\.fa\.gz: empty or misformatted \(corrupt or truncated gzip",
        ),
        (None, "long.fa", r".*long\.fa: record 'huge' has 100004 residues"),
    ],
)
def test_cli_fails_with_one_clear_line(bad, hmm, targets, message) -> None:
    status, out, err = _cli(
        bad[hmm] if hmm else THIOESTERASE, bad[targets] if targets else LUXC_FAA
    )
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("seqwarp hmmsearch: error: ")
    assert re.search(message, err)


def test_cli_rejects_bad_option_values() -> None:
    status, _, err = _cli("-E", "-5", THIOESTERASE, ANAEROCOCCUS)
    assert status == 2
    assert err == "seqwarp hmmsearch: error: invalid value for 'E': -5.0; must be > 0\n"
    status, _, err = _cli("--cut_ga", THIOESTERASE, ANAEROCOCCUS)
    assert status == 2
    assert "model 'Thioesterase' has no GA line" in err


def test_cli_refuses_a_negative_cpu_count() -> None:
    status, out, err = _cli("--cpu", "-1", THIOESTERASE, LUXC_FAA)
    assert (status, out) == (2, "")
    assert err == "seqwarp hmmsearch: error: invalid value for 'cpu': -1; must be >= 0\n"


def test_cli_refuses_stdin_for_both_inputs() -> None:
    status, _, err = _cli("-", "-")
    assert status == 2
    assert "the HMM file and the database cannot both be stdin" in err


def test_noali_is_documented_as_accepted_for_compatibility() -> None:
    status, out, _ = _cli("--help")
    assert status == 0
    assert "--noali" in out
    assert "accepted for compatibility" in " ".join(out.split())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (SearchOptions(E="1"), r"^invalid value for 'E': '1'; must be a number$"),
        (SearchOptions(T=True), r"^invalid value for 'T': True; must be a number$"),
        (SearchOptions(F3=None), r"^invalid value for 'F3': None; must be a number$"),
        (SearchOptions(seed=1.5), r"^invalid value for 'seed': 1.5; must be an integer$"),
    ],
)
def test_options_of_the_wrong_type(options, message) -> None:
    with pytest.raises(InvalidParameter, match=message):
        hmmsearch(THIOESTERASE, LUXC_FAA, options)


def test_targets_and_models_of_the_wrong_type() -> None:
    text = [TextSequence(name="a", sequence="MKVLLA")]
    with pytest.raises(InvalidParameter, match=r"^invalid value for 'targets': 'TextSequence'; "):
        hmmsearch(THIOESTERASE, text)
    dna = [TextSequence(name="a", sequence="ACGT").digitize(Alphabet.dna())]
    with pytest.raises(AlphabetMismatch, match=r"^targets: expected protein sequences, got DNA$"):
        hmmsearch(THIOESTERASE, dna)
    with pytest.raises(InvalidParameter, match=r"^invalid value for 'hmms': 'str'; "):
        hmmsearch(["not an HMM"], LUXC_FAA)
    with pytest.raises(InvalidParameter, match=r"^invalid value for 'chunk_residues': '9'; "):
        hmmsearch(THIOESTERASE, LUXC_FAA, chunk_residues="9")
