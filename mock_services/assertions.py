"""AgentDiff's assertion language, evaluated against an environment's diff.

A spec is `{assertions: [...], ignore_fields?, strict?}` (dsl_schema.json, v0.1): each
assertion picks rows of one entity (table) that were added, removed or changed, filters
them with `where`, and checks how many there are or how their fields changed: `from`/`to`
test a changed row's values before and after (a field may already hold its `to` value, as
in AgentDiff). In strict mode (the default) a changed row may change only the fields it
names, besides ignored ones.

Beyond AgentDiff's language, `"diff_type": "requested"` reads the environment's traffic
(entity `requests`, mock_services/request_rows.py): `where` picks requests, `expected_count`
counts them (0: never), and `before` names requests that must all come after the first one
picked ("searched before posting").
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from detour_core.errors import DetourError, NameNotFound
from detour_core.registry import pack
from detour_core.strict import Lenient, Strict, first_error, unknown_name, warn_kept
from mock_services.request_rows import ENTITY, request_rows
from mock_services.store import EnvironmentStore, EnvState, Row, StateDiff
from mock_services.timelines.model import Step
from mock_services.world import qualified, split


class InvalidAssertions(DetourError):
    pass


class UnknownEntity(InvalidAssertions, NameNotFound):
    """An assertion names a table the environment's service does not have: a typo that would
    otherwise match no row and pass an `expected_count: 0` without a word."""


def text_of(value: Any) -> str | None:
    """What the text predicates read: a string as it is, a JSON value (a message's blocks, an
    event's start) as its compact JSON text, as AgentDiff's engine does; else nothing."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return None


def _contains(value: Any, part: Any) -> bool:
    text = text_of(value)
    return text is not None and isinstance(part, str) and part in text


def _i_contains(value: Any, part: Any) -> bool:
    text = text_of(value)
    return text is not None and isinstance(part, str) and part.lower() in text.lower()


PREDICATES = {
    "eq": lambda v, x: v == x,
    "ne": lambda v, x: v != x,
    "contains": _contains,
    "not_contains": lambda v, x: not _contains(v, x),
    "i_contains": _i_contains,
    "starts_with": lambda v, x: isinstance(v, str) and v.startswith(x),
    "i_starts_with": lambda v, x: isinstance(v, str) and v.lower().startswith(x.lower()),
    "ends_with": lambda v, x: isinstance(v, str) and v.endswith(x),
    "i_ends_with": lambda v, x: isinstance(v, str) and v.lower().endswith(x.lower()),
    "regex": lambda v, x: isinstance(v, str) and re.search(x, v) is not None,
    "in": lambda v, x: v in x,
    "not_in": lambda v, x: v not in x,
    "gt": lambda v, x: isinstance(v, (int, float)) and v > x,
    "gte": lambda v, x: isinstance(v, (int, float)) and v >= x,
    "lt": lambda v, x: isinstance(v, (int, float)) and v < x,
    "lte": lambda v, x: isinstance(v, (int, float)) and v <= x,
    "exists": lambda v, x: (v is not None) == x,
    "has_any": lambda v, x: isinstance(v, list) and any(i in v for i in x),
    "has_all": lambda v, x: isinstance(v, list) and all(i in v for i in x),
}


def check_condition(condition: Any) -> Any:
    """A value to equal, or an object of predicates, each one detour knows."""
    if isinstance(condition, dict):
        for op in condition:
            if op not in PREDICATES:
                raise ValueError(unknown_name("predicate", op, list(PREDICATES)))
    return condition


class CountRange(Strict):
    min: int | None = Field(None, ge=0)
    max: int | None = Field(None, ge=0)

    def __str__(self) -> str:
        return ", ".join([*([f"at least {self.min}"] if self.min is not None else []),
                          *([f"at most {self.max}"] if self.max is not None else [])]) or "any number"


class Assertion(Strict):
    diff_type: Literal["added", "removed", "changed", "requested"]
    entity: str
    where: dict[str, Any] = {}
    expected_count: int | CountRange | None = None
    expected_changes: dict[str, dict[str, Any]] = {}
    ignore: list[str] = []
    description: str | None = None
    before: dict[str, Any] | None = Field(None, description="requested: requests that must follow the first "
                                                             "one `where` picks (all of them, and at least one).")

    @model_validator(mode="after")
    def _requests(self) -> Assertion:
        if (self.diff_type == "requested") != (self.entity == ENTITY):
            raise ValueError(f"the entity {ENTITY!r} goes with diff_type 'requested', and only it")
        if self.before is not None and self.diff_type != "requested":
            raise ValueError("`before` is for diff_type 'requested'")
        for condition in (self.before or {}).values():
            check_condition(condition)
        return self

    @field_validator("where")
    @classmethod
    def _where(cls, where: dict[str, Any]) -> dict[str, Any]:
        for condition in where.values():
            check_condition(condition)
        return where

    @field_validator("expected_changes")
    @classmethod
    def _changes(cls, changes: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for expectation in changes.values():
            for key, condition in expectation.items():
                if key not in ("from", "to"):
                    raise ValueError(unknown_name("key", key, ["from", "to"]))
                check_condition(condition)
        return changes


class Spec(Strict):
    """AgentDiff's DSL v0.1 (dsl_schema.json); `version`, `scenario` and `task` are words for people."""
    assertions: list[Assertion] = Field(min_length=1)
    ignore_fields: dict[str, list[str]] = {}
    strict: bool = True
    version: Literal["0.1"] | None = None
    scenario: str | None = None
    task: str | None = None


class SuiteTest(Lenient):
    """One test of a suite: a task, the seed it starts from, and its assertions (strict, as
    AgentDiff's schema has them); other keys are kept (AgentDiff's own files carry some)."""
    id: str | int
    name: str = ""
    prompt: str = ""
    type: str | None = None
    seed_template: str | None = None
    impersonate_user_id: str | None = None
    metadata: dict[str, Any] = {}
    description: str | None = None
    assertions: list[Assertion] = Field(min_length=1)
    ignore_fields: dict[str, list[str]] = {}
    strict: bool = True
    timeline: list[Step] = Field([], description="What the other people do meanwhile (mock_services/timelines).")

    def spec(self, suite_ignore: dict[str, list[str]] | None = None) -> Spec:
        return Spec(assertions=self.assertions, ignore_fields={**(suite_ignore or {}), **self.ignore_fields},
                    strict=self.strict)


class Suite(Lenient):
    """An AgentDiff test suite: its tests, and the fields every test's assertions ignore."""
    tests: list[SuiteTest] = Field(min_length=1)
    name: str | None = None
    id: str | None = None
    description: str | None = None
    service: str | None = None
    ignore_fields: dict[str, list[str]] = {}

    def test(self, test_id: str) -> SuiteTest:
        found = next((t for t in self.tests if str(t.id) == test_id), None)
        if found is None:
            raise InvalidAssertions(unknown_name("test", test_id, [str(t.id) for t in self.tests]))
        return found


# A test entry, not a bare spec: it carries one of these.
TEST_KEYS = frozenset({"id", "prompt", "seed_template"})


# A `where` field that a row lacks is looked up through these references (AgentDiff's engine
# "auto-resolves relationships"): channel_members rows can be filtered by channel_name.
FOREIGN_KEYS = {"channel_id": "channels", "user_id": "users", "message_id": "messages", "team_id": "teams",
                "teamId": "teams", "stateId": "workflow_states", "assigneeId": "users", "creatorId": "users",
                "userId": "users", "issueId": "issues"}
Lookup = Callable[[str, str, Any], Row | None]

# When a row last changed is bookkeeping, not a change an agent makes: AgentDiff's own
# replicas move these on every update and its suites pass without ignoring them.
BOOKKEEPING = frozenset({"updatedAt", "updated_at"})


class AssertionResult(BaseModel):
    index: int
    assertion: Assertion
    passed: bool
    matched: int
    message: str


def test_predicate(value: Any, condition: Any) -> bool:
    """Predicates were checked when the spec was read (check_condition)."""
    if not isinstance(condition, dict):
        return value == condition
    return all(PREDICATES[op](value, arg) for op, arg in condition.items())


def path_value(row: Row, field: str) -> Any:
    """A field, or a path into a JSON field (`start.dateTime`), as AgentDiff's `where` names them."""
    if field in row or "." not in field:
        return row.get(field)
    value: Any = row
    for part in field.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def field_value(row: Row, field: str, lookup: Lookup | None) -> Any:
    if field in row or "." in field or lookup is None:
        return path_value(row, field)
    for key, table in FOREIGN_KEYS.items():
        if row.get(key) is not None:
            owner = row.get("__service__")  # in a world, the related row is in the row's own service
            related = lookup(qualified(owner, table) if owner else table, key, row[key])
            if related is not None and field in related:
                return related[field]
    return None


def matches(row: Row, where: dict[str, Any], lookup: Lookup | None = None) -> bool:
    return all(test_predicate(field_value(row, field, lookup), condition) for field, condition in where.items())


def count_ok(count: int, expected: int | CountRange | None) -> bool:
    if expected is None:
        return count >= 1
    if isinstance(expected, int):
        return count == expected
    return (expected.min is None or count >= expected.min) and (expected.max is None or count <= expected.max)


def change_problem(update: Row, assertion: Assertion, ignored: set[str], strict: bool) -> str | None:
    before, after = update["before"], update["after"]
    for field, expectation in assertion.expected_changes.items():
        if "from" in expectation and not test_predicate(path_value(before, field), expectation["from"]):
            return f"{field} changed from {path_value(before, field)!r}"
        if "to" in expectation and not test_predicate(path_value(after, field), expectation["to"]):
            return f"{field} changed to {path_value(after, field)!r}"
    if strict:
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        expected = {field.split(".", 1)[0] for field in assertion.expected_changes}
        extra = changed - expected - ignored - BOOKKEEPING
        if extra:
            return f"unexpected changes to {', '.join(sorted(extra))}"
    return None


def evaluate_requested(index: int, assertion: Assertion, requests: list[Row]) -> AssertionResult:
    found = [r for r in requests if matches(r, assertion.where)]
    ok = count_ok(len(found), assertion.expected_count)
    message = f"{len(found)} request(s) matched"
    if not ok:
        message += f", expected {'at least 1' if assertion.expected_count is None else assertion.expected_count}"
    if assertion.before is not None:
        later = [r for r in requests if matches(r, assertion.before)]
        first = found[0]["n"] if found else None
        early = [r for r in later if first is None or r["n"] < first]
        if not later or early:
            ok = False
            message += "; none of the requests that should follow came" if not later else \
                f"; {len(early)} of those that should follow came before it"
    return AssertionResult(index=index, assertion=assertion, passed=ok, matched=len(found), message=message)


def evaluate_one(index: int, assertion: Assertion, spec: Spec, diff: StateDiff,
                 lookup: Lookup | None, requests: list[Row] | None = None) -> AssertionResult:
    if assertion.diff_type == "requested":
        return evaluate_requested(index, assertion, requests or [])
    ignored = set(spec.ignore_fields.get("global", [])) | set(spec.ignore_fields.get(assertion.entity, [])) \
        | set(spec.ignore_fields.get(split(assertion.entity)[1], [])) | set(assertion.ignore)
    if assertion.diff_type != "changed":
        rows = diff.inserts if assertion.diff_type == "added" else diff.deletes
        found = [r for r in rows if r.get("__table__") == assertion.entity and matches(r, assertion.where, lookup)]
        ok = count_ok(len(found), assertion.expected_count)
        expected = "at least 1" if assertion.expected_count is None else assertion.expected_count
        return AssertionResult(index=index, assertion=assertion, passed=ok, matched=len(found),
                               message=f"{len(found)} {assertion.diff_type} {assertion.entity} row(s) matched"
                               + ("" if ok else f", expected {expected}"))
    candidates = [u for u in diff.updates if u.get("__table__") == assertion.entity
                  and (matches(u["after"], assertion.where, lookup) or matches(u["before"], assertion.where, lookup))]
    problems = [change_problem(u, assertion, ignored, spec.strict) for u in candidates]
    good = problems.count(None)
    ok = count_ok(good, assertion.expected_count)
    reason = next((p for p in problems if p), "no matching row was changed")
    return AssertionResult(index=index, assertion=assertion, passed=ok, matched=good,
                           message=f"{good} changed {assertion.entity} row(s) as expected" + ("" if ok else f"; {reason}"))


def evaluate(spec: Spec, diff: StateDiff, lookup: Lookup | None = None,
             requests: list[Row] | None = None) -> list[AssertionResult]:
    """`requests`: the environment's traffic, for `requested` assertions (none given: none made)."""
    return [evaluate_one(i, a, spec, diff, lookup, requests) for i, a in enumerate(spec.assertions)]


def check_entities(spec: Spec, services: list[str], world: bool, held: set[str], where: str) -> Spec:
    """Every entity is a table of the environment's services, or one it (or its seed) holds. In
    a world tables are `service.table`; a bare name that one service alone has is read as it."""
    if not world:
        known = sorted(held | set(pack(services[0]).tables) | {ENTITY})
    else:
        known = sorted(held | {qualified(s, t) for s in services for t in pack(s).tables} | {ENTITY})
    resolved = [_resolved(a, known, where) for a in spec.assertions]
    return spec.model_copy(update={"assertions": resolved})


def _resolved(assertion: Assertion, known: list[str], where: str) -> Assertion:
    if assertion.entity in known:
        return assertion
    owners = [name for name in known if split(name)[1] == assertion.entity and split(name)[0]]
    if len(owners) == 1:
        return assertion.model_copy(update={"entity": owners[0]})
    if owners:
        raise UnknownEntity(f"{where}: entity {assertion.entity!r} is in several services; name one of "
                            + ", ".join(owners))
    raise UnknownEntity(f"{where}: " + unknown_name("entity", assertion.entity, known))


def held_tables(state: EnvState) -> set[str]:
    return {table for (table,) in state.db.execute("SELECT tbl FROM rows UNION SELECT tbl FROM baseline")}


def evaluate_environment(spec: Spec, store: EnvironmentStore, env_id: str,
                         since: str | None = None) -> list[AssertionResult]:
    """Against an environment's diff (since run `since` began, if given), its entities checked
    and in a world resolved to `service.table`, references read through its current rows."""
    with store.open(env_id) as state:
        info = state.info
        spec = check_entities(spec, info.held(), info.is_world, held_tables(state),
                              f"{info.service} environment {env_id}")

        def lookup(table: str, key: str, value: Any) -> Row | None:
            return state.first(table, **{key: value}) or state.first(table, id=value)
        traffic = any(a.diff_type == "requested" for a in spec.assertions)
        return evaluate(spec, state.diff(since), lookup, request_rows(store.state, env_id) if traffic else None)


def parse_spec(data: Any, suite_ignore: dict[str, list[str]] | None = None) -> Spec:
    """A bare assertion list, a spec, or a test-suite entry; every key and predicate one detour knows."""
    if isinstance(data, dict) and "aggregates" in data:
        raise InvalidAssertions("aggregates are not supported yet")
    try:
        if isinstance(data, list):
            return Spec(assertions=data, ignore_fields=suite_ignore or {})
        if isinstance(data, dict) and TEST_KEYS & data.keys():
            test = SuiteTest.model_validate(data)
            warn_kept(f"test {test.id}", test)
            return test.spec(suite_ignore)
        if isinstance(data, dict) and "assertions" in data:
            spec = Spec.model_validate(data)
            return spec.model_copy(update={"ignore_fields": {**(suite_ignore or {}), **spec.ignore_fields}})
    except ValidationError as e:
        raise InvalidAssertions(f"invalid assertions: {first_error(e)}") from None
    raise InvalidAssertions("expected a list of assertions, or an object with 'assertions'")


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except OSError as e:
        raise InvalidAssertions(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise InvalidAssertions(f"{path} is not valid JSON: {e}") from None


def suite_of(data: Any, path: Path) -> Suite:
    """A suite, every test and assertion in it checked before any runs."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or not data["tests"]:
        raise InvalidAssertions(f"{path} is not a test suite: expected an object with a list of 'tests'")
    try:
        suite = Suite.model_validate(data)
    except ValidationError as e:
        raise InvalidAssertions(f"{path}: {first_error(e)}") from None
    warn_kept(str(path), suite)
    return suite


def load_suite(path: Path) -> Suite:
    return suite_of(read_json(path), path)


def load_spec(path: Path, test_id: str | None = None) -> Spec:
    """From a file: a spec, an assertion list, a test entry, or (with test_id) a whole suite."""
    data = read_json(path)
    if not (isinstance(data, dict) and "tests" in data):
        return parse_spec(data)
    suite = suite_of(data, path)
    if test_id is None:
        raise InvalidAssertions(f"{path} is a suite: name a test with --test ({', '.join(str(t.id) for t in suite.tests)})")
    return suite.test(test_id).spec(suite.ignore_fields)
