"""Local assembly: extend contig ends with the reads that overhang them (MetaHipMer2 rules)."""

from .api import EndReport, ExtendResult, extend_contigs
from .options import LocalAssemblyOptions
from .select import Alignments

__all__ = ["Alignments", "EndReport", "ExtendResult", "LocalAssemblyOptions", "extend_contigs"]
