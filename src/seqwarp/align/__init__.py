"""Batched pairwise alignment: global, semi-global and local; linear or affine gaps."""

from .api import Aligner, AlignMode, Output, align
from .results import CigarResult, Cigars, EndsResult, ScoreResult, TopHits

__all__ = [
    "AlignMode",
    "Aligner",
    "CigarResult",
    "Cigars",
    "EndsResult",
    "Output",
    "ScoreResult",
    "TopHits",
    "align",
]
