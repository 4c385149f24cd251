"""Writing hmmsearch's outputs: ``--tblout`` / ``--domtblout`` with pyhmmer's writers, and a
hit-list summary for ``-o``.

The tables come from HMMER's own writers (``TopHits.write``), so they match hmmsearch's byte
for byte; only the closing ``#`` lines, which record the command line, differ. They stay
bytes from end to end: names and descriptions are written as they are in the database
(UTF-8 or not), as HMMER writes them.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Literal

from pyhmmer.plan7 import HMM, TopHits

__all__ = ["TEXT_ENCODING", "TEXT_ERRORS", "summary", "table"]

TableFormat = Literal["targets", "domains"]
TEXT_ENCODING = "utf-8"
TEXT_ERRORS = "surrogateescape"  # bytes that are not UTF-8 survive the round trip


def _text(item: object, attribute: str) -> str:
    """A name, accession or description for the summary: pyhmmer decodes them as UTF-8 and
    cannot give other bytes back, so such text shows as U+FFFD (the tables keep the bytes)."""
    try:
        value = getattr(item, attribute)
    except UnicodeDecodeError:
        return "\ufffd"
    if value is None:
        return ""
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


def table(results: Sequence[TopHits], kind: TableFormat, footer: dict[str, str]) -> str:
    """A whole ``--tblout``/``--domtblout`` file: one header, every query's rows, a footer.

    Text decoded as UTF-8 with ``surrogateescape``: ``encode(TEXT_ENCODING, TEXT_ERRORS)``
    gives HMMER's bytes back, whatever the database's names and descriptions hold.
    """
    buffer = io.BytesIO()
    for index, hits in enumerate(results):
        hits.write(buffer, format=kind, header=index == 0)
    lines = [buffer.getvalue().decode(TEXT_ENCODING, TEXT_ERRORS), "#\n"]
    lines.extend(f"# {key + ':':<17}{value}\n" for key, value in footer.items())
    lines.append("# [ok]\n")
    return "".join(lines)


def summary(models: Sequence[HMM], results: Sequence[TopHits]) -> str:
    """HMMER's per-query 'Scores for complete sequences' list (no alignments)."""
    out = io.StringIO()
    for hmm, hits in zip(models, results, strict=True):
        out.write(f"Query:       {_text(hmm, 'name')}  [M={hmm.M}]\n")
        if hmm.accession:
            out.write(f"Accession:   {_text(hmm, 'accession')}\n")
        if hmm.description:
            out.write(f"Description: {_text(hmm, 'description')}\n")
        out.write("Scores for complete sequences (score includes all domains):\n")
        out.write("   --- full sequence ---   --- best 1 domain ---   #dom\n")
        out.write("    E-value  score  bias    E-value  score  bias     N  Sequence\n")
        out.write("    ------- ------ -----    ------- ------ -----   ---  --------\n")
        reported = [hit for hit in hits if hit.reported]
        for hit in reported:
            best = hit.best_domain
            out.write(
                f"{'+' if hit.included else ' '} {hit.evalue:9.2g} {hit.score:6.1f} "
                f"{hit.bias:5.1f}  {best.i_evalue:9.2g} {best.score:6.1f} {best.bias:5.1f}  "
                f"{len(hit.domains.reported):4d}  "
                f"{_text(hit, 'name')}  {_text(hit, 'description')}\n"
            )
        if not reported:
            out.write("\n   [No hits detected that satisfy reporting thresholds]\n")
        out.write("//\n")
    out.write("[ok]\n")
    return out.getvalue()
