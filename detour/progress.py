"""Progress for work that takes long (detour's images, the sandbox runtime, `make bench`): a rich
progress bar on stderr where stderr is a terminal, and none where it is not or the command
prints JSON. Off a terminal, steps are plain lines (`detour: ...`) when the caller wants a log,
and nothing otherwise."""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


class Steps:
    """`with Steps("building images", total=5) as steps: steps.step("base image") ...`: each step
    ends the one before it; the bar shows how many are done, the current one and the time."""

    def __init__(self, title: str, total: int | None = None, *, quiet: bool = False, lines: bool = True) -> None:
        self.title = title
        self.total = total
        self.lines = lines and not quiet
        self.bar: Progress | None = None
        if not quiet and sys.stderr.isatty():
            self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=Console(stderr=True), transient=True,
                                # what the work prints to a terminal goes above the bar, not through it
                                redirect_stdout=sys.stdout.isatty(), redirect_stderr=False)
        self.task = None
        self.started = 0

    def __enter__(self) -> Steps:
        if self.bar:
            self.bar.start()
            self.task = self.bar.add_task(self.title, total=self.total)
        return self

    def step(self, message: str) -> None:
        """Start a step (the one before it is done)."""
        if self.bar:
            self.bar.update(self.task, completed=self.started, description=f"{self.title}: {message}")
            self.started += 1
        elif self.lines:
            print(f"detour: {message}", file=sys.stderr, flush=True)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.bar:
            if kind is None:
                self.bar.update(self.task, completed=self.total or self.started)
            self.bar.stop()
