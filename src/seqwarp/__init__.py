"""seqwarp: batched pairwise alignment, profile-HMM search and local assembly, GPU and CPU."""

__version__ = "0.1.0"

from .alphabets import DNA, PROTEIN, Alphabet
from .errors import (
    AlphabetMismatch,
    CompileError,
    DeviceUnavailable,
    EmptyInput,
    InvalidParameter,
    InvalidResidue,
    LengthMismatch,
    OutputFileError,
    SequenceFileError,
    SeqwarpError,
)
from .scoring import Scoring
from .sequences import SequenceBatch, read_sequences

__all__ = [
    "DNA",
    "PROTEIN",
    "Alphabet",
    "AlphabetMismatch",
    "CompileError",
    "DeviceUnavailable",
    "EmptyInput",
    "InvalidParameter",
    "InvalidResidue",
    "LengthMismatch",
    "OutputFileError",
    "Scoring",
    "SequenceBatch",
    "SequenceFileError",
    "SeqwarpError",
    "__version__",
    "read_sequences",
]
