"""DNA and protein encodings: which characters are accepted, which code each one gets.

Policy (the same for files and Python strings):

* **DNA** — ``A C G T`` and ``N``, case-insensitive, coded 0..4. ``U`` is read as ``T``. The
  other IUPAC ambiguity codes (``R Y S W K M B D H V``) are read as ``N``: an ambiguous base
  scores like an unknown one. Anything else (gaps ``-``/``.``, digits, ``*``) is invalid.
* **Protein** — the 20 amino acids plus ``B J Z O U X *``, case-insensitive, coded 0..26 in
  the order ``ARNDCQEGHILKMFPSTWYV BZX* JOU`` (the first 24 are the NCBI matrix order).
  Anything else is invalid.

An invalid character raises :class:`~seqwarp.errors.InvalidResidue` naming the record and the
position (1-based in the message); the reader adds the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .errors import InvalidParameter, InvalidResidue

__all__ = ["DNA", "PROTEIN", "Alphabet", "AlphabetName", "get_alphabet"]

AlphabetName = Literal["dna", "protein"]

INVALID = 255


@dataclass(frozen=True)
class Alphabet:
    """An encoding: ``symbols[code]`` is the canonical letter of each code."""

    name: AlphabetName
    symbols: str
    aliases: dict[str, str] = field(default_factory=dict)
    complement: str | None = None

    @property
    def size(self) -> int:
        return len(self.symbols)

    @property
    def unknown(self) -> int:
        """Code of the wildcard residue (``N`` or ``X``)."""
        return self.symbols.index("N" if self.name == "dna" else "X")

    @property
    def table(self) -> np.ndarray:
        """256-entry byte -> code lookup; :data:`INVALID` marks refused bytes."""
        return _encoding_table(self)

    def encode(self, text: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
        """Encode ASCII bytes to codes; raise ``InvalidResidue`` at the first bad character."""
        raw = np.frombuffer(text, dtype=np.uint8) if not isinstance(text, np.ndarray) else text
        codes = self.table[raw]
        if codes.size and codes.max() == INVALID:
            position = int(np.argmax(codes == INVALID))
            raise InvalidResidue(chr(raw[position]), self.display_name, position=position)
        return codes

    def decode(self, codes: np.ndarray) -> str:
        """Codes back to canonical letters."""
        return _decoding_table(self)[np.asarray(codes, dtype=np.uint8)].tobytes().decode("ascii")

    @property
    def display_name(self) -> str:
        return "DNA" if self.name == "dna" else "protein"

    @property
    def complement_codes(self) -> np.ndarray:
        """code -> code of the complementary base (DNA only)."""
        if self.complement is None:
            raise InvalidParameter("alphabet", self.name, hint="only DNA has a complement")
        return np.array([self.symbols.index(c) for c in self.complement], dtype=np.uint8)


def _encoding_table(alphabet: Alphabet) -> np.ndarray:
    cached = _TABLES.get(alphabet.name)
    if cached is not None:
        return cached
    table = np.full(256, INVALID, dtype=np.uint8)
    for code, symbol in enumerate(alphabet.symbols):
        table[ord(symbol)] = table[ord(symbol.lower())] = code
    for alias, target in alphabet.aliases.items():
        code = alphabet.symbols.index(target)
        table[ord(alias)] = table[ord(alias.lower())] = code
    table.flags.writeable = False
    _TABLES[alphabet.name] = table
    return table


def _decoding_table(alphabet: Alphabet) -> np.ndarray:
    return np.frombuffer(alphabet.symbols.encode("ascii"), dtype=np.uint8)


_TABLES: dict[str, np.ndarray] = {}

DNA = Alphabet(
    name="dna",
    symbols="ACGTN",
    aliases={"U": "T", **{c: "N" for c in "RYSWKMBDHV"}},
    complement="TGCAN",
)
PROTEIN = Alphabet(name="protein", symbols="ARNDCQEGHILKMFPSTWYVBZX*JOU")

_BY_NAME: dict[str, Alphabet] = {"dna": DNA, "protein": PROTEIN}


def get_alphabet(name: str | Alphabet) -> Alphabet:
    """Look an alphabet up by name (``"dna"`` or ``"protein"``)."""
    if isinstance(name, Alphabet):
        return name
    try:
        return _BY_NAME[name.lower()]
    except (KeyError, AttributeError):
        raise InvalidParameter("alphabet", name, choices=sorted(_BY_NAME)) from None
