"""A timeline's step in a REST pack: `do` is the operation as a request line (`POST
/repos/acme/api/issues`), `args` its JSON body, made as the step's person (their token) through
the pack's own operation table and handlers, so it is theirs in the diff and emits its events.
A pack names `act = rest_act(API)` (its RestApi) as its descriptor's `act`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine, RestApi, parse_params
from mock_services.store import EnvironmentStore

Act = Callable[[EnvironmentStore, str, str, str, dict[str, Any]], dict]


def rest_act(api: RestApi) -> Act:
    engine = Engine(api)

    def act(store: EnvironmentStore, env_id: str, token: str, do: str, args: dict[str, Any]) -> dict:
        """The handler's answer (`ok` added where it is an object), or why the step could not act."""
        method, _, target = do.partition(" ")
        split = urlsplit(target.strip())
        path = split.path.removeprefix(api.spec.service_path).lstrip("/")
        headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
        try:
            operation, values = engine.match(method.upper(), path)
            params = parse_params(operation, api.spec.common, values, parse_qsl(split.query), headers)
            answer, _ = engine.dispatch(store, env_id, operation, params, args or None, headers)
        except RestError as e:
            return {"ok": False, "error": f"{e.status} {e}"}
        return {"ok": True, **answer} if isinstance(answer, dict) else {"ok": True, "answer": answer}
    return act
