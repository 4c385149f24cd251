"""A rich progress bar on stderr for long jobs; silent when stderr is not a terminal or when asked."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

__all__ = ["progress_bar"]


@contextlib.contextmanager
def progress_bar(
    description: str, stderr: TextIO, enabled: bool = True
) -> Iterator[Callable[[int, int], None]]:
    """Yield ``update(done, total)``; draws a bar only on an interactive stderr."""
    console = Console(file=stderr)
    if not enabled or not console.is_terminal:
        yield lambda done, total: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update
