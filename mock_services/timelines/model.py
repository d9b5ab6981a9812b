"""A timeline as a template or a suite test writes it, and where it stands in an environment."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from detour_core.durations import seconds
from detour_core.strict import Strict

TIMELINE_KEY = "timeline"  # in the environment's meta: its steps and how far they have come


def duration(value: object) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return seconds(value)
    raise ValueError(f"a duration is 90s, 30m, 2h or a number of seconds, not {value!r}")


class Reaction(Strict):
    """In answer to the agent: an event the agent's own change emits."""
    event: str = Field(description="The event's type, as the service names it (`message`, `reaction_added`).")
    in_thread_of: str | None = Field(None, description="Only in the thread of this step's message (its id).")
    after: float = Field(0, description="How long after the event (90s, 2m; seconds).")

    @field_validator("after", mode="before")
    @classmethod
    def _duration(cls, value: object) -> float:
        return duration(value)


class Step(Strict):
    """One thing one person does."""
    id: str | None = Field(None, description="A name later steps use: `{steps.ID.ts}`, `in_thread_of: ID`.")
    person: str = Field(description="Who: a person of the world (its handle), or a user id of the service.")
    service: str = Field("slack", description="Through which service's replica.")
    do: str = Field(description="The service's operation, as its API names it (Slack: `chat.postMessage`).")
    args: dict[str, Any] = Field({}, description="Its arguments; `{event.FIELD}` and `{steps.ID.FIELD}` "
                                                 "stand for the triggering event's and an earlier step's.")
    at: float | None = Field(None, description="When, after the environment was made (+2m, 90s; seconds).")
    when: Reaction | None = None

    @field_validator("at", mode="before")
    @classmethod
    def _duration(cls, value: object) -> float | None:
        return None if value is None else duration(value)

    @model_validator(mode="after")
    def _one_trigger(self) -> Step:
        if (self.at is None) == (self.when is None):
            raise ValueError(f"step {self.id or self.do!r} needs either `at` or `when`, not both or neither")
        return self


def check_references(steps: list[Step]) -> None:
    """Names a step uses are earlier steps' ids: ValueError naming the first that is not."""
    known: set[str] = set()
    for step in steps:
        thread = step.when.in_thread_of if step.when else None
        if thread is not None and thread not in known:
            raise ValueError(f"step {step.id or step.do!r}: in_thread_of {thread!r} names no earlier step")
        if step.id:
            known.add(step.id)


class Pending(Strict):
    step: int
    due: float
    event: dict[str, Any] = {}


class Progress(Strict):
    """A timeline in an environment: its steps, when it started, what has fired and what waits."""
    steps: list[Step]
    start: float
    fired: list[int] = []
    pending: list[Pending] = []
    results: dict[str, dict[str, Any]] = {}

    def due(self, now: float) -> list[Pending]:
        """What should fire by `now`: scheduled steps not yet fired, and reactions whose time came."""
        scheduled = [Pending(step=i, due=self.start + s.at) for i, s in enumerate(self.steps)
                     if s.at is not None and i not in self.fired and self.start + s.at <= now]
        return sorted(scheduled + [p for p in self.pending if p.due <= now], key=lambda p: p.due)
