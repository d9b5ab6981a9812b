"""What backs an MCP tool: one of the pack's own operations, named as data.

A tool call is a request to the pack's own router, in process, with the caller's credentials:
the REST or GraphQL handler that answers it is the one the vendor's REST clients reach, so a
write made through MCP is in the REST answer and the diff, and the other way round. Nothing
here knows a vendor: a pack's table (its `McpSurface.operations`) says, per tool, which
operation answers and how the tool's arguments become that operation's parameters.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from string import Formatter
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from starlette.types import ASGIApp

from mock_services.mcp import in_process

Arguments = dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """The operation's answer: its status and its JSON (or text) body."""

    status: int
    body: Any
    location: str | None = None  # a redirect's

    @property
    def ok(self) -> bool:
        return self.status < 400


@dataclass(frozen=True)
class Caller:
    """The acting person's way into the pack's router: the replica app, the environment's
    service prefix and the credentials the MCP client presented."""

    app: ASGIApp
    prefix: str          # /api/env/{env}/services/{service}
    headers: Mapping[str, str]

    async def send(self, method: str, path: str, query: Arguments | None = None, body: Any = None,
                   form: bool = False, headers: Mapping[str, str] | None = None) -> Answer:
        sent = await in_process.request(self.app, method, self.prefix + path, query,
                                        {**self.headers, **(headers or {})}, body, form)
        try:
            body = json.loads(sent.body)
        except ValueError:
            body = sent.body.decode(errors="replace")
        return Answer(sent.status, body, sent.header("location"))


def _as_int(value: Any) -> Any:
    """JSON Schema's `number` arrives as 5.0 from some clients; a path or page wants 5."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


@dataclass(frozen=True)
class Rest:
    """A REST operation: arguments named in the path fill it; the others, renamed where the
    tool's name differs from the API's, go in the query (GET, DELETE) or the JSON body."""

    method: str
    path: str
    rename: Mapping[str, str] = field(default_factory=dict)  # tool argument -> API parameter
    omit: tuple[str, ...] = ()                               # the tool's own arguments (a mode, a field list)
    prepare: Callable[[Arguments], Arguments] | None = None  # where a value is spelled otherwise
    succeeded: Callable[[Any], bool] | None = None  # where a 200 may be a failure (Slack's `"ok": false`)
    form: bool = False  # the body form-encoded (Stripe's), not JSON
    # where the arguments become the API's only with what the pack answers first (a schema's types)
    ask: Callable[[Caller, Arguments], Awaitable[Arguments]] | None = None
    shape: Callable[[Any], Any] | None = None  # the answer as the vendor's tool gives it (Google's field names)
    follow: bool = False  # a redirect to the pack's own host (a download's) followed, as the vendor's server does
    headers: Mapping[str, str] = field(default_factory=dict)  # what the API wants besides (the version it speaks)

    async def run(self, caller: Caller, arguments: Arguments) -> Answer:
        answer = await self.send(caller, arguments)
        if self.follow and answer.location and 300 <= answer.status < 400:
            where = urlsplit(answer.location)
            answer = await caller.send("GET", where.path, query=dict(parse_qsl(where.query)) or None)
        if answer.ok and self.succeeded and not self.succeeded(answer.body):
            return Answer(400, answer.body)
        return Answer(answer.status, self.shape(answer.body)) if answer.ok and self.shape else answer

    async def send(self, caller: Caller, arguments: Arguments) -> Answer:
        given = {k: _as_int(v) for k, v in arguments.items() if v is not None and k not in self.omit}
        given = self.prepare(given) if self.prepare else given
        given = await self.ask(caller, given) if self.ask else given
        named = {name for _, name, _, _ in Formatter().parse(self.path) if name}
        missing = named - given.keys()
        if missing:
            return Answer(422, {"message": f"missing required parameter: {', '.join(sorted(missing))}"})
        path = self.path.format(**{n: quote(str(given[n]), safe="/" if n == "path" else "") for n in named})
        rest = {self.rename.get(k, k): v for k, v in given.items() if k not in named}
        if self.method in ("GET", "DELETE"):
            query = {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in rest.items()}
            return await caller.send(self.method, path, query=query, headers=self.headers)
        return await caller.send(self.method, path, body=rest, form=self.form, headers=self.headers)


def _at(value: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


async def _query(caller: Caller, document: str, variables: Arguments) -> Answer:
    """The pack's `/graphql` answer: `data`, or the errors with the status they came with."""
    answer = await caller.send("POST", "/graphql", body={"query": document, "variables": variables})
    body = answer.body if isinstance(answer.body, dict) else {}
    if not answer.ok or body.get("errors"):
        return Answer(answer.status if not answer.ok else 400, body.get("errors") or answer.body)
    return Answer(200, body.get("data"))


@dataclass(frozen=True)
class Lookup:
    """An argument the tool takes by name (a team's name or key, a person's name or email) made
    the id the operation wants, by a query of the pack's own: `document` takes the value as
    `$value` and `$id` (a GraphQL ID), and the ids looked up before it, and lists the matches'
    ids at `result`."""

    argument: str
    target: str
    document: str
    result: str

    async def resolve(self, caller: Caller, value: Any, known: Arguments) -> str | list[str] | Answer:
        found = []
        for one in value if isinstance(value, list) else [value]:
            answer = await _query(caller, self.document, {**known, "value": one, "id": one})
            ids = [node["id"] for node in _at(answer.body, self.result) or []] if answer.ok else []
            if not answer.ok or not ids:
                return answer if not answer.ok else Answer(404, {"message": f"{self.argument} not found: {one}"})
            found.append(ids[0])
        return found if isinstance(value, list) else found[0]


@dataclass(frozen=True)
class GraphQL:
    """A GraphQL operation at the pack's `/graphql`: the tool's arguments (looked up, renamed)
    are its variables, or its `$input` but for those named `outside`; the answer is the value
    at `result` (dotted) in `data`."""

    document: str
    result: str
    rename: Mapping[str, str] = field(default_factory=dict)
    lookups: tuple[Lookup, ...] = ()
    wrap: bool = False                  # the arguments go in `$input` (a mutation's)
    outside: tuple[str, ...] = ("id",)  # what stays a variable of its own when they do
    prepare: Callable[[Arguments], Arguments] | None = None  # after the lookups: a filter built of them

    async def run(self, caller: Caller, arguments: Arguments) -> Answer:
        given = {self.rename.get(k, k): _as_int(v) for k, v in arguments.items() if v is not None}
        for lookup in self.lookups:
            if lookup.argument in given:
                found = await lookup.resolve(caller, given.pop(lookup.argument), given)
                if isinstance(found, Answer):
                    return found
                given[lookup.target] = found
        given = self.prepare(given) if self.prepare else given
        if self.wrap:
            given = {**{k: given.pop(k) for k in self.outside if k in given}, "input": given}
        answer = await _query(caller, self.document, given)
        return Answer(answer.status, _at(answer.body, self.result)) if answer.ok else answer


@dataclass(frozen=True)
class Choice:
    """A tool that does several things, picked by one argument (github-mcp-server's `method`)."""

    argument: str
    operations: Mapping[str, Rest | GraphQL]

    async def run(self, caller: Caller, arguments: Arguments) -> Answer:
        picked = self.operations.get(arguments.get(self.argument, ""))
        if picked is None:
            return Answer(400, {"message": f"unknown {self.argument}: {arguments.get(self.argument)!r}; "
                                           f"detour's replica serves {', '.join(self.operations)}"})
        return await picked.run(caller, {k: v for k, v in arguments.items() if k != self.argument})


@dataclass(frozen=True)
class Each:
    """A tool that does one thing to each of a list (Notion's `notion-create-pages`): the
    operation runs once per item of `argument`, each item's fields beside the tool's other
    arguments, and the answer lists the answers (the first failure ends it)."""

    argument: str
    operation: Rest | GraphQL
    result: str = "results"
    item: str = ""  # the name a plain item (an id, not an object) is given as

    async def run(self, caller: Caller, arguments: Arguments) -> Answer:
        shared = {k: v for k, v in arguments.items() if k != self.argument}
        answers = []
        for item in arguments.get(self.argument) or []:
            answer = await self.operation.run(caller, {**shared, **(item if isinstance(item, dict) else {self.item: item})})
            if not answer.ok:
                return answer
            answers.append(answer.body)
        return Answer(200, {self.result: answers})


Operation = Rest | GraphQL | Choice | Each


def text(value: Any) -> str:
    """A result as the vendors' servers give it: JSON text."""
    return value if isinstance(value, str) else json.dumps(value)
