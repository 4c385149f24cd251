"""Checks, acceptance figures and the report of ``python -m seqwarp.bench align-gpu``.

Everything here works on the result rows alone (plain dictionaries, as in the JSON), so it
runs without a GPU: which workloads differ from the references (:func:`failures`), the
acceptance figures (:func:`acceptance`), traceback against score-only speed
(:func:`add_traceback_ratios`), and the JSON, PNG and printed tables (:func:`write_report`).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from .report import bar_chart, print_table, write_json

__all__ = ["GPU_PEERS", "PEERS", "acceptance", "add_traceback_ratios", "failures", "write_report"]

# the peers' row families: parasail on the CPU's cores, and GPU tools on the same GPU
GPU_PEERS = ("cudasw4", "gasal2")
PEERS = ("parasail", *GPU_PEERS)

# the length the issue judges against the sweep's best (reads longer than it may run too)
_JUDGED_LENGTH = 4096


# --- checks and acceptance -----------------------------------------------------------------


def failures(rows: list[dict]) -> list[str]:
    """Workloads whose results differ from the int32 kernel or the CPU backend."""
    bad = []
    for r in rows:
        if r["family"] in PEERS:
            continue
        if (
            r["equal_to_int32_kernel"] != r["pairs"]
            or r["equal_to_cpu"] != r["checked_against_cpu"]
        ):
            bad.append(f"{r['workload']} {r['output']} {r['lane']}")
    return bad


def _rate(rows: list[dict], key: str, **match) -> float:
    """The best ``key`` among the rows matching every item of ``match`` (nan if none)."""
    values = [
        r[key]
        for r in rows
        if all(r.get(k) == v for k, v in match.items()) and r.get(key) == r.get(key) and key in r
    ]
    return max(values) if values else float("nan")


# the 512 bp score-only targets, TCUPS
SCORE_TARGETS = {("global", "linear"): 10.0, ("global", "affine"): 7.5, ("local", "affine"): 6.5}


def acceptance(rows: list[dict]) -> dict[str, object]:
    """The issue's acceptance figures: 512 bp score-only TCUPS (``SCORE_TARGETS``: reads
    against their windows, kernels alone, and all pairs of a read set, whole calls), the
    length sweep (the longest reads within 20 % of the best length), long reads against short
    reads (within 30 %), traceback against score-only (half the speed or more;
    ``add_traceback_ratios`` first), protein TCUPS (6 and more)."""
    out: dict[str, object] = {}
    scored = [r for r in rows if r["family"] in ("short", "sweep") and r["tile"] == "default"]
    for (mode, gap), target in SCORE_TARGETS.items():
        measured = {
            f"{r['family']}_{key}": r[key]
            for r in rows
            if r["family"] in ("short", "allpairs")
            and (r["length"], r["mode"], r["gap"], r["output"]) == (512, mode, gap, "score")
            and r.get("tile", "default") == "default"
            for key in ("tcups_kernel", "tcups_end_to_end")
            if key in r
        }
        if measured:
            out[f"score_512_{mode}_{gap}"] = {
                **measured,
                "target": target,
                "passed": max(measured.values()) >= target,
            }
    for mode in ("global", "local"):
        sweep = {}
        for key in ("tcups_kernel", "tcups_end_to_end"):
            per_length = {
                r["length"]: r[key]
                for r in scored
                if r["mode"] == mode and r["gap"] == "affine" and r["lane"] == scored[0]["lane"]
            }
            if per_length:
                # the figure is 4096 bp (else the longest length that ran)
                judged = _JUDGED_LENGTH if _JUDGED_LENGTH in per_length else max(per_length)
                best = max(per_length.values())
                longest = per_length[judged]
                sweep[key] = {
                    "by_length": dict(sorted(per_length.items())),
                    "judged_length": judged,
                    "longest_of_best": longest / best,
                    "passed": longest >= 0.8 * best,
                }
        if sweep:
            out[f"sweep_{mode}_affine"] = sweep
    for r in rows:
        if r["family"] == "long":
            short = [x for x in scored if x["mode"] == r["mode"] and x["gap"] == r["gap"]]
            if short:
                best = max(short, key=lambda x: x["tcups_kernel"])
                kernel = r["tcups_kernel"] / best["tcups_kernel"]
                whole = r["tcups_end_to_end"] / _rate(short, "tcups_end_to_end")
                out[f"long_{r['mode']}_{r['gap']}"] = {
                    "short_read_reference": best["workload"],
                    "kernel_of_short": kernel,
                    "end_to_end_of_short": whole,
                    "passed": kernel >= 0.7,
                }
        if r["family"] == "traceback" and "traceback_kernels_of_score" in r:
            out[f"traceback_{r['workload']}"] = {
                "kernels_of_score": r["traceback_kernels_of_score"],
                "end_to_end_of_score": r["traceback_of_score"],
                "passed": r["traceback_kernels_of_score"] >= 0.5,
            }
        if r["family"] == "protein":
            out["protein"] = {
                "tcups_kernel": r["tcups_kernel"],
                "tcups_end_to_end": r["tcups_end_to_end"],
                "target": 6.0,
                "reference": "CUDASW++4.0: 5.71 TCUPS on an H100",
                "passed": r["tcups_kernel"] >= 6.0,
            }
    return out


def add_traceback_ratios(rows: list[dict]) -> None:
    """Give each traceback row its speed over the same pairs' score-only speed: whole calls
    (``traceback_of_score``) and kernels alone (``traceback_kernels_of_score``)."""
    mine = [r for r in rows if r["family"] not in PEERS]
    for r in mine:
        if r["family"] == "traceback":
            name = r["workload"].replace("traceback-", "short-")
            score = _rate(mine, "tcups_end_to_end", workload=name, output="score")
            r["traceback_of_score"] = r["tcups_end_to_end"] / score
            if "tcups_kernel" in r:
                kernels = _rate(mine, "tcups_kernel", workload=name, output="score")
                r["traceback_kernels_of_score"] = r["tcups_kernel"] / kernels


# --- report -----------------------------------------------------------------------------------


def write_report(stem: str, record: dict[str, Any], console: Console) -> None:
    """Write ``<stem>.json`` and ``<stem>.png`` and print the tables (the summary last)."""
    rows = record["results"]
    write_json(stem + ".json", record)
    seqwarp = [r for r in rows if r["family"] not in PEERS and r["tile"] == "default"]
    labels = [f"{r['workload']} {r['lane']}" for r in seqwarp]
    panels: dict[str, tuple[list[str], dict[str, list[float]]]] = {
        "seqwarp (TCUPS)": (
            labels,
            {
                "kernels": [r.get("tcups_kernel", 0.0) for r in seqwarp],
                "whole call": [r["tcups_end_to_end"] for r in seqwarp],
            },
        )
    }
    sweep = {k: v for k, v in record["acceptance"].items() if k.startswith("sweep")}
    if sweep:
        lengths = sorted({n for v in sweep.values() for n in v["tcups_kernel"]["by_length"]})
        panels["length sweep, score only (TCUPS, kernels)"] = (
            [f"{n} bp" for n in lengths],
            {
                k: [v["tcups_kernel"]["by_length"].get(n, 0.0) for n in lengths]
                for k, v in sweep.items()
            },
        )
    mine = _by_workload(rows)
    peers = [r for r in rows if r["family"] == "parasail"]
    if peers:
        panels["seqwarp GPU vs parasail on every core (TCUPS, whole calls)"] = (
            [f"{r['workload']} {r['output']}" for r in peers],
            {
                "seqwarp GPU": [_mine(mine, r, "tcups_end_to_end") for r in peers],
                "parasail": [r["tcups_end_to_end"] for r in peers],
            },
        )
    gpu_peers = [r for r in rows if r["family"] in GPU_PEERS]
    if gpu_peers:
        panels["seqwarp vs GPU peers on the same GPU (TCUPS)"] = (
            [f"{r['workload']} {r['family']} {r['lane']}" for r in gpu_peers],
            {
                "seqwarp kernels": [_mine(mine, r, "tcups_kernel") for r in gpu_peers],
                "seqwarp whole call": [_mine(mine, r, "tcups_end_to_end") for r in gpu_peers],
                "peer, its own timer": [r["tcups_peer_timer"] for r in gpu_peers],
                "peer, whole run": [r["tcups_end_to_end"] for r in gpu_peers],
            },
        )
    bar_chart(stem + ".png", f"seqwarp align on {record['device']}", panels, "TCUPS")
    _print_tables(record, console)


def _by_workload(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """seqwarp's rows on its default tiles by ``(workload, output)``, for the peers' rows."""
    return {
        (r["workload"], r["output"]): r
        for r in rows
        if r["family"] not in PEERS and r["tile"] == "default"
    }


def _mine(mine: dict[tuple[str, str], dict], peer: dict, key: str) -> float:
    """seqwarp's ``key`` on the workload and output of a peer's row (0 if it did not run)."""
    return mine.get((peer["workload"], peer["output"]), {}).get(key, 0.0)


def _print_tables(record: dict[str, Any], console: Console) -> None:
    rows = record["results"]
    rates = record.get("measured_lane_ops_per_second", {})
    if rates:
        print_table(
            "instruction rates (T lane ops/s)",
            ["instruction", "rate"],
            [[k, v / 1e12] for k, v in rates.items()],
            console,
        )
    peers = [r for r in rows if r["family"] == "parasail"]
    if peers:
        print_table(
            f"parasail on {peers[0]['processes']} cores (TCUPS, whole runs)",
            ["workload", "output", "function", "pairs", "TCUPS", "==seqwarp"],
            [
                [
                    r["workload"],
                    r["output"],
                    r["lane"],
                    r["pairs"],
                    r["tcups_end_to_end"],
                    f"{r['equal_to_seqwarp']}/{r['pairs']}",
                ]
                for r in peers
            ],
            console,
        )
    for name, figures in record["acceptance"].items():
        if name.startswith("sweep"):
            lengths = sorted(figures["tcups_kernel"]["by_length"])
            print_table(
                f"length sweep, {name[6:].replace('_', ' ')}, score only (TCUPS)",
                ["time", *[f"{n} bp" for n in lengths], "judged/best", "passed"],
                [
                    [
                        key,
                        *[v["by_length"].get(n, float("nan")) for n in lengths],
                        v["longest_of_best"],
                        "yes" if v["passed"] else "NO",
                    ]
                    for key, v in figures.items()
                ],
                console,
            )
    print_table(
        f"seqwarp align on {record['device']} (TCUPS)",
        [
            "workload",
            "output",
            "lane",
            "tile",
            "pairs",
            "kernels",
            "engine",
            "e2e",
            "tb/score",
            "tb/score kernels",
            "of ceiling",
            "==int32",
            "==cpu",
        ],
        [
            [
                r["workload"],
                r["output"],
                r["lane"],
                r["tile"],
                r["pairs"],
                r.get("tcups_kernel", float("nan")),
                r.get("tcups_engine", float("nan")),
                r["tcups_end_to_end"],
                r.get("traceback_of_score", float("nan")),
                r.get("traceback_kernels_of_score", float("nan")),
                r.get("fraction_of_ceiling", float("nan")),
                f"{r['equal_to_int32_kernel']}/{r['pairs']}",
                f"{r['equal_to_cpu']}/{r['checked_against_cpu']}",
            ]
            for r in rows
            if r["family"] not in PEERS
        ],
        console,
    )
    gpu_peers = [r for r in rows if r["family"] in GPU_PEERS]
    if gpu_peers:
        mine = _by_workload(rows)
        print_table(
            "GPU peers on the same GPU (TCUPS; the peer's own timer, and its whole run)",
            [
                *("workload", "peer", "kernel", "pairs", "own timer", "whole run"),
                *("seqwarp kernels", "seqwarp whole call", "==seqwarp"),
            ],
            [
                [
                    r["workload"],
                    r["family"],
                    r["lane"],
                    r["pairs"],
                    r["tcups_peer_timer"],
                    r["tcups_end_to_end"],
                    _mine(mine, r, "tcups_kernel"),
                    _mine(mine, r, "tcups_end_to_end"),
                    f"{r['equal_to_seqwarp']}/{r['compared']}",
                ]
                for r in gpu_peers
            ],
            console,
        )
    summary = []
    for name, figures in record["acceptance"].items():
        if name.startswith("sweep"):
            for key, v in figures.items():
                judged = f"{v.get('judged_length', _JUDGED_LENGTH)} bp >= 0.8 x best"
                summary.append([name, key, v["longest_of_best"], judged, v["passed"]])
        elif name.startswith("long"):
            summary.append(
                [
                    name,
                    "tcups_kernel",
                    figures["kernel_of_short"],
                    ">= 0.7 x short reads",
                    figures["passed"],
                ]
            )
        elif name.startswith("score_512"):
            for key, value in figures.items():
                if key not in ("target", "passed"):
                    target = figures["target"]
                    summary.append([name, key, value, f">= {target:g} TCUPS", value >= target])
        elif name.startswith("traceback"):
            for key in ("kernels_of_score", "end_to_end_of_score"):
                summary.append(
                    [name, key, figures[key], ">= 0.5 x score-only", figures[key] >= 0.5]
                )
        else:
            summary.append(
                [name, "tcups_kernel", figures["tcups_kernel"], ">= 6 TCUPS", figures["passed"]]
            )
    bad = record["check"]["failed"]
    summary.append(["checks", "int32 kernel + CPU", float(len(bad)), "0 workloads differ", not bad])
    print_table(
        "acceptance",
        ["figure", "measure", "value", "target", "passed"],
        [[*row[:4], "yes" if row[4] else "NO"] for row in summary],
        console,
    )
