"""Slow, obvious local assembly on Python strings (§3-§6 of the MetaHipMer2 rules), an oracle."""

from __future__ import annotations

BASES = "ACGT"


def rating(nvotes: int, hiq: int, depth: int) -> int:
    """The rating table of §4, written as the upstream documentation states it."""
    min_viable = max(0.2 * depth, 2.0)
    min_expected = max(0.3 * depth, 2.0)
    if nvotes == 0:
        return 0
    if nvotes == 1:
        return 1
    if nvotes < min_viable:
        return 2
    if min_expected > nvotes >= min_viable and hiq < min_viable:
        return 3
    if min_expected > nvotes >= min_viable and hiq >= min_viable:
        return 4
    if nvotes >= min_expected and hiq < min_viable:
        return 5
    if nvotes >= min_expected and min_viable < hiq < min_expected:
        return 6
    return 7


def choose(low: list[int], high: list[int], depth: int) -> str:
    """A base letter, 'F' or 'X'."""
    rows = sorted(
        ((rating(low[b], high[b], depth), high[b], low[b], BASES[b]) for b in range(4)),
        key=lambda row: (-row[0], -row[1], -row[2], row[3]),
    )
    top, runner, third = rows[0], rows[1], rows[2]
    if top[0] == 0:
        return "X"
    if top[0] <= 3:
        return top[3] if runner[0] == 0 else "X"
    if top[0] <= 5:
        return top[3] if runner[0] < 3 else "X"
    if top[0] == 6:
        return top[3] if runner[0] < 4 else "X"
    if runner[0] < 7:
        return top[3]
    if third[0] == 7 or top[2] == runner[2]:
        return "F"
    return top[3] if top[2] > runner[2] else runner[3]


def count(reads: list[tuple[str, str]], k: int) -> dict[str, tuple[list[int], list[int]]]:
    """k-mer -> (votes with Q>=10, votes with Q>=20) over reads (sequence, Phred+33 string)."""
    table: dict[str, tuple[list[int], list[int]]] = {}
    for seq, quals in reads:
        if k >= len(seq):
            continue
        for start in range(len(seq) - k):
            mer = seq[start : start + k]
            if "N" in mer:
                continue
            low, high = table.setdefault(mer, ([0] * 4, [0] * 4))
            ext = seq[start + k]
            if ext == "N":
                continue
            q = ord(quals[start + k]) - 33
            if q >= 10:
                low[BASES.index(ext)] = min(low[BASES.index(ext)] + 1, 65535)
            if q >= 20:
                high[BASES.index(ext)] = min(high[BASES.index(ext)] + 1, 65535)
    return table


def walk(contig: str, reads: list[tuple[str, str]], k: int, depth: int, limit: int) -> tuple:
    """(outcome letter, walk) from the contig's last k-mer; the limit reports 'L'."""
    table = count(reads, k)
    mer, walked, visited = contig[-k:], "", set()
    for _ in range(limit):
        if mer in visited:
            return "R", walked
        visited.add(mer)
        if mer not in table:
            return "X", walked
        ext = choose(*table[mer], depth)
        if ext in "FX":
            return ext, walked
        mer = mer[1:] + ext
        walked += ext
    return "L", walked


def iterate(contig: str, reads: list[tuple[str, str]], k: int, depth: int, limit: int) -> tuple:
    """(outcome, walk, k) of the longest walk over the k-shift loop of §6."""
    max_mer_len = min(121, len(contig))
    shift, best = 0, None
    while 21 <= k <= max_mer_len:
        outcome, walked = walk(contig, reads, k, depth, limit)
        if best is None or len(walked) > len(best[1]):
            best = (outcome, walked, k)
        if outcome in "XL":
            if shift == 8:
                break
            shift = -8
        else:
            if shift == -8:
                break
            shift = 8
        k += shift
    return best
