"""Slow, obvious reference implementations for property tests (full matrices, plain Python)."""

from __future__ import annotations

NEG = float("-inf")


def gotoh(
    q: list[int], t: list[int], matrix, mode: str, gap_open: int, gap_extend: int, unknown: int
):
    """Full-matrix Gotoh with seqwarp's tie rules: (score, q_begin, q_end, t_begin, t_end, ops).

    ``ops`` is a string over ``=XID`` (``=``: the same residue, not the wildcard ``unknown``);
    ties follow the engine's documented contract.
    """
    m, n = len(q), len(t)

    def boundary(k: int) -> float:
        if mode != "global" or k == 0:
            return 0
        return -(gap_open + (k - 1) * gap_extend)

    H = [[0.0] * (n + 1) for _ in range(m + 1)]
    E = [[NEG] * (n + 1) for _ in range(m + 1)]
    F = [[NEG] * (n + 1) for _ in range(m + 1)]
    src = [[0] * (n + 1) for _ in range(m + 1)]
    e_open = [[False] * (n + 1) for _ in range(m + 1)]
    f_open = [[False] * (n + 1) for _ in range(m + 1)]
    for j in range(n + 1):
        H[0][j] = boundary(j)
    for i in range(1, m + 1):
        H[i][0] = boundary(i)
        for j in range(1, n + 1):
            eo, ee = H[i - 1][j] - gap_open, E[i - 1][j] - gap_extend
            E[i][j] = max(eo, ee)
            e_open[i][j] = eo >= ee
            fo, fe = H[i][j - 1] - gap_open, F[i][j - 1] - gap_extend
            F[i][j] = max(fo, fe)
            f_open[i][j] = fo >= fe
            d = H[i - 1][j - 1] + matrix[q[i - 1]][t[j - 1]]
            h, s = d, "diag"
            if E[i][j] > h:
                h, s = E[i][j], "E"
            if F[i][j] > h:
                h, s = F[i][j], "F"
            if mode == "local" and h <= 0:
                h, s = 0, "zero"
            H[i][j], src[i][j] = h, s
    if mode == "global":
        end = (m, n)
    elif mode == "semi-global":
        if m == 0 or n == 0:
            end = (m, n)
        else:
            cells = [(i, n) for i in range(1, m)] + [(m, j) for j in range(1, n + 1)]
            end = cells[0]
            for c in cells:
                if H[c[0]][c[1]] > H[end[0]][end[1]]:
                    end = c
    else:
        end = (0, 0)
        for i in range(1, m + 1):
            for j in range(1, n + 1):
                if H[i][j] > H[end[0]][end[1]]:
                    end = (i, j)
    score = H[end[0]][end[1]]
    i, j = end
    state, ops = "H", []
    while True:
        if state == "H" and (i == 0 or j == 0):
            if mode == "global":
                ops += ["D"] * j + ["I"] * i
                i = j = 0
            break
        if state == "H":
            s = src[i][j]
            if s == "zero":
                break
            if s == "diag":
                ops.append("=" if q[i - 1] == t[j - 1] != unknown else "X")
                i, j = i - 1, j - 1
            else:
                state = s
        elif state == "E":
            ops.append("I")
            if e_open[i][j]:
                state = "H"
            i -= 1
        else:
            ops.append("D")
            if f_open[i][j]:
                state = "H"
            j -= 1
    return int(score), i, end[0], j, end[1], "".join(reversed(ops))


def rescore(
    q: list[int],
    t: list[int],
    matrix,
    ops: str,
    q_begin: int,
    t_begin: int,
    gap_open: int,
    gap_extend: int,
    unknown: int,
) -> int:
    """Score an alignment given as ops starting at (q_begin, t_begin); checks it stays in bounds
    and that ``=`` marks exactly the same residues other than the wildcard ``unknown``."""
    i, j, score, prev = q_begin, t_begin, 0, ""
    for op in ops:
        if op in "=X":
            assert (q[i] == t[j] != unknown) == (op == "="), (op, i, j)
            score += matrix[q[i]][t[j]]
            i, j = i + 1, j + 1
        elif op == "I":
            score -= gap_extend if prev == "I" else gap_open
            i += 1
        else:
            score -= gap_extend if prev == "D" else gap_open
            j += 1
        prev = op
    assert i <= len(q) and j <= len(t)
    return score
