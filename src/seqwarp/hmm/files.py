"""Reading HMM files and target databases with pyhmmer, with typed errors naming the file.

Targets are read in chunks of about ``chunk_residues`` residues so that databases larger than
memory stream; ``count_targets`` gives the whole-database Z that HMMER's E-values need.
"""

from __future__ import annotations

import contextlib
import gzip
import os
from collections.abc import Iterator
from typing import IO

import numpy as np
import pyhmmer
from pyhmmer.easel import Alphabet, DigitalSequenceBlock, SequenceFile
from pyhmmer.plan7 import HMM, HMMFile

from ..errors import AlphabetMismatch, EmptyInput, ModelFileError, SequenceFileError

__all__ = [
    "MAX_TARGET_LENGTH",
    "as_csr",
    "check_lengths",
    "count_targets",
    "read_chunks",
    "read_hmms",
]

MAX_TARGET_LENGTH = 100_000  # p7_Pipeline refuses longer targets ("Target sequence length > 100K")


def _clean(reason: str) -> str:
    """One printable ASCII line from a pyhmmer/easel message."""
    for prefix in ("Could not parse file: ", "Invalid format in file: "):
        reason = reason.removeprefix(prefix)
    line = " ".join(reason.split())
    return line.encode("ascii", "replace").decode("ascii")


def read_hmms(path: str | os.PathLike[str]) -> list[HMM]:
    """Every model of an HMMER text or binary file; corrupt, truncated or empty files raise."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise ModelFileError(name, "is a directory, not an HMM file")
    try:
        with HMMFile(name) as handle:
            hmms = list(handle)
    except FileNotFoundError:
        raise ModelFileError(name, "no such file") from None
    except EOFError:
        raise EmptyInput(f"HMM file {name}") from None
    except (ValueError, RuntimeError, UnicodeDecodeError) as error:
        raise ModelFileError(name, _clean(str(error))) from None
    if not hmms:
        raise EmptyInput(f"HMM file {name}")
    return hmms


def _same_kind(a: Alphabet, b: Alphabet) -> bool:
    """Protein vs nucleic: DNA and RNA targets are interchangeable, as in HMMER."""
    return a.is_amino() == b.is_amino()


def _kind(alphabet: Alphabet) -> str:
    return "protein" if alphabet.is_amino() else alphabet.type


def _open(path: str, alphabet: Alphabet) -> contextlib.AbstractContextManager:
    """The file to read, after checking that its alphabet is the models' kind."""
    if os.path.isdir(path):
        raise SequenceFileError(path, "is a directory, not a sequence file")
    if not os.path.exists(path):
        raise SequenceFileError(path, "no such file")
    if os.path.getsize(path) == 0:
        raise EmptyInput(f"sequence database {path}")
    try:
        with _source(path) as source, SequenceFile(source) as probe:
            guessed = probe.guess_alphabet()
    except (ValueError, EOFError, UnicodeDecodeError, OSError) as error:
        raise SequenceFileError(path, _clean(str(error))) from None
    if guessed is not None and not _same_kind(guessed, alphabet):
        raise AlphabetMismatch(_kind(alphabet), _kind(guessed), what=path)
    return _source(path)


def _source(path: str) -> contextlib.AbstractContextManager:
    """The path itself, or for gzip a decompressing file object (easel's gzip pipe would
    complain on stderr when closed early); line numbers in easel's messages stay right
    for plain files."""
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gzipped else contextlib.nullcontext(path)


def read_chunks(
    path: str | os.PathLike[str], alphabet: Alphabet, chunk_residues: int
) -> Iterator[DigitalSequenceBlock]:
    """Blocks of whole sequences of about ``chunk_residues`` residues; an empty file raises."""
    name = os.fspath(path)
    empty = True
    with _open(name, alphabet) as source, _digital(source, name, alphabet) as handle:
        while True:
            try:
                block = handle.read_block(residues=chunk_residues)
            except (ValueError, EOFError, UnicodeDecodeError) as error:
                raise SequenceFileError(name, _clean(str(error))) from None
            if len(block) == 0:
                break
            empty = False
            yield block
    if empty:
        raise EmptyInput(f"sequence database {name}")


def _digital(source: str | IO[bytes], name: str, alphabet: Alphabet) -> SequenceFile:
    try:
        return SequenceFile(source, digital=True, alphabet=alphabet)
    except (ValueError, EOFError, UnicodeDecodeError) as error:
        raise SequenceFileError(name, _clean(str(error))) from None


def count_targets(path: str | os.PathLike[str], alphabet: Alphabet) -> int:
    """Number of sequences in the database: the Z of HMMER's E-values (one reading pass)."""
    return sum(len(block) for block in read_chunks(path, alphabet, 1 << 24))


def check_lengths(block: DigitalSequenceBlock, lengths: np.ndarray, where: str) -> None:
    """Refuse targets over 100,000 residues, as HMMER 3.4's hmmsearch does."""
    too_long = np.flatnonzero(lengths > MAX_TARGET_LENGTH)
    if len(too_long) == 0:
        return
    index = int(too_long[0])
    name = block[index].name
    name = name if isinstance(name, str) else name.decode()
    raise SequenceFileError(
        where,
        f"record {name!r} has {int(lengths[index])} residues, over HMMER's "
        f"{MAX_TARGET_LENGTH:,}-residue limit for hmmsearch targets "
        "(split it, or use nhmmer for nucleotide sequences)",
    )


def as_csr(block: DigitalSequenceBlock) -> tuple[np.ndarray, np.ndarray]:
    """The block's digital codes as one ``uint8`` buffer plus ``int64`` offsets.

    Each ``DigitalSequence`` exposes its codes through the buffer protocol, so no object is
    made per sequence: every one would count towards Python's garbage-collector runs, which
    then walk the whole heap.
    """
    offsets = np.zeros(len(block) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, block), dtype=np.int64, count=len(block)), out=offsets[1:])
    codes = np.frombuffer(b"".join(block), dtype=np.uint8)
    return codes, offsets


def hmm_alphabet(hmms: list[HMM]) -> pyhmmer.easel.Alphabet:
    """The one alphabet shared by all models (HMMER requires it of a query file)."""
    first = hmms[0].alphabet
    for hmm in hmms[1:]:
        if hmm.alphabet != first:
            raise AlphabetMismatch(_kind(first), _kind(hmm.alphabet), what=f"model {hmm.name}")
    return first
