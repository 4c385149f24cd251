"""Alignments from a user's SAM/BAM (pysam): coordinates in MetaHipMer2's convention."""

from __future__ import annotations

import io
import re

import numpy as np
import pysam
import pytest
from assembly_simulate import random_dna, revcomp, simulate_pairs, write_pairs

from seqwarp.assembly.api import _load_reads, extend_contigs
from seqwarp.assembly.candidates import map_reads
from seqwarp.assembly.sam import read_alignments
from seqwarp.cli import main
from seqwarp.errors import SequenceFileError
from seqwarp.sequences import read_sequences

GENOME = random_dna(3000, 11)


def write_bam(path, contigs: list[tuple[str, int]], records: list[dict]) -> None:
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": n, "LN": ln} for n, ln in contigs]}
    with pysam.AlignmentFile(str(path), "wb", header=header) as out:
        for fields in records:
            rec = pysam.AlignedSegment(out.header)
            rec.query_name = fields["name"]
            rec.flag = fields["flag"]
            rec.reference_id = 0
            rec.reference_start = fields["pos"]
            rec.cigarstring = fields["cigar"]
            rec.query_sequence = fields.get("seq", "A" * fields["qlen"])
            rec.mapping_quality = 60
            for tag, value in fields.get("tags", {}).items():
                rec.set_tag(tag, value)
            out.write(rec)


def test_forward_reverse_and_clipped_records(tmp_path):
    bam = tmp_path / "a.bam"
    write_bam(
        bam,
        [("c1", 1000)],
        [
            {
                "name": "p0",
                "flag": 65,
                "pos": 900,
                "cigar": "100M50S",
                "qlen": 150,
                "tags": {"AS": 100},
            },
            {
                "name": "p1",
                "flag": 129 + 16,
                "pos": 0,
                "cigar": "50S100M",
                "qlen": 150,
                "tags": {"NM": 2},
            },
            {"name": "p2/1", "flag": 65 + 16, "pos": 10, "cigar": "30H120M", "qlen": 120},
            {"name": "p2/1", "flag": 4 + 65, "pos": 0, "cigar": "150M", "qlen": 150},
        ],
    )
    alns = read_alignments(bam, {"c1": 0}, np.array([1000]), {"p0": 0, "p1": 1, "p2": 2}, True)
    assert alns.read.tolist() == [0, 3, 4]
    assert alns.minus.tolist() == [False, True, True]
    # reverse strand: read coordinates go back to the forward read
    assert alns.rstart.tolist() == [0, 0, 0]
    assert alns.rstop.tolist() == [100, 100, 120]
    assert alns.rlen.tolist() == [150, 150, 150]
    assert alns.cstart.tolist() == [900, 0, 10]
    assert alns.cstop.tolist() == [1000, 100, 130]
    assert alns.score.tolist() == [100, 98, 120]


def test_unknown_reads_are_named(tmp_path):
    bam = tmp_path / "b.bam"
    write_bam(
        bam, [("c1", 1000)], [{"name": "zz", "flag": 0, "pos": 0, "cigar": "10M", "qlen": 10}]
    )
    with pytest.raises(
        SequenceFileError, match=f"^{re.escape(str(bam))}: record 'zz': read not in the read files$"
    ):
        read_alignments(bam, {"c1": 0}, np.array([1000]), {"p0": 0}, False)


@pytest.mark.parametrize(
    ("contigs", "reason"),
    [
        (
            [("c1", 1000), ("c9", 1000)],
            "@SQ 'c9' is not among the contigs; the alignments were made against other contigs",
        ),
        (
            [("c1", 999)],
            "@SQ 'c1' has LN:999, the contig 1000; the alignments were made against other contigs",
        ),
    ],
    ids=["other-contig", "other-length"],
)
def test_sq_lines_must_match_the_contigs(tmp_path, contigs, reason):
    bam = tmp_path / "b.bam"
    write_bam(bam, contigs, [])
    with pytest.raises(SequenceFileError, match=f"^{re.escape(f'{bam}: {reason}')}$"):
        read_alignments(bam, {"c1": 0}, np.array([1000]), {"p0": 0}, False)


RECORD = "p0\t0\tc1\t1\t60\t10M\t*\t0\t0\tACGTACGTAC\tIIIIIIIIII\n"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (RECORD, "has no @SQ header lines; keep the header (samtools view -h)"),
        (">c1\nACGTACGTAC\n", "not a SAM/BAM file (htslib sees FASTA sequence text)"),
        (
            "@SQ\tSN:c1\tLN:1000\n@SQ\tSN:c1\tLN:1000\n",
            'malformed (Duplicate entry "c1" in sam header)',
        ),
        ("@SQ\tSN:c1\tLN:1000\n" + RECORD[:-12] + "\n", "malformed (Parse error at line 2)"),
        (
            "@SQ\tSN:c1\tLN:1000\n" + RECORD.replace("\tc1\t", "\tc7\t"),
            'malformed (unrecognized reference name "c7"; treated as unmapped)',
        ),
    ],
    ids=["no-header", "fasta", "duplicate-sq", "short-line", "unknown-contig"],
)
def test_unusable_files_give_one_line_and_nothing_on_stderr(tmp_path, capfd, text, reason):
    sam = tmp_path / "x.sam"
    sam.write_text(text)
    with pytest.raises(SequenceFileError, match=f"^{re.escape(f'{sam}: {reason}')}$"):
        read_alignments(sam, {"c1": 0}, np.array([1000]), {"p0": 0}, False)
    assert capfd.readouterr().err == ""


def test_the_cli_names_a_headerless_sam(tmp_path, capfd):
    r1, r2 = write_pairs(tmp_path, simulate_pairs(GENOME, 20, 4))
    contigs = tmp_path / "contigs.fa"
    contigs.write_text(f">c1\n{GENOME[1000:2000]}\n")
    sam = tmp_path / "x.sam"
    sam.write_text(RECORD)
    err = io.StringIO()
    code = main(["extend", str(contigs), str(r1), str(r2), "--alignments", str(sam)], stderr=err)
    assert (code, err.getvalue()) == (
        2,
        f"seqwarp extend: error: {sam}: has no @SQ header lines; "
        "keep the header (samtools view -h)\n",
    )
    assert capfd.readouterr().err == ""


def test_a_sam_of_the_same_alignments_gives_the_same_extension(tmp_path):
    r1, r2 = write_pairs(tmp_path, simulate_pairs(GENOME, 400, 4))
    contigs = tmp_path / "contigs.fa"
    contigs.write_text(f">c1\n{GENOME[1000:2000]}\n>c2\n{revcomp(GENOME[2200:2600])}\n")
    reads, _ = _load_reads(r1, r2)
    ctgs = read_sequences(contigs)
    alns = map_reads(ctgs, reads, 2500)
    both = [reads.sequence(i) for i in range(len(reads))]
    records = []
    for row in range(len(alns.read)):
        read, minus = int(alns.read[row]), bool(alns.minus[row])
        rlen, rstart, rstop = int(alns.rlen[row]), int(alns.rstart[row]), int(alns.rstop[row])
        assert alns.cstop[row] - alns.cstart[row] == rstop - rstart  # no indels in these reads
        lead, trail = (rlen - rstop, rstart) if minus else (rstart, rlen - rstop)
        cigar = (f"{lead}S" if lead else "") + f"{rstop - rstart}M" + (f"{trail}S" if trail else "")
        seq = revcomp(both[read]) if minus else both[read]
        records.append(
            {
                "name": f"p{read // 2}",
                "flag": 1 + (64 if read % 2 == 0 else 128) + 16 * minus,
                "pos": int(alns.cstart[row]),
                "cigar": cigar,
                "seq": seq,
                "tags": {"AS": int(alns.score[row])},
                "contig": int(alns.contig[row]),
            }
        )
    sam = tmp_path / "alns.sam"
    header = {"HD": {"VN": "1.6"}, "SQ": [{"SN": "c1", "LN": 1000}, {"SN": "c2", "LN": 400}]}
    with pysam.AlignmentFile(str(sam), "w", header=header) as out:
        for fields in records:
            rec = pysam.AlignedSegment(out.header)
            rec.query_name, rec.flag = fields["name"], fields["flag"]
            rec.reference_id, rec.reference_start = fields["contig"], fields["pos"]
            rec.cigarstring, rec.query_sequence = fields["cigar"], fields["seq"]
            rec.set_tag("AS", fields["tags"]["AS"])
            out.write(rec)
    mapped = extend_contigs(contigs, r1, r2)
    from_sam = extend_contigs(contigs, r1, r2, alignments=sam)
    assert [from_sam.contigs.sequence(i) for i in range(2)] == [
        mapped.contigs.sequence(i) for i in range(2)
    ]
    assert from_sam.ends.extension.tolist() == mapped.ends.extension.tolist()
    assert mapped.ends.extension.sum() > 600
