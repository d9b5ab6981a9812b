"""Timelines in an environment: started at its creation, reactions put in line as the agent's
changes emit events, and due steps fired through their packs as their people."""

from __future__ import annotations

import re
from typing import Any

from detour_core.pack import resolve
from detour_core.registry import pack
from mock_services import clock
from mock_services.timelines.model import TIMELINE_KEY, Pending, Progress, Step
from mock_services.world import person_named

PLACEHOLDER = re.compile(r"\{(event|steps)\.([^{}]+)\}")


def started(steps: list[Step], now: float) -> dict[str, Any]:
    """A timeline's meta as the environment starts: nothing fired, its `at` counted from now."""
    return Progress(steps=steps, start=now).model_dump()


def _progress(state: Any) -> Progress | None:
    raw = state.meta(TIMELINE_KEY)
    return Progress(**raw) if raw else None


def _waiting(progress: Progress, service: str) -> list[int]:
    """The steps that still wait for an event of `service` (not in line, not fired)."""
    done = {p.step for p in progress.pending} | set(progress.fired)
    return [index for index, step in enumerate(progress.steps)
            if step.when is not None and step.service == service and index not in done]


def awaits(state: Any, service: str) -> bool:
    """Whether a step of the environment's timeline still waits for an event of `service`."""
    progress = _progress(state)
    return progress is not None and bool(_waiting(progress, service))


def observe(state: Any, service: str, event: dict[str, Any], actor: object) -> None:
    """Called by the events engine in the transaction of the change that emitted `event` (made by
    `actor`): a step waiting for this event of the agent's is put in line, once."""
    progress = _progress(state)
    if progress is None or actor != state.info.acting_user:
        return
    answered = [index for index in _waiting(progress, service) if answers(progress, progress.steps[index], event)]
    for index in answered:
        progress.pending.append(Pending(step=index, due=clock.now() + progress.steps[index].when.after, event=event))
    if answered:
        state.set_meta(TIMELINE_KEY, progress.model_dump())


def answers(progress: Progress, step: Step, event: dict[str, Any]) -> bool:
    """Whether `step` waits for `event`: its type, and where it names a step's message, in that
    message's thread (the event's `thread_ts` is the step's `ts`)."""
    reaction = step.when
    if reaction is None or reaction.event != event.get("type"):
        return False
    return reaction.in_thread_of is None or \
        event.get("thread_ts") == progress.results.get(reaction.in_thread_of, {}).get("ts")


def _claim(store: Any, env_id: str) -> tuple[Step, Pending, dict] | None:
    """The next due step, marked fired (so no other process fires it), or None."""
    with store.open(env_id, write=True) as state:
        progress = _progress(state)
        due = progress.due(clock.now()) if progress else []
        if not due:
            return None
        first = due[0]
        progress.fired.append(first.step)
        progress.pending = [p for p in progress.pending if p.step != first.step]
        state.set_meta(TIMELINE_KEY, progress.model_dump())
        return progress.steps[first.step], first, progress.results


def _filled(value: Any, event: dict[str, Any], results: dict[str, dict[str, Any]]) -> Any:
    """`{event.ts}`, `{steps.ask.channel}`: the triggering event's or an earlier step's answer."""
    if isinstance(value, dict):
        return {k: _filled(v, event, results) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, event, results) for v in value]
    if not isinstance(value, str):
        return value

    def lookup(match: re.Match) -> str:
        source = event if match[1] == "event" else results
        for part in match[2].split("."):
            source = source.get(part, {}) if isinstance(source, dict) else {}
        return str(source) if source != {} else match[0]
    return PLACEHOLDER.sub(lookup, value)


def _token(store: Any, env_id: str, step: Step) -> str:
    """The person's own token in the step's service (a world's handle, or a user id)."""
    info = store.get(env_id)
    person = person_named(info.people, step.person)
    user_id = person.ids.get(step.service, step.person) if person else step.person
    tokens = store.credentials(env_id).tokens
    key = f"{step.service}:{user_id}" if info.is_world else user_id
    if key not in tokens:
        raise LookupError(f"{step.person!r} is no user of {step.service} here")
    return tokens[key]


def act(store: Any, env_id: str, step: Step, event: dict[str, Any], results: dict) -> dict[str, Any]:
    """The step, through its pack as its person; a step that cannot act records why."""
    hook = pack(step.service).act
    if hook is None:
        return {"ok": False, "error": f"{step.service} takes no timeline steps"}
    try:
        token = _token(store, env_id, step)
    except LookupError as e:
        return {"ok": False, "error": str(e)}
    # A REST step's request line may name the event's object too (`POST /issue/{event.issue.key}/comment`)
    return resolve(hook)(store, env_id, token, _filled(step.do, event, results), _filled(step.args, event, results))


def fire_due(store: Any, env_id: str) -> int:
    """Fires every step due on the environment's clock, one at a time (a step's own events may
    make a reaction due at once); how many fired. Most calls find nothing and only read."""
    with store.open(env_id) as state:
        progress = _progress(state)
        if progress is None or not progress.due(clock.now()):
            return 0
    fired = 0
    while (claimed := _claim(store, env_id)) is not None:
        step, pending, results = claimed
        answer = act(store, env_id, step, pending.event, results)
        _keep_result(store, env_id, step, answer)
        fired += 1
    return fired


def _keep_result(store: Any, env_id: str, step: Step, answer: dict[str, Any]) -> None:
    """A named step's answer, for later steps' `{steps.ID...}` and `in_thread_of`."""
    key = step.id or f"#{step.do}"
    with store.open(env_id, write=True) as state:
        progress = _progress(state)
        progress.results[key] = answer
        state.set_meta(TIMELINE_KEY, progress.model_dump())


def set_clock(store: Any, env_id: str, moved_clock: Any) -> Any:
    """The environment's clock moved, and what that made due fired (`detour env advance`)."""
    info = store.set_clock(env_id, moved_clock)
    fire_due(store, env_id)
    return info
