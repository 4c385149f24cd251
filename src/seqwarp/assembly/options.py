"""Local-assembly settings: MetaHipMer2's constants as defaults, each defect behind a switch.

Every field defaults to what MetaHipMer2 (MHM2 v2.1 localassm) does, quirks included; the
documented quirks are:

* ``min_read_length=121``: MHM2 skips every read shorter than its largest k (121 bp), meant for
  merged-read placeholders; set it to 0 to use short reads too (a defect fix).
* ``best_alignment_ties="last"``: among a read's equal-scoring alignments the later one wins
  (v2.1); ``"lowest"`` takes the lowest contig start, then read start (the 2023 fix).
* ``overhang_both_sides=False``: a read overhanging both ends of a short contig serves only the
  end its start overhangs (v2.1 ``else if``): the left end for a read on the contig's strand,
  the right end for a reverse-strand read; ``True`` gives it to both (the 2023 fix).
* Ratings: a base whose high-quality votes equal ``min_viable`` rates 7 (strict ``<``), and the
  contig depth is truncated to an integer before the thresholds are computed.
* Walks that reach ``walk_limit`` end as dead ends (``X``), which triggers a k down-shift.

Stricter tests trade length for accuracy; each is off by default (MHM2's behaviour):

* ``min_votes`` / ``min_hiq_votes``: the chosen base needs this many votes (quality >=
  ``min_qual``) / high-quality votes (>= ``hi_qual``), else the walk ends as a dead end. MHM2
  extends on a single uncontested vote (``min_votes=1``), so a sequencing error in the last
  read that covers a position enters the walk.
* ``min_rating``: the chosen base must rate at least this (1..7, see
  :mod:`seqwarp.assembly.rules`); 3 asks for votes >= ``min_viable_depth`` x contig depth
  (at least 2), 5 for votes >= ``min_expected_depth`` x depth. MHM2 lets any rating extend
  when uncontested (1), so walks run on into stretches where only a few reads, possibly of
  another strain, remain.
* ``fork_ratio``: two bases rating 7 fork when the lesser has at least this fraction of the
  greater's votes; MHM2 forks only on equal votes (1.0) and otherwise follows the majority,
  which at a strain difference is the more abundant strain. 0.0 forks on every two sevens.
* ``rival_ratio``: whatever the ratings, the walk forks when another base has at least this
  fraction of the chosen base's votes (0.0: off); a single vote against few counts too.
* ``min_identity``: alignments whose aligned part has fewer matches are not used to pick
  candidate reads, with identity ``1 - (aligned read bases - score) / (2 * aligned read
  bases)`` (exact for ungapped +1/-1 alignments). MHM2 defines a 95% cut-off but leaves it
  out (0.0: off).

:data:`PRESETS` names sets of them: ``"mhm2"`` (the defaults) and ``"strict"``
(``min_rating=5, fork_ratio=0.0, rival_ratio=0.05, min_identity=1.0``): a base is taken only
when it has at least 30% of the contig depth in votes (and >= 2) and no other base has 5% of
its votes, and candidate reads must match the contig end exactly where they align. It was
chosen on the mock community of ``python -m seqwarp.bench assembly``, where MHM2's rules follow
the more abundant of two E. coli strains (99.6% identical) into the wrong one; there it keeps
extended bases >= 99.9% correct and wrong joins <= 0.1% of extended ends, at the price of
extensions about a quarter as long. :meth:`LocalAssemblyOptions.preset` builds a preset, with
overrides.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from ..errors import InvalidParameter

__all__ = ["ACCURACY_OPTIONS", "PRESETS", "Accuracy", "LocalAssemblyOptions", "TieRule"]

# the switches that trade extension length for accuracy (off by default; set by presets)
ACCURACY_OPTIONS = (
    "min_votes",
    "min_hiq_votes",
    "min_rating",
    "fork_ratio",
    "rival_ratio",
    "min_identity",
)

TieRule = Literal["last", "lowest"]
Accuracy = Literal["mhm2", "strict"]


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
    min_votes: int = 1
    min_hiq_votes: int = 0
    min_rating: int = 1
    fork_ratio: float = 1.0
    rival_ratio: float = 0.0
    min_identity: float = 0.0

    @classmethod
    def preset(cls, accuracy: Accuracy, **overrides: Any) -> LocalAssemblyOptions:
        """The options of a named preset (:data:`PRESETS`), with ``overrides`` on top."""
        if accuracy not in PRESETS:
            raise InvalidParameter("accuracy", accuracy, choices=list(PRESETS))
        return replace(cls(**PRESETS[accuracy]), **overrides)

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
        _at_least("min_votes", self.min_votes, 1)
        _at_least("min_hiq_votes", self.min_hiq_votes, 0)
        if not 1 <= self.min_rating <= 7:
            raise InvalidParameter("min_rating", self.min_rating, hint="expected a value in 1..7")
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
        for name in ("fork_ratio", "rival_ratio", "min_identity"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise InvalidParameter(name, getattr(self, name), hint="expected a value in 0..1")


def _at_least(name: str, value: int, low: int) -> None:
    if value < low:
        raise InvalidParameter(name, value, hint=f"expected a value >= {low}")


PRESETS: dict[str, dict[str, Any]] = {
    "mhm2": {},
    "strict": {"min_rating": 5, "fork_ratio": 0.0, "rival_ratio": 0.05, "min_identity": 1.0},
}
