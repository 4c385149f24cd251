"""HMMER 3.4-compatible profile-HMM search with a batched MSV / bias / Viterbi filter stage."""

from __future__ import annotations

from .api import Cutoffs, SearchOptions, hmmsearch

__all__ = ["Cutoffs", "SearchOptions", "hmmsearch"]
