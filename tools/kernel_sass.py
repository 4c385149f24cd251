"""Static SASS counts of the alignment kernels: instructions per DP cell in the row loop.

Compiles instantiations of ``align_score.cu`` for sm_90 with ``nvcc`` (registers and spills
from ``ptxas -v``), disassembles them with ``cuobjdump`` (pip: ``nvidia-cuda-cuobjdump``) and
finds each kernel's row loop: among the loops (backward branches) that hold at least half of
the min/max instructions of the recurrence, the one where they are densest. One pass of that
loop computes ``columns x pairs x rows`` cells (a thread's register tile, times two pairs for
the 16-bit lanes, times the rows a pass: two where ``align_dp.cuh``'s ``rows_a_pass`` unrolls
the loop, read here from the pass's shuffles up the group, two a row and one more with affine
gaps), so its static instruction count over that is the issue cost per cell. Static counts:
the loop's rarely taken branches (the query window refill once per group of rows, the end
cells' code) count in full. The common path, the shortest path through the loop among those
that issue all its min/max instructions (forward branches taken wherever that skips code
without them; a packed lane's are its 16-bit pairs', not the scalar ones of its index
arithmetic), estimates what a pass over a row of cells issues. It leaves out the blocks that
run once every few rows (the window refill, the rebased lane's rebase every 64 rows, the
store of a window of handed-on rows), and it misses code that one thread runs every row while
the others wait (the warp issues it all the same): the split kernels' hand-off by the last
thread, row by row, was about 35 instructions a row outside it.
Of the common path it also counts what issues to the integer ALU pipe, the one that bounds
the score kernels (DPX min/max, logic, byte permutes, compares, selects; not IMAD, which the
FMA pipe takes), and from the registers the warps a multiprocessor holds: fewer ALU-pipe
instructions pay only with enough warps to hide the latency they leave exposed
(``bench/README.md``, "Local affine scores in offset binary"). Each kernel's SASS digest (its
instructions without addresses or encodings) shows whether a change to the sources left it as
it was: run the tool in two checkouts (``git worktree``) and compare the digests.

    python tools/kernel_sass.py                                  # 512 bp DNA, protein search
    python tools/kernel_sass.py local:affine:s16x2:8:32          # mode:gap:lane:columns:group
    python tools/kernel_sass.py global:affine:s16x2-bytes-rebased:16:32:8   # ...:split (warps a
                                                                 # block sharing a pair set)
    python tools/kernel_sass.py --scores-only local:affine:s16x2-table:8:32   # no end cells
    python tools/kernel_sass.py --fill                           # their traceback fills
    python tools/kernel_sass.py --band global:linear:s16x2-bytes:16:4   # a band fill (its
                                                                 # step loop: one row of a block)
    python tools/kernel_sass.py --band --listing global:linear:s16x2-bytes:16:4   # and its
                                              # loop's instructions, the common path's marked *
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from seqwarp.align._gpu_backend import _LANE_STRUCT, kernel_name
from seqwarp.align._gpu_traceback import band_fill_name, fill_name
from seqwarp.align.plan import SM_90, resident_blocks
from seqwarp.cuda import kernel_source

# the 512 bp reads' windows run in 8-thread groups of 24 columns (3 stripes of 192 columns),
# their traceback's fills too; the protein search's largest launches in 32-thread groups of 12
# columns on the class table, which the fills do not take
DEFAULT_FILL = (
    "global:linear:s16x2-bytes:24:8",
    "global:affine:s16x2-bytes:24:8",
    "local:affine:s16x2-bytes:24:8",
)
DEFAULT = (
    "global:linear:s16x2-bytes-offset:24:8",
    "global:affine:s16x2-bytes-offset:24:8",
    "local:affine:s16x2-bytes:24:8",
    "local:affine:s16x2-table:12:32",
)
_DP_OPS = ("VIADDMNMX", "VIMNMX", "VIMNMX3", "IMNMX", "HMNMX2", "HADD2")
# the integer ALU pipe's opcodes among those the row loops issue (IMAD and moves go to the FMA
# pipe, shuffles and loads elsewhere): the score kernels are bound by this pipe (Nsight
# Compute: 77-83 % busy), so its share of a cell's instructions is what bounds their rate.
# VIADD.16x2, the packed 16-bit add, is not among them: on the H200 it issues beside
# VIADDMNMX (29.0 T instructions a second mixed 1:1, against 15.5 and 16.0 alone;
# bench/results/align-gpu-viadd-pipe-experiment-h200-2026-12-04.log)
_ALU_OPS = frozenset(
    ("VIADDMNMX", "VIMNMX", "VIMNMX3", "IMNMX", "LOP3", "IADD3", "ISETP", "SEL", "PRMT", "LEA",
     "SHF", "VIADD", "PLOP3", "P2R", "R2P", "FSEL")
)  # fmt: skip
_LINE = re.compile(
    r"^\s+/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_]+)(\.[A-Za-z0-9_.]+)?(.*)$"
)
_TARGET = re.compile(r"0x([0-9a-f]+)")
# an instruction's address and encoding comments, left out of the SASS digest
_NOT_CODE = re.compile(r"/\*[0-9a-f]{4,}\*/|/\* 0x[0-9a-f]+ \*/")


def sass_digest(sass: str) -> str:
    """A short digest of the instructions in ``sass`` (cuobjdump's text without addresses and
    encodings): equal digests mean the same code, so a rewrite of the source can be shown to
    leave a kernel as it was, e.g. across two revisions."""
    code = "\n".join(_NOT_CODE.sub("", line).strip() for line in sass.splitlines() if "/*" in line)
    return hashlib.sha256(code.encode()).hexdigest()[:12]


def _parse(spec: str) -> tuple[str, bool, str, int, int, int]:
    mode, gap, lane, columns, group, *split = spec.split(":")
    if lane not in _LANE_STRUCT or gap not in ("linear", "affine") or len(split) > 1:
        raise SystemExit(f"bad kernel {spec!r}: lane one of {sorted(_LANE_STRUCT)}")
    return mode, gap == "affine", lane, int(columns), int(group), int(split[0]) if split else 1


def _compile(names: list[str], folder: Path, filename: str) -> tuple[str, str]:
    """(ptxas -v report, cuobjdump -sass text) of these instantiations of ``filename``."""
    source = kernel_source("seqwarp.align", filename)
    source += "\nvoid* seqwarp_kernels[] = {" + ", ".join(f"(void*)&{n}" for n in names) + "};\n"
    unit, cubin = folder / "kernels.cu", folder / "kernels.cubin"
    unit.write_text(source)
    build = ["nvcc", "-arch=sm_90", "-std=c++17", "-cubin", "-Xptxas", "-v", str(unit)]
    report = subprocess.run([*build, "-o", str(cubin)], capture_output=True, text=True, check=True)
    sass = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True)
    sass.check_returncode()
    return report.stderr, sass.stdout


def _warps_by_registers(registers: int, threads: int) -> int:
    """Warps an sm_90 multiprocessor holds of blocks of ``threads`` threads using
    ``registers`` a thread (shared memory aside)."""
    return resident_blocks(registers, threads, 0, SM_90) * (threads // 32)


def _resources(report: str) -> dict[str, str]:
    """Per mangled kernel: registers and spill bytes, as ptxas reports them."""
    found: dict[str, str] = {}
    current = ""
    for line in report.splitlines():
        if "Compiling entry function" in line:
            current = line.split("'")[1]
        elif "spill stores" in line and current:
            found[current] = line.strip()
        elif "Used" in line and "registers" in line and current:
            used = re.search(r"Used (\d+) registers", line)
            found[current] = f"{used.group(1) if used else '?'} registers, {found.get(current, '')}"
    return found


def read_body(sass: str, packed: bool) -> list[tuple[int, str, str, bool]]:
    """cuobjdump's instructions as (address, opcode, operands, conditional). ``packed``: the
    kernel's cells are 16-bit pairs, whose maxima are VIADDMNMX.S16x2 and kin; its scalar
    minima and maxima (a bound on a row index, say) are named ``OP.32``, so that they are not
    taken for a cell's on the way to the common path's maxima (a block that runs every K rows
    would otherwise be on it)."""
    body = []
    for line in sass.splitlines():
        match = _LINE.match(line)
        if match:
            at, predicate, op, modifier, rest = (match.group(k) for k in (1, 2, 3, 4, 5))
            # BRA.DIV leaves for the slow path of a shuffle when the warp has diverged: a
            # conditional branch, not taken on the common path
            conditional = predicate is not None or modifier == ".DIV"
            if op == "VIADD" and modifier == ".16x2":
                op = "VIADD.16x2"  # the packed add, off the ALU pipe (_ALU_OPS)
            elif op == "SHFL" and modifier == ".UP":
                op = "SHFL.UP"  # a row's hand-on (rows_a_pass)
            elif packed and op in _DP_OPS and "16x2" not in (modifier or ""):
                op += ".32"
            body.append((int(at, 16), op, rest, conditional))
    return body


def row_loop_span(body: list[tuple[int, str, str, bool]]) -> tuple[int, int] | None:
    """First and last place in ``body`` of the row loop: of the loops (backward branches)
    holding at least half of the most min/max instructions any loop holds, the densest in them
    (the stripe loop around it holds as many or more, with the stripe's setup and, where a pass
    computes two rows, the odd last row); None without a loop."""
    address = {at: k for k, (at, *_) in enumerate(body)}
    loops = []
    for k, (at, op, rest, _) in enumerate(body):
        target = _TARGET.search(rest)
        if op == "BRA" and target and int(target.group(1), 16) < at:
            start = address.get(int(target.group(1), 16), 0)
            ops = collections.Counter(o for _, o, _, _ in body[start : k + 1])
            loops.append((sum(ops[o] for o in _DP_OPS), k - start, start, k))
    if not loops:
        return None
    most = max(x[0] for x in loops)
    _, _, start, end = max(
        (x for x in loops if x[0] >= 0.5 * most), key=lambda x: x[0] / (x[1] + 1)
    )
    return start, end


def _row_loop(
    body: list[tuple[int, str, str, bool]],
) -> tuple[collections.Counter, collections.Counter]:
    """Opcode counts of the row loop (:func:`row_loop_span`) and of its common path (see
    :func:`common_path`)."""
    span = row_loop_span(body)
    if span is None:
        return collections.Counter(), collections.Counter()
    start, end = span
    path = common_path(body, start, end)
    return (
        collections.Counter(o for _, o, _, _ in body[start : end + 1]),
        collections.Counter(body[k][1] for k in path),
    )


def rows_a_pass(common: collections.Counter, affine: bool) -> int:
    """Rows of the wavefront a pass of a score kernel's row loop computes (``align_dp.cuh``'s
    ``rows_a_pass``), from its common path: a row shuffles its letters and its last column's
    hg (and F, with affine gaps) up the group once each."""
    return max(1, common["SHFL.UP"] // (3 if affine else 2))


def common_path(body: list, start: int, end: int) -> list[int]:
    """Places of the instructions issued from ``body[start]`` to ``body[end]`` (the loop's
    backward branch) on the path, through fall-throughs and forward branches inside the loop,
    with the most min/max instructions and, among those, the fewest instructions; empty when
    no path reaches the branch."""
    address = {at: k for k, (at, *_) in enumerate(body)}
    # (minus min/max count, count), and the step each place is reached from
    best = {start: (-(body[start][1] in _DP_OPS), 1)}
    came_from: dict[int, int] = {}
    for k in range(start, end):
        if k not in best:
            continue
        _, op, rest, predicated = body[k]
        target = _TARGET.search(rest) if op == "BRA" else None
        steps = []
        # forward branches only: an inner loop's backward branch would close a cycle
        if target and k < address.get(int(target.group(1), 16), -1) <= end:
            steps.append(address[int(target.group(1), 16)])
        if op != "BRA" or predicated or target is None:
            steps.append(k + 1)
        dp, count = best[k]
        for step in steps:
            here = (dp - (body[step][1] in _DP_OPS), count + 1)
            if step not in best or here < best[step]:
                best[step], came_from[step] = here, k
    if end not in best:
        return []
    path = [end]
    while path[-1] != start:
        path.append(came_from[path[-1]])
    return path[::-1]


def print_listing(body: list, start: int, end: int) -> None:
    """The row loop's instructions, those of its common path marked ``*``."""
    on_path = set(common_path(body, start, end))
    for k in range(start, end + 1):
        at, op, rest, conditional = body[k]
        operands = rest.split(";")[0].strip()
        # opcodes as read_body names them (modifiers dropped); '@' a predicated one
        print(
            f"  {'*' if k in on_path else ' '} {at:05x}  {'@' if conditional else ' '}{op} {operands}"
        )


def main(argv: list[str] | None = None) -> int:
    """Print each kernel's registers, spills and row-loop instructions per cell."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "kernels", nargs="*", help="mode:gap:lane:columns:group[:split] (default: see DEFAULT)"
    )
    parser.add_argument(
        "--fill", action="store_true", help="the traceback's forward kernels (direction flags)"
    )
    parser.add_argument(
        "--band", action="store_true", help="the traceback's band fills (align_band.cuh)"
    )
    parser.add_argument(
        "--listing",
        action="store_true",
        help="print the row loop's instructions, its common path's marked *",
    )
    parser.add_argument(
        "--scores-only",
        action="store_true",
        help="local score kernels without their end cells (as output='score' runs them)",
    )
    args = parser.parse_args(argv)
    if args.scores_only and (args.fill or args.band):
        raise SystemExit("--scores-only is for the score kernels")
    name_of, filename = (
        (band_fill_name, "align_trace.cu")
        if args.band
        else (fill_name, "align_trace.cu")
        if args.fill
        else (kernel_name, "align_score.cu")
    )
    for spec in args.kernels or (DEFAULT_FILL if args.fill or args.band else DEFAULT):
        mode, affine, lane, columns, group, split = _parse(spec)
        if split > 1 and (args.fill or args.band):
            raise SystemExit(f"bad kernel {spec!r}: the fills take no split")
        with tempfile.TemporaryDirectory() as folder:  # one kernel per build: no name matching
            extra = {"split": split} if split > 1 else {}
            if args.scores_only:
                extra["ends"] = False
            name = name_of(mode, affine, lane, columns, group, **extra)
            report, sass = _compile([name], Path(folder), filename)
        resources = _resources(report)
        body = read_body(sass, packed=lane.startswith("s16x2"))
        loop, common = _row_loop(body)
        # the fills and band fills take one row a pass (rows_a_pass), the score kernels one or two
        rows = 1 if args.fill or args.band else rows_a_pass(common, affine)
        # int32: one pair a register
        cells = columns * (1 if lane.startswith("s32") else 2) * rows
        total = sum(loop.values())
        dp = sum(loop[o] for o in _DP_OPS)
        print(f"{spec}: {'; '.join(resources.values()) or 'resources not reported'}")
        print(
            f"  row loop ({rows} row{'s' if rows > 1 else ''} a pass): {total} instructions "
            f"for {cells} cells = {total / cells:.1f} per cell, "
            f"{dp} DPX, min/max or half2 add ({dp / cells:.1f} per cell); whole kernel {len(body)}"
        )
        if common:
            issued = sum(common.values())
            alu = sum(v for op, v in common.items() if op.removesuffix(".32") in _ALU_OPS)
            print(
                f"  common path: {issued} instructions ({issued / cells:.1f} per cell), "
                f"{alu} on the ALU pipe ({alu / cells:.2f} per cell): at least "
                f"{max(issued, 2 * alu) / rows:.0f} scheduler cycles a row of a warp (an issue a "
                "cycle, two cycles an ALU-pipe instruction)"
            )
        else:  # no path from the loop's head to its backward branch issues them all
            print("  common path: not found (static counts only)")
        used = re.match(r"(\d+) registers", next(iter(resources.values()), ""))
        if used:
            # the blocks' threads as _gpu_backend launches them
            threads = 32 * split if split > 1 else 384 if "table" in lane else 128
            warps = _warps_by_registers(int(used.group(1)), threads)
            print(
                f"  registers allow {warps} warps a multiprocessor ({warps // 4} a scheduler) in "
                f"blocks of {threads} threads (shared memory may allow fewer)"
            )
        print("  " + ", ".join(f"{op} {count}" for op, count in loop.most_common(12)))
        print(f"  SASS digest {sass_digest(sass)} (equal digests: the same instructions)")
        if args.listing and (span := row_loop_span(body)):
            print_listing(body, *span)
    return 0


if __name__ == "__main__":
    sys.exit(main())
