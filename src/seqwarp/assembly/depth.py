"""Contig depth: from the contig headers (MEGAHIT's ``multi=``) or from read coverage."""

from __future__ import annotations

import os
import re

import dnaio
import numpy as np

from .select import Alignments

__all__ = ["coverage_depths", "header_depths"]

_MULTI = re.compile(r"(?:^|\s)multi=([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(?:\s|$)")


def header_depths(path: str | os.PathLike[str]) -> np.ndarray | None:
    """``multi=`` of every contig header, or ``None`` when any header lacks it."""
    depths = []
    with dnaio.open(os.fspath(path)) as reader:
        for record in reader:
            match = _MULTI.search(record.name)
            if match is None:
                return None
            depths.append(float(match.group(1)))
    return np.asarray(depths, dtype=np.float64)


def coverage_depths(best: Alignments, covered: np.ndarray) -> np.ndarray:
    """Aligned contig bases per contig divided by the bases that reads were mapped to."""
    aligned = np.bincount(best.contig, weights=best.cstop - best.cstart, minlength=len(covered))
    return aligned / np.maximum(covered, 1)
