"""Rollouts as the client sees them: the jobs a suite makes, each outcome as the stack reports it,
and a bounded stream of them as they finish."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")

# How long the consumer sleeps before it runs Python's signal handlers: a Ctrl-C the kernel gives a
# worker thread trips the handler's flag but leaves the consumer's lock wait asleep, and handlers
# run only on the main thread, between bytecodes (it waited out a whole rollout: 60 s).
HANDLER_TICK_S = 0.2


class SuiteError(ValueError):
    """A suite file the client cannot read, or a request it cannot make of it."""


@dataclass(frozen=True)
class Rollout:
    """One play of one test: what a stack is asked to run."""

    test: str
    rollout: int = 0


@dataclass(frozen=True)
class Outcome:
    """A scored rollout. The stack's whole answer (assertions, diff, output tails, duration) is
    `data`; the fields a trainer reads on every rollout are attributes; `node` names the Ray
    node that ran it (None on one stack)."""

    id: str
    rollout: int
    score: float
    passed: bool
    env_id: str
    node: str | None = None
    data: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, data: dict[str, Any], node: str | None = None) -> Outcome:
        return cls(id=data["id"], rollout=data["rollout"], score=data["score"], passed=data["passed"],
                   env_id=data["env_id"], node=node, data=data)


def read_suite(suite: str | os.PathLike | dict[str, Any]) -> dict[str, Any]:
    """The suite as data (a file is read here and sent: the stack needs no copy of it)."""
    if isinstance(suite, dict):
        data = suite
    else:
        try:
            data = json.loads(Path(suite).read_text())
        except OSError as e:
            raise SuiteError(f"cannot read {suite}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise SuiteError(f"{suite} is not valid JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or not data["tests"]:
        raise SuiteError(f"{suite if not isinstance(suite, dict) else 'the suite'} is not a test suite: "
                         "expected an object with a list of 'tests'")
    return data


def agent_argv(agent: list[str]) -> list[str]:
    """Words naming files made absolute: runs start in a fresh folder, on the stack's machine
    (a stack elsewhere needs the same paths there: a shared file system, an image)."""
    return [os.path.abspath(word) if os.path.isfile(word) else word for word in agent]


def plan(suite: dict[str, Any], n: int = 1, only: str | None = None) -> list[Rollout]:
    """Each test (or `only`) `n` times, round by round, as the stack's own `rollouts` orders them."""
    if n < 1:
        raise SuiteError(f"rollouts need n >= 1, not n={n}")
    ids = [str(test.get("id")) for test in suite["tests"]]
    if only is not None and only not in ids:
        raise SuiteError(f"no test {only!r} in the suite (its tests: {', '.join(ids)})")
    return [Rollout(test, rollout) for rollout in range(n) for test in ids if only in (None, test)]


def settled(running: set[Future[Result]]) -> tuple[set[Future[Result]], set[Future[Result]]]:
    """Those done once one is, and those not yet: waited in ticks (HANDLER_TICK_S)."""
    while True:
        done, running = wait(running, timeout=HANDLER_TICK_S, return_when=FIRST_COMPLETED)
        if done:
            return done, running


def stream(jobs: Iterable[Job], play: Callable[[Job], Result], workers: int,
           stop: Callable[[], None] = lambda: None) -> Iterator[Result]:
    """`play` on `workers` threads, each result yielded as it finishes; no more than `workers`
    started ahead of the consumer, and closing the iterator starts no more (the stack's own
    rollouts stream this way too). Left early (closed, Ctrl-C) while some still play: `stop()`,
    so that their ends are not waited out."""
    if workers < 1:
        raise SuiteError(f"rollouts need workers >= 1, not {workers}")
    pending = iter(jobs)
    with ThreadPoolExecutor(workers, thread_name_prefix="detour-client") as pool:
        running: set[Future[Result]] = set()
        try:
            while True:
                for job in pending:
                    running.add(pool.submit(play, job))
                    if len(running) >= workers:
                        break
                if not running:
                    return
                done, running = settled(running)
                for future in done:
                    yield future.result()
        finally:
            for future in running:
                future.cancel()
            if any(future.running() for future in running):
                stop()
