"""What backs an MCP tool: one of the pack's own operations, named as data.

A tool call is a request to the pack's own router, in process, with the caller's credentials:
the REST or GraphQL handler that answers it is the one the vendor's REST clients reach, so a
write made through MCP is in the REST answer and the diff, and the other way round. Nothing
here knows a vendor: a pack's table (its `McpSurface.operations`) says, per tool, which
operation answers and how the tool's arguments become that operation's parameters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from string import Formatter
from typing import Any
from urllib.parse import quote

import httpx

Arguments = dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """The operation's answer: its status and its JSON (or text) body."""

    status: int
    body: Any

    @property
    def ok(self) -> bool:
        return self.status < 400


@dataclass(frozen=True)
class Caller:
    """The acting person's way into the pack's router: the replica app, the environment's
    service prefix and the credentials the MCP client presented."""

    client: httpx.AsyncClient
    prefix: str          # /api/env/{env}/services/{service}
    headers: Mapping[str, str]

    async def send(self, method: str, path: str, query: Arguments | None = None, body: Any = None) -> Answer:
        sent = await self.client.request(method, self.prefix + path, params=query or None, headers=dict(self.headers),
                                         json=body)
        try:
            return Answer(sent.status_code, sent.json())
        except ValueError:
            return Answer(sent.status_code, sent.text)


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

    async def run(self, caller: Caller, arguments: Arguments) -> Answer:
        given = {k: _as_int(v) for k, v in arguments.items() if v is not None and k not in self.omit}
        given = self.prepare(given) if self.prepare else given
        named = {name for _, name, _, _ in Formatter().parse(self.path) if name}
        missing = named - given.keys()
        if missing:
            return Answer(422, {"message": f"missing required parameter: {', '.join(sorted(missing))}"})
        path = self.path.format(**{n: quote(str(given[n]), safe="/" if n == "path" else "") for n in named})
        rest = {self.rename.get(k, k): v for k, v in given.items() if k not in named}
        if self.method in ("GET", "DELETE"):
            query = {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in rest.items()}
            return await caller.send(self.method, path, query=query)
        return await caller.send(self.method, path, body=rest)


@dataclass(frozen=True)
class GraphQL:
    """A GraphQL operation at the pack's `/graphql`: the tool's arguments are its variables
    (renamed where they differ); the answer is the value at `result` (dotted) in `data`."""

    document: str
    result: str
    rename: Mapping[str, str] = field(default_factory=dict)
    prepare: Callable[[Arguments], Arguments] | None = None

    async def run(self, caller: Caller, arguments: Arguments) -> Answer:
        given = {k: _as_int(v) for k, v in arguments.items() if v is not None}
        given = self.prepare(given) if self.prepare else given
        variables = {self.rename.get(k, k): v for k, v in given.items()}
        answer = await caller.send("POST", "/graphql", body={"query": self.document, "variables": variables})
        body = answer.body if isinstance(answer.body, dict) else {}
        if not answer.ok or body.get("errors"):
            return Answer(answer.status if not answer.ok else 400, body.get("errors") or answer.body)
        value: Any = body.get("data")
        for key in self.result.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        return Answer(200, value)


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


Operation = Rest | GraphQL | Choice


def text(value: Any) -> str:
    """A result as the vendors' servers give it: JSON text."""
    return value if isinstance(value, str) else json.dumps(value)
