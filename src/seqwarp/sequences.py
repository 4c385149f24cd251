"""SequenceBatch: many sequences in one ``uint8`` code buffer plus offsets (CSR layout).

Kernels receive only ``(codes, offsets)``; ``batch[i]`` is a view into the shared buffer and
slicing returns a batch sharing it. Files are read with dnaio (FASTA/FASTQ, plain or gzip).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import dnaio
import numpy as np

from .alphabets import INVALID, Alphabet, AlphabetName, get_alphabet
from .errors import EmptyInput, InvalidResidue, SequenceFileError

__all__ = ["SequenceBatch", "as_batch", "iter_batches", "read_sequences"]

SequencesLike = "SequenceBatch | Sequence[str] | Sequence[bytes] | str | os.PathLike[str]"


@dataclass(frozen=True, eq=False)
class SequenceBatch:
    """Encoded sequences: ``codes[offsets[i]:offsets[i + 1]]`` is sequence ``i``.

    ``qualities`` (raw Phred+33 bytes, same offsets) is present for FASTQ input.
    """

    codes: np.ndarray
    offsets: np.ndarray
    names: tuple[str, ...]
    alphabet: Alphabet
    qualities: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.offsets.ndim != 1 or len(self.offsets) != len(self.names) + 1:
            raise ValueError("offsets must have one entry more than names")

    # --- construction -------------------------------------------------------------------

    @classmethod
    def from_strings(
        cls,
        sequences: Iterable[str | bytes],
        alphabet: AlphabetName | Alphabet = "dna",
        names: Sequence[str] | None = None,
    ) -> SequenceBatch:
        """Encode Python strings; an invalid character names the sequence and position."""
        raw = [
            s.encode("ascii", "surrogateescape") if isinstance(s, str) else bytes(s)
            for s in _checked_ascii(sequences)
        ]
        if names is None:
            names = [str(i) for i in range(len(raw))]
        return _encode(raw, list(names), get_alphabet(alphabet), None)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Every sequence's length (computed once per batch, read-only)."""
        lengths = np.diff(self.offsets)
        lengths.setflags(write=False)
        return lengths

    @cached_property
    def longest(self) -> int:
        """The longest sequence's length (0 for an empty batch; computed once per batch)."""
        return int(self.lengths.max(initial=0))

    @property
    def total_length(self) -> int:
        return int(self.offsets[-1] - self.offsets[0])

    def __len__(self) -> int:
        return len(self.names)

    def __getitem__(self, index: int | slice) -> np.ndarray | SequenceBatch:
        """``batch[i]`` -> the codes of sequence ``i`` (a view); ``batch[a:b]`` -> a batch."""
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self.take(np.arange(start, stop, step))
            return SequenceBatch(
                self.codes,
                self.offsets[start : stop + 1],
                self.names[start:stop],
                self.alphabet,
                self.qualities,
            )
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.codes[self.offsets[index] : self.offsets[index + 1]]

    def take(self, indices: Sequence[int] | np.ndarray) -> SequenceBatch:
        """A new batch of the given records, in the given order (copies the residues)."""
        indices = np.asarray(indices, dtype=np.int64)
        lengths = self.lengths[indices]
        offsets = np.zeros(len(indices) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        gather = _gather_index(self.offsets[indices], lengths, int(offsets[-1]))
        quals = None if self.qualities is None else self.qualities[gather]
        return SequenceBatch(
            self.codes[gather], offsets, tuple(self.names[i] for i in indices), self.alphabet, quals
        )

    def sequence(self, index: int) -> str:
        """Sequence ``index`` as canonical letters."""
        return self.alphabet.decode(self[index])

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self[i]

    def reverse_complement(self) -> SequenceBatch:
        """Every sequence reverse-complemented (DNA only); qualities reversed with them."""
        comp = self.alphabet.complement_codes
        n = len(self)
        lengths = self.lengths
        starts = self.offsets[:-1]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        within = np.arange(int(offsets[-1]), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
        source = np.repeat(starts + lengths - 1, lengths) - within
        quals = None if self.qualities is None else self.qualities[source]
        return SequenceBatch(comp[self.codes[source]], offsets, self.names, self.alphabet, quals)

    def compact(self) -> SequenceBatch:
        """A batch whose buffer starts at 0 and holds only these records (for device copies)."""
        if self.offsets[0] == 0 and len(self.codes) == self.offsets[-1]:
            return self
        return self.take(np.arange(len(self)))


def _gather_index(starts: np.ndarray, lengths: np.ndarray, total: int) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return np.repeat(starts - offsets[:-1], lengths) + np.arange(total, dtype=np.int64)


def _checked_ascii(sequences: Iterable[str | bytes]) -> Iterator[str | bytes]:
    for s in sequences:
        if not isinstance(s, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"expected str or bytes sequences, got {type(s).__name__}")
        yield s


def _encode(
    raw: list[bytes],
    names: list[str],
    alphabet: Alphabet,
    qualities: list[bytes] | None,
) -> SequenceBatch:
    if len(names) != len(raw):
        raise ValueError(f"{len(names)} names for {len(raw)} sequences")
    lengths = np.fromiter((len(s) for s in raw), dtype=np.int64, count=len(raw))
    offsets = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    buffer = np.frombuffer(b"".join(raw), dtype=np.uint8)
    codes = alphabet.table[buffer]
    if codes.size and codes.max() == INVALID:
        flat = int(np.argmax(codes == INVALID))
        index = int(np.searchsorted(offsets, flat, side="right") - 1)
        raise InvalidResidue(
            _char(buffer[flat]),
            alphabet.display_name,
            record=names[index] if names[index] != str(index) else None,
            index=index,
            position=flat - int(offsets[index]),
        )
    quals = None
    if qualities is not None:
        quals = np.frombuffer(b"".join(qualities), dtype=np.uint8).copy()
    return SequenceBatch(codes, offsets, tuple(names), alphabet, quals)


def _char(byte: int) -> str:
    return chr(byte) if byte < 128 else bytes([byte]).decode("latin-1")


# --- files ----------------------------------------------------------------------------


def _open_records(path: str | os.PathLike[str]) -> Iterator[dnaio.SequenceRecord]:
    path_str = os.fspath(path)
    if not os.path.exists(path_str):
        raise SequenceFileError(path_str, "no such file")
    if os.path.isdir(path_str):
        raise SequenceFileError(path_str, "is a directory, not a sequence file")
    try:
        with dnaio.open(path_str) as reader:
            yield from reader
    except dnaio.UnknownFileFormat:
        raise SequenceFileError(path_str, "not a FASTA or FASTQ file") from None
    except dnaio.FileFormatError as error:
        raise SequenceFileError(path_str, _describe_format_error(error)) from None
    except (EOFError, OSError) as error:
        raise SequenceFileError(path_str, f"truncated or unreadable ({error})") from None


def _describe_format_error(error: Exception) -> str:
    text = str(error)
    return text[0].lower() + text[1:] if text else "malformed sequence file"


def _record_name(header: str, index: int) -> str:
    """A record's name: its header up to the first whitespace, or its 0-based index in the
    file when the header is empty or only whitespace (``>``, ``@ ``)."""
    words = header.split(maxsplit=1)
    return words[0] if words else str(index)


def iter_batches(
    path: str | os.PathLike[str],
    alphabet: AlphabetName | Alphabet = "dna",
    *,
    max_residues: int = 1 << 26,
    require_qualities: bool = False,
) -> Iterator[SequenceBatch]:
    """Stream a FASTA/FASTQ file as batches of about ``max_residues`` residues each."""
    alpha = get_alphabet(alphabet)
    path_str = os.fspath(path)
    raw: list[bytes] = []
    names: list[str] = []
    quals: list[bytes] = []
    have_quals: bool | None = None
    residues = 0
    first_index = 0
    seen = 0
    for record in _open_records(path_str):
        if have_quals is None:
            have_quals = record.qualities is not None
            if require_qualities and not have_quals:
                raise SequenceFileError(path_str, "has no base qualities (FASTQ is required)")
        raw.append(record.sequence.encode("ascii"))
        names.append(_record_name(record.name, seen))
        if have_quals:
            quals.append(record.qualities.encode("ascii"))
        residues += len(raw[-1])
        seen += 1
        if residues >= max_residues:
            yield _encode_file_chunk(
                path_str, raw, names, alpha, quals if have_quals else None, first_index
            )
            first_index = seen
            raw, names, quals, residues = [], [], [], 0
    if seen == 0:
        raise SequenceFileError(path_str, "holds no sequences (empty file)")
    if raw:
        yield _encode_file_chunk(
            path_str, raw, names, alpha, quals if have_quals else None, first_index
        )


def _encode_file_chunk(
    path: str,
    raw: list[bytes],
    names: list[str],
    alphabet: Alphabet,
    quals: list[bytes] | None,
    first_index: int,
) -> SequenceBatch:
    try:
        return _encode(raw, names, alphabet, quals)
    except InvalidResidue as error:
        index = (error.index or 0) + first_index
        located = InvalidResidue(
            error.character,
            error.alphabet,
            record=names[error.index or 0],
            index=index,
            position=error.position,
            path=path,
        )
        raise located from None


def read_sequences(
    path: str | os.PathLike[str],
    alphabet: AlphabetName | Alphabet = "dna",
    *,
    require_qualities: bool = False,
) -> SequenceBatch:
    """Read a whole FASTA/FASTQ file (plain or gzip) into one batch."""
    chunks = list(
        iter_batches(path, alphabet, max_residues=1 << 62, require_qualities=require_qualities)
    )
    return chunks[0]


def as_batch(
    sequences: SequenceBatch | Sequence[str] | Sequence[bytes] | str | os.PathLike[str],
    alphabet: AlphabetName | Alphabet = "dna",
    what: str = "sequences",
) -> SequenceBatch:
    """Accept a batch, a list of strings/bytes, or a path; refuse an empty input."""
    if isinstance(sequences, SequenceBatch):
        batch = sequences
        if batch.alphabet.name != get_alphabet(alphabet).name:
            batch = SequenceBatch.from_strings(
                [batch.sequence(i) for i in range(len(batch))], alphabet, batch.names
            )
    elif isinstance(sequences, (str, os.PathLike)):
        batch = read_sequences(sequences, alphabet)
    else:
        batch = SequenceBatch.from_strings(sequences, alphabet)
    if len(batch) == 0:
        raise EmptyInput(what)
    return batch
