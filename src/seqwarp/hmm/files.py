"""Reading HMM files and target databases with pyhmmer, with typed errors naming the file.

Targets are read in chunks of about ``chunk_residues`` residues so that databases larger than
memory stream; ``Database.count`` gives the whole-database Z that HMMER's E-values need.
Targets are read in the models' alphabet, as hmmsearch reads them (a protein file whose first
record looks like DNA is still protein). ``-`` reads standard input and a pipe such as
``<(zcat db.faa.gz)`` is read too: the stream is copied to a temporary file first, since Z
needs a counting pass before the search.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
import stat
import sys
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import numpy as np
import pyhmmer
from pyhmmer.easel import Alphabet, DigitalSequenceBlock, SequenceFile
from pyhmmer.plan7 import HMM, HMMFile

from ..errors import AlphabetMismatch, EmptyInput, ModelFileError, SequenceFileError

__all__ = [
    "MAX_TARGET_LENGTH",
    "STDIN",
    "Database",
    "as_csr",
    "check_lengths",
    "kind",
    "open_database",
    "read_hmms",
]

MAX_TARGET_LENGTH = 100_000  # p7_Pipeline refuses longer targets ("Target sequence length > 100K")
STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
# what pyhmmer raises while reading a bad file: easel's parse errors are ValueError, a failure
# of the file object it reads (a broken gzip stream) surfaces as SystemError or EaselError
READ_ERRORS = (ValueError, EOFError, UnicodeDecodeError, OSError, RuntimeError, SystemError)


def _clean(reason: str) -> str:
    """One printable ASCII line from a pyhmmer/easel message."""
    for prefix in ("Could not parse file: ", "Invalid format in file: "):
        reason = reason.removeprefix(prefix)
    line = " ".join(reason.split())
    return line.encode("ascii", "replace").decode("ascii")


def _is_stream(path: str) -> bool:
    """``-`` or a path that is neither a regular file nor a folder (a pipe, ``/dev/stdin``):
    it can be read once, from the start, and has no size."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _stream(path: str) -> contextlib.AbstractContextManager[IO[bytes]]:
    """Standard input (left open) or the pipe at ``path``."""
    return contextlib.nullcontext(sys.stdin.buffer) if path == STDIN else open(path, "rb")


def read_hmms(path: str | os.PathLike[str]) -> list[HMM]:
    """Every model of an HMMER text or binary file (``-``: standard input; plain or gzip);
    corrupt, truncated or empty files raise."""
    name = os.fspath(path)
    if os.path.isdir(name):
        raise ModelFileError(name, "is a directory, not an HMM file")
    source = _hmm_stream(name) if _is_stream(name) else name
    try:
        with HMMFile(source) as handle:
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


def _hmm_stream(name: str) -> IO[bytes]:
    """A whole HMM file read from a stream, in memory (HMMER's reader needs to seek)."""
    with _stream(name) as stream:
        data = stream.read()
    if data.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise ModelFileError(name, f"corrupt or truncated gzip data ({error})") from None
    if not data:
        raise EmptyInput(f"HMM file {name}")
    return io.BytesIO(data)


def kind(alphabet: Alphabet) -> str:
    """How messages name an alphabet: protein, DNA or RNA."""
    return "protein" if alphabet.is_amino() else alphabet.type


@contextlib.contextmanager
def open_database(path: str | os.PathLike[str]) -> Iterator[Database]:
    """The target database at ``path`` (``-``: standard input), checked to exist and hold
    data; a stream is copied to a temporary file, removed on exit."""
    name = os.fspath(path)
    if not _is_stream(name):
        _check_file(name)
        yield Database(name, name)
        return
    with tempfile.NamedTemporaryFile(prefix="seqwarp-hmmsearch-", suffix=".db") as copy:
        with _stream(name) as stream:
            shutil.copyfileobj(stream, copy)
        copy.flush()
        if copy.tell() == 0:
            raise EmptyInput(f"sequence database {name}")
        yield Database(copy.name, name)


def _check_file(name: str) -> None:
    """Refuse a folder, a missing path or an empty file before reading starts."""
    if os.path.isdir(name):
        raise SequenceFileError(name, "is a directory, not a sequence file")
    if not os.path.exists(name):
        raise SequenceFileError(name, "no such file")
    if os.path.getsize(name) == 0:
        raise EmptyInput(f"sequence database {name}")


@dataclass(frozen=True)
class Database:
    """A target database: ``path``, a regular file to read (the user's, or a copy of a
    stream), and ``name``, what messages call it (the path the user gave)."""

    path: str
    name: str

    def chunks(self, alphabet: Alphabet, chunk_residues: int) -> Iterator[DigitalSequenceBlock]:
        """Blocks of whole sequences of about ``chunk_residues`` residues, read in the
        models' ``alphabet``; a file without records raises."""
        empty = True
        with contextlib.ExitStack() as stack:
            with self._reading(alphabet):
                source = stack.enter_context(self._source())
                handle = stack.enter_context(SequenceFile(source, digital=True, alphabet=alphabet))
            while True:
                with self._reading(alphabet):
                    block = handle.read_block(residues=chunk_residues)
                if len(block) == 0:
                    break
                empty = False
                yield block
        if empty:
            raise EmptyInput(f"sequence database {self.name}")

    def count(self, alphabet: Alphabet) -> int:
        """Number of sequences: the Z of HMMER's E-values (one reading pass)."""
        return sum(len(block) for block in self.chunks(alphabet, 1 << 24))

    def _gzipped(self) -> bool:
        with open(self.path, "rb") as probe:
            return probe.read(2) == GZIP_MAGIC

    def _source(self) -> contextlib.AbstractContextManager:
        """The path itself, or for gzip a decompressing file object (easel's gzip pipe would
        complain on stderr when closed early); line numbers in easel's messages stay right
        for plain files."""
        if self._gzipped():
            return gzip.open(self.path, "rb")
        return contextlib.nullcontext(self.path)

    @contextlib.contextmanager
    def _reading(self, alphabet: Alphabet) -> Iterator[None]:
        """pyhmmer's reading errors as one typed error naming the database."""
        try:
            yield
        except READ_ERRORS as error:
            raise self._error(error, alphabet) from None

    def _error(self, error: Exception, alphabet: Alphabet) -> Exception:
        """Why the database could not be read, as hmmsearch would say it (a broken gzip
        stream: "empty or misformatted"), or as a wrong alphabet where a nucleotide model
        meets protein targets."""
        if self._gzipped():
            try:
                with gzip.open(self.path, "rb") as stream:
                    size = sum(len(piece) for piece in iter(lambda: stream.read(1 << 20), b""))
            except (OSError, EOFError, zlib.error) as problem:
                reason = f"empty or misformatted (corrupt or truncated gzip data: {problem})"
                return SequenceFileError(self.name, reason)
            if size == 0:
                return EmptyInput(f"sequence database {self.name}")
        if not isinstance(error, (ValueError, EOFError, UnicodeDecodeError)):
            return SequenceFileError(self.name, "empty or misformatted")
        reason = _clean(str(error))
        if reason.startswith("Could not determine format"):
            return SequenceFileError(self.name, "empty or misformatted (format not recognized)")
        if "illegal character" in reason and not alphabet.is_amino() and self._looks_protein():
            return AlphabetMismatch(kind(alphabet), "protein", what=self.name)
        return SequenceFileError(self.name, reason)

    def _looks_protein(self) -> bool:
        """Whether easel guesses the file is protein (asked only once reading has failed)."""
        try:
            with self._source() as source, SequenceFile(source) as probe:
                guessed = probe.guess_alphabet()
        except READ_ERRORS:
            return False
        return guessed is not None and guessed.is_amino()


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
            raise AlphabetMismatch(kind(first), kind(hmm.alphabet), what=f"model {hmm.name}")
    return first
