"""Local-assembly settings: MetaHipMer2's constants as defaults, each defect behind a switch.

Every field defaults to what MetaHipMer2 (MHM2 v2.1 localassm) does, quirks included; the
documented quirks are:

* ``min_read_length=121``: MHM2 skips every read shorter than its largest k (121 bp), meant for
  merged-read placeholders; set it to 0 to use short reads too (a defect fix).
* ``best_alignment_ties="last"``: among a read's equal-scoring alignments the later one wins
  (v2.1); ``"lowest"`` takes the lowest contig start, then read start (the 2023 fix).
* ``overhang_both_sides=False``: a read overhanging both ends of a short contig is given to the
  left side only (v2.1 ``else if``); ``True`` gives it to both (the 2023 fix).
* Ratings: a base whose high-quality votes equal ``min_viable`` rates 7 (strict ``<``), and the
  contig depth is truncated to an integer before the thresholds are computed.
* Walks that reach ``walk_limit`` end as dead ends (``X``), which triggers a k down-shift.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

from ..errors import InvalidParameter

__all__ = ["LocalAssemblyOptions", "TieRule"]

TieRule = Literal["last", "lowest"]


@dataclass(frozen=True)
class LocalAssemblyOptions:
    """Thresholds and switches of the local assembly (defaults: MetaHipMer2's)."""

    k: int = 21
    min_k: int = 21
    max_k: int = 121
    k_shift: int = 8
    qual_offset: int = 33
    min_qual: int = 10
    hi_qual: int = 20
    min_viable_depth: float = 0.2
    min_expected_depth: float = 0.3
    max_reads_per_side: int = 3000
    min_read_length: int = 121
    max_unaligned: int = 1
    best_alignment_ties: TieRule = "last"
    overhang_both_sides: bool = False

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if field.type == "int" and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidParameter(field.name, value, hint="expected an integer")
        _at_least("min_k", self.min_k, 1)
        _at_least("max_k", self.max_k, self.min_k)
        _at_least("k_shift", self.k_shift, 1)
        _at_least("max_reads_per_side", self.max_reads_per_side, 1)
        _at_least("min_read_length", self.min_read_length, 0)
        _at_least("max_unaligned", self.max_unaligned, 0)
        _at_least("qual_offset", self.qual_offset, 0)
        if not self.min_k <= self.k <= self.max_k:
            raise InvalidParameter(
                "k", self.k, hint=f"expected a value in {self.min_k}..{self.max_k}"
            )
        if self.best_alignment_ties not in ("last", "lowest"):
            raise InvalidParameter(
                "best_alignment_ties", self.best_alignment_ties, choices=["last", "lowest"]
            )
        for name in ("min_viable_depth", "min_expected_depth"):
            if not float(getattr(self, name)) >= 0.0:
                raise InvalidParameter(name, getattr(self, name), hint="expected a value >= 0")


def _at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise InvalidParameter(name, value, hint=f"expected a value >= {low}")
