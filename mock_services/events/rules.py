"""A pack's events table, and `emit`, which the store calls on every change to a row."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from detour_core.pack import resolve
from detour_core.registry import pack
from mock_services.timelines.run import awaits, observe

Change = Literal["insert", "update", "delete"]
Row = dict[str, Any]
# A payload field is the name of a row's field, or a function of the state and the row (a value
# the row only implies: a channel's type, the author of the message a reaction is on).
Field = str | Callable[[Any, Row], object]


@dataclass(frozen=True)
class EventRule:
    """One kind of change to one table, and the event it emits."""

    table: str
    change: Change
    event: str                                   # the vendor's event type
    fields: Mapping[str, Field]                  # payload field -> where its value comes from
    when: Callable[[Row], bool] | None = None    # only rows this holds for
    changed: str | None = None                   # an update only where this field's value changed
                                                 # (an invoice paid once, not each later edit of it)
    # Whether a subscriber (a user id in the pack's terms) may receive it: Slack delivers a
    # channel's messages only to apps in the channel, and an app_mention only to the one named.
    audience: Callable[[Any, Row, str], bool] | None = None
    # Payload fields made from an update's row and the row before it (Jira's changelog)
    compared: Mapping[str, Callable[[Row, Row], object]] | None = None


@dataclass(frozen=True)
class Events:
    """What a pack's state changes emit, and how they leave."""

    rules: tuple[EventRule, ...]
    # (state, rule, payload) -> None: puts the event in the pack's outboxes (its surfaces send them)
    deliver: Callable[[Any, EventRule, Row], None]
    # (state) -> whether anyone in the environment takes the pack's events now (a Socket Mode app,
    # a Request URL, a hook): asked before a payload is made, so a write nobody hears costs nothing
    listening: Callable[[Any], bool]
    # (payload) -> the user id of who made the change (a timeline's step may wait for the agent's)
    actor: Callable[[Row], object] = lambda event: event.get("user")


def render(rule: EventRule, state: Any, row: Row, before: Row | None = None) -> Row:
    """The event's payload: its type and fields; a field with no value is left out, as vendors do."""
    payload: Row = {"type": rule.event}
    for name, source in rule.fields.items():
        value = row.get(source) if isinstance(source, str) else source(state, row)
        if value is not None:
            payload[name] = value
    for name, compare in (rule.compared or {}).items() if before is not None else ():
        payload[name] = compare(row, before)
    return payload


@cache
def rules_by_change(service: str) -> dict[tuple[str, str], list[EventRule]] | None:
    """The service's rules keyed by (table, change); None for a pack that emits nothing."""
    reference = pack(service).events
    if reference is None:
        return None
    table: Events = resolve(reference)
    keyed: dict[tuple[str, str], list[EventRule]] = {}
    for rule in table.rules:
        keyed.setdefault((rule.table, rule.change), []).append(rule)
    return keyed


def asks_before(service: str, table: str) -> bool:
    """Whether an update of `table` must say what the row was (a rule of it names `changed`)."""
    keyed = rules_by_change(service) or {}
    return any(rule.changed or rule.compared for rule in keyed.get((table, "update"), ()))


def _fires(rule: EventRule, row: Row, before: Row | None) -> bool:
    if rule.when is not None and not rule.when(row):
        return False
    return rule.changed is None or before is None or before.get(rule.changed) != row.get(rule.changed)


def emit(state: Any, service: str, table: str, change: Change, row: Row, before: Row | None = None) -> None:
    """Called by the store for each change a replica makes (`state` as that service sees it).
    Nothing is rendered unless someone takes the event: a subscriber of the pack's, or a
    timeline step that waits for the agent's event. `before`: the row before an update, where
    `asks_before` said a rule needs it."""
    keyed = rules_by_change(service)
    if not keyed or (table, change) not in keyed:
        return
    events: Events = resolve(pack(service).events)
    listening, awaited = events.listening(state), awaits(state, service)
    if not (listening or awaited):
        return
    for rule in keyed[(table, change)]:
        if _fires(rule, row, before):
            event = render(rule, state, row, before)
            if listening:
                events.deliver(state, rule, event)
            if awaited:
                observe(state, service, event, events.actor(event))
