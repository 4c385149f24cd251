"""Typed errors: each stores its facts as attributes and composes its message in ``__str__``.

User mistakes subclass the builtin a caller would catch (``ValueError``, ``RuntimeError``);
the CLI prints them as one line and exits non-zero. Our own bugs are ``UnexpectedError``.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AlphabetMismatch",
    "CompileError",
    "DeviceUnavailable",
    "EmptyInput",
    "InvalidParameter",
    "InvalidResidue",
    "LengthMismatch",
    "ModelFileError",
    "OutputFileError",
    "SequenceFileError",
    "SeqwarpError",
    "UnexpectedError",
]


class SeqwarpError(Exception):
    """Base class of every error seqwarp raises on purpose."""


class InvalidResidue(SeqwarpError, ValueError):
    """A character that the alphabet does not accept, located by file, record and position.

    ``index`` and ``position`` are 0-based, as Python indexes the batch and the sequence; the
    message numbers the position from 1, as text editors and samtools count columns.
    """

    def __init__(
        self,
        character: str,
        alphabet: str,
        *,
        record: str | None = None,
        index: int | None = None,
        position: int | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(character, alphabet, record, index, position, path)
        self.character = character
        self.alphabet = alphabet
        self.record = record
        self.index = index
        self.position = position
        self.path = path

    def __str__(self) -> str:
        if self.record is not None:
            location = f"record {self.record!r} (#{self.index})"
        else:
            location = f"sequence #{self.index}" if self.index is not None else ""
        if self.position is not None:
            position = f"position {self.position + 1} (1-based)"
            location = f"{location}, {position}" if location else position
        parts = [p for p in (self.path, location) if p]
        char = self.character if self.character.isprintable() else ascii(self.character)[1:-1]
        parts.append(f"invalid residue {char!r} for {self.alphabet}")
        return ": ".join(parts)


class SequenceFileError(SeqwarpError, ValueError):
    """A sequence file that cannot be read: missing, empty, truncated or malformed."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class ModelFileError(SeqwarpError, ValueError):
    """A profile-HMM file that cannot be read: empty, truncated, corrupt or of unknown format."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class OutputFileError(SeqwarpError, ValueError):
    """An output path that cannot be written: no such folder, a directory, not writable."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(path, reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"cannot write {self.path!r}: {self.reason}"


class EmptyInput(SeqwarpError, ValueError):
    """An input that holds no sequences (or models) where at least one is needed."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what

    def __str__(self) -> str:
        return f"{self.what} is empty"


class LengthMismatch(SeqwarpError, ValueError):
    """Two inputs that must pair up one-to-one hold different numbers of records."""

    def __init__(self, what: str, left: int, right: int) -> None:
        super().__init__(what, left, right)
        self.what = what
        self.left = left
        self.right = right

    def __str__(self) -> str:
        return f"{self.what}: {self.left} vs {self.right} records; they must pair up one-to-one"


class InvalidParameter(SeqwarpError, ValueError):
    """A parameter value outside its allowed set or range."""

    def __init__(
        self,
        name: str,
        value: object,
        *,
        choices: Sequence[object] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(name, value, choices, hint)
        self.name = name
        self.value = value
        self.choices = None if choices is None else list(choices)
        self.hint = hint

    def __str__(self) -> str:
        msg = f"invalid value for {self.name!r}: {self.value!r}"
        if self.choices is not None:
            msg += f" (expected one of: {', '.join(map(str, self.choices))})"
        if self.hint:
            msg += f"; {self.hint}"
        return msg


class AlphabetMismatch(SeqwarpError, ValueError):
    """Inputs of different alphabets that cannot be compared (protein model vs DNA targets)."""

    def __init__(self, expected: str, actual: str, what: str = "input") -> None:
        super().__init__(expected, actual, what)
        self.expected = expected
        self.actual = actual
        self.what = what

    def __str__(self) -> str:
        return f"{self.what}: expected {self.expected} sequences, got {self.actual}"


class DeviceUnavailable(SeqwarpError, RuntimeError):
    """The requested compute device cannot be used, and why."""

    def __init__(self, device: str, reason: str) -> None:
        super().__init__(device, reason)
        self.device = device
        self.reason = reason

    def __str__(self) -> str:
        return f"device {self.device!r} is not available: {self.reason}"


class CompileError(SeqwarpError, RuntimeError):
    """NVRTC refused a kernel: carries the kernel name, options and compiler log."""

    def __init__(self, kernel: str, options: Sequence[str], log: str) -> None:
        super().__init__(kernel, tuple(options), log)
        self.kernel = kernel
        self.options = list(options)
        self.log = log

    def __str__(self) -> str:
        return f"compiling {self.kernel} with {' '.join(self.options)} failed:\n{self.log}"


class UnexpectedError(SeqwarpError, RuntimeError):
    """An internal inconsistency: a bug in seqwarp, not a user mistake."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what

    def __str__(self) -> str:
        return f"internal error: {self.what}; please report this as a seqwarp bug"
