"""``python -m seqwarp.bench BENCHMARK [options]``: run one benchmark, by name.

Each benchmark is a module of this package with a ``main(argv) -> int``; it is imported only
when asked for, so one benchmark's dependencies never stop another from running.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

__all__ = ["BENCHMARKS", "main"]

# benchmark name on the command line -> module of seqwarp.bench
BENCHMARKS = {
    "align": "align",
    "align-gpu": "align_gpu",
    "align-scaling": "align_scaling",
    "align-tiles": "align_tiles",
    "hmm": "hmm",
    "assembly": "assembly",
}

_USAGE = (
    "usage: python -m seqwarp.bench {" + ",".join(BENCHMARKS) + "} [options]\n"
    "       python -m seqwarp.bench BENCHMARK --help   (that benchmark's options)"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark named by ``argv[0]`` with the remaining arguments; its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    name = args[0]
    if name not in BENCHMARKS:
        print(f"{_USAGE}\nseqwarp.bench: unknown benchmark {name!r}", file=sys.stderr)
        return 2
    module_name = f"{__package__}.{BENCHMARKS[name]}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            print(
                f"seqwarp.bench: the {name!r} benchmark is not part of this installation "
                f"(no module {module_name})",
                file=sys.stderr,
            )
        else:
            print(
                f"seqwarp.bench: the {name!r} benchmark cannot run: {error} "
                "(the benchmarks' dependencies: pip install 'seqwarp[bench]')",
                file=sys.stderr,
            )
        return 2
    return int(module.main(args[1:]))


if __name__ == "__main__":
    sys.exit(main())
