"""Reading and encoding sequences: the buffer layout, the alphabets' policy and clear errors."""

from __future__ import annotations

import gzip
import pathlib

import numpy as np
import pytest

from seqwarp import EmptyInput, InvalidResidue, SequenceBatch, SequenceFileError, read_sequences
from seqwarp.sequences import as_batch, iter_batches


def write(tmp_path: pathlib.Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def test_batch_layout_and_views() -> None:
    batch = SequenceBatch.from_strings(["ACGTN", "ggr", ""], "dna", names=["a", "b", "c"])
    assert batch.codes.tolist() == [0, 1, 2, 3, 4, 2, 2, 4]
    assert batch.offsets.tolist() == [0, 5, 8, 8]
    assert batch.lengths.tolist() == [5, 3, 0]
    assert batch.sequence(1) == "GGN"  # IUPAC R reads as N
    assert batch[0].base is not None  # a view into the shared buffer
    sub = batch[1:3]
    assert sub.names == ("b", "c") and sub.codes is batch.codes
    assert batch.take([1, 0]).sequence(0) == "GGN"
    assert batch.reverse_complement().sequence(0) == "NACGT"


def test_u_reads_as_t_and_protein_letters() -> None:
    assert SequenceBatch.from_strings(["ACGU"]).sequence(0) == "ACGT"
    protein = SequenceBatch.from_strings(["arndcqeghilkmfpstwyvbzx*jou"], "protein")
    assert protein.codes.tolist() == list(range(27))


def test_invalid_residue_in_list_names_sequence_and_position() -> None:
    with pytest.raises(
        InvalidResidue, match=r"^sequence #1, position 3 \(1-based\): invalid residue '-' for DNA$"
    ):
        SequenceBatch.from_strings(["ACGT", "AC-G"])


def test_invalid_residue_in_file_names_file_record_position(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "g.fa", ">a x\nACGT\n>b\nACJT\n")
    with pytest.raises(
        InvalidResidue,
        match=r"^.*g\.fa: record 'b' \(#1\), position 3 \(1-based\): invalid residue 'J' for DNA$",
    ):
        read_sequences(path)


def test_fastq_with_qualities_and_gzip(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "r.fq.gz"
    path.write_bytes(gzip.compress(b"@r1 desc\nACGT\n+\nIIII\n@r2\nGG\n+\n#I\n"))
    batch = read_sequences(path, require_qualities=True)
    assert batch.names == ("r1", "r2")
    assert batch.qualities is not None and batch.qualities.tobytes() == b"IIII#I"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", r"holds no sequences \(empty file\)"),
        (
            "@r1\nACGT\n+\nII\n",
            r"error in FASTQ file at line 4: Length of sequence and qualities differ",
        ),
        (
            "hello\n",
            r"error in FASTA file at line 1: Expected '>' at beginning of record, but got 'hello'\.",
        ),
        (b">r1\nAC\xc3\xa9GT\n", r"must be ASCII encoded"),
        ("@r1\nACGT\n+\n", r"error in FASTQ file"),
    ],
)
def test_bad_files_give_clear_errors(
    tmp_path: pathlib.Path, content: str | bytes, message: str
) -> None:
    path = write(tmp_path, "bad.fq" if str(content).startswith("@") else "bad.fa", content)
    with pytest.raises(SequenceFileError, match=rf"^.*bad\.f[aq]: .*{message}"):
        read_sequences(path)


def test_missing_file_and_directory(tmp_path: pathlib.Path) -> None:
    with pytest.raises(SequenceFileError, match=r"^.*nothere\.fa: no such file$"):
        read_sequences(tmp_path / "nothere.fa")
    with pytest.raises(SequenceFileError, match=r"is a directory, not a sequence file$"):
        read_sequences(tmp_path)


def test_fasta_where_qualities_are_required(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "r.fa", ">r\nACGT\n")
    with pytest.raises(SequenceFileError, match=r"has no base qualities \(FASTQ is required\)$"):
        read_sequences(path, require_qualities=True)


def test_streamed_batches_keep_global_record_numbers(tmp_path: pathlib.Path) -> None:
    path = write(
        tmp_path, "s.fa", "".join(f">s{i}\nACGTACGT\n" for i in range(10)) + ">bad\nAC!G\n"
    )
    chunks = iter_batches(path, max_residues=16)
    sizes = [len(next(chunks)) for _ in range(5)]
    assert sizes == [2, 2, 2, 2, 2]
    with pytest.raises(InvalidResidue, match=r"record 'bad' \(#10\), position 3 \(1-based\)"):
        next(chunks)


def test_empty_list_is_refused() -> None:
    with pytest.raises(EmptyInput, match=r"^queries is empty$"):
        as_batch([], "dna", "queries")


def test_protein_batch_reencoded_as_requested() -> None:
    dna = SequenceBatch.from_strings(["ACGT"])
    assert as_batch(dna, "protein").codes.tolist() == [0, 4, 7, 16]
    assert np.array_equal(as_batch(dna, "dna").codes, dna.codes)


def test_longest_is_the_largest_length() -> None:
    batch = SequenceBatch.from_strings(["ACG", "", "ACGTAC", "A"])
    assert batch.longest == 6 == int(batch.lengths.max())
    assert SequenceBatch.from_strings([""]).longest == 0


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("blank.fq", "@r0\nAC\n+\nII\n@ \nACGT\n+\nIIII\n@\t \nGG\n+\nII\n"),
        ("blank.fa", ">r0\nAC\n> \nACGT\n>\nGG\n"),
    ],
)
def test_blank_headers_are_named_by_their_index(
    tmp_path: pathlib.Path, name: str, content: str
) -> None:
    batch = read_sequences(write(tmp_path, name, content))
    assert batch.names == ("r0", "1", "2")
    assert [batch.sequence(i) for i in range(3)] == ["AC", "ACGT", "GG"]
