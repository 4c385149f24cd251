"""The alignment writers take a result's columns a chunk at a time: the records and every
format's text do not depend on the chunk size, and each record holds its pair's values."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from seqwarp import SequenceFileError
from seqwarp.align import Aligner
from seqwarp.io import alignment_writer
from seqwarp.io.alignment_writer import FORMATS, get_writer, records
from seqwarp.scoring import Scoring
from seqwarp.sequences import SequenceBatch


@pytest.fixture(scope="module")
def batches() -> tuple[SequenceBatch, SequenceBatch]:
    rng = np.random.default_rng(11)
    queries = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(0, 40)))) for _ in range(23)]
    targets = ["".join(rng.choice(list("ACGT"), size=int(rng.integers(1, 40)))) for _ in range(23)]
    quals = [bytes(rng.integers(33, 74, size=len(q), dtype=np.uint8)) for q in queries]
    q = SequenceBatch.from_strings(queries)
    q = SequenceBatch(
        q.codes, q.offsets, q.names, q.alphabet, np.frombuffer(b"".join(quals), np.uint8)
    )
    return q, SequenceBatch.from_strings(targets)


@pytest.mark.parametrize("output", ["score", "ends", "cigar"])
def test_records_hold_each_pairs_values(batches, output: str) -> None:
    q, t = batches
    result = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu").align(q, t, output=output)
    got = list(records(result))
    assert len(got) == len(result)
    for p, r in enumerate(got):
        assert (r.query, r.target) == (q.names[p], t.names[p])
        assert (r.query_index, r.target_index, r.score) == (p, p, int(result.score[p]))
        if output == "score":
            assert r.query_end is r.cigar is None
        else:
            assert (r.query_end, r.target_end) == (
                int(result.query_end[p]),
                int(result.target_end[p]),
            )
        if output == "cigar":
            assert (r.cigar, r.matches) == (result.cigar[p], int(result.matches[p]))
            assert r.query_begin == int(result.query_begin[p])
        else:
            assert r.query_begin is r.cigar is r.matches is None


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_text_does_not_depend_on_the_chunk_size(batches, fmt: str, monkeypatch) -> None:
    q, t = batches
    writer = get_writer(fmt)
    output = "cigar" if writer.needs_cigar else "ends"
    result = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu").align(q, t, output=output)
    texts = []
    for chunk in (1 << 16, 5, 1):
        monkeypatch.setattr(alignment_writer, "_CHUNK", chunk)
        stream = io.StringIO()
        writer(stream, q, t).write_all(result)
        texts.append(stream.getvalue())
    assert texts[0] == texts[1] == texts[2]
    assert texts[0].count("\n") >= len(result)


def test_sam_sequence_and_qualities_are_each_querys(batches) -> None:
    q, t = batches
    result = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu").align(q, t, output="cigar")
    stream = io.StringIO()
    get_writer("sam")(stream, q, t).write_all(result)
    lines = [line.split("\t") for line in stream.getvalue().splitlines() if line[0] != "@"]
    assert len(lines) == len(result)
    for p, fields in enumerate(lines):
        start, stop = int(q.offsets[p]), int(q.offsets[p + 1])
        assert fields[9] == (q.sequence(p) or "*")
        assert fields[10] == (q.qualities[start:stop].tobytes().decode() if stop > start else "*")


def test_json_lines_are_json_dumps_of_the_records() -> None:
    names = ['q"1', "q\\2", "q\u00e93", "q/4"]
    q = SequenceBatch.from_strings(["ACGTAC", "GG", "TTAG", "A"], names=names)
    t = SequenceBatch.from_strings(["ACGAAC", "GA", "TAG", "C"], names=[n + "t" for n in names])
    for output in ("ends", "cigar"):
        result = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu").align(q, t, output=output)
        stream = io.StringIO()
        get_writer("json")(stream, q, t).write_all(result)
        expected = [json.dumps(r._asdict(), separators=(",", ":")) + "\n" for r in records(result)]
        assert stream.getvalue() == "".join(expected)


def test_sam_primary_record_is_each_querys_best(batches) -> None:
    q, t = batches
    q_index = np.repeat(np.arange(len(q)), len(t))
    t_index = np.tile(np.arange(len(t)), len(q))
    aligner = Aligner("local", Scoring.dna(2, -1, 2, 1), device="cpu")
    result = aligner.align_indexed(q, t, q_index, t_index, output="cigar")
    stream = io.StringIO()
    get_writer("sam")(stream, q, t).write_all(result)
    rows = [line.split("\t") for line in stream.getvalue().splitlines() if line[0] != "@"]
    for query in range(len(q)):
        name = q.names[query]
        mine = [r for r in rows if r[0] == name]
        primary = [r for r in mine if not int(r[1]) & 0x100]
        assert len(primary) == 1
        aligned = [r for r in mine if not int(r[1]) & 0x4]
        if not aligned:  # nothing aligned: one unmapped record, nothing repeated
            assert mine == primary and primary[0][1] == "4"
            continue
        scores = [int(r[11].removeprefix("AS:i:")) for r in aligned]
        assert aligned.index(primary[0]) == scores.index(max(scores))  # ties to the first
        assert primary[0][9] == (q.sequence(query) or "*")
        assert all((r[9], r[10]) == ("*", "*") for r in mine if r is not primary[0])


def test_sam_refuses_targets_of_one_name() -> None:
    q = SequenceBatch.from_strings(["ACGT"], names=["q"])
    t = SequenceBatch.from_strings(["ACGT", "GG", "AC"], names=["a", "b", "a"])
    with pytest.raises(
        SequenceFileError,
        match=r"^targets: target name 'a' occurs twice \(records #0 and #2\); "
        r"SAM needs unique reference names$",
    ):
        get_writer("sam")(io.StringIO(), q, t)
    get_writer("tsv")(io.StringIO(), q, t)  # other formats name targets in every record
