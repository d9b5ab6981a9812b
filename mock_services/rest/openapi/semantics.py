"""Generic state-backed handlers for a generated pack: create, read, list, update, delete over
the resource model's tables, with bodies checked against the description, answers filled to it,
list filters from the declared query parameters, and expansions of ids (`expand[]=customer`).
A pack's overrides (real rules, such as a payment intent's states) call the same pieces."""

from __future__ import annotations

from collections.abc import Callable
from email.utils import format_datetime
from typing import Any

from mock_services import clock
from mock_services.coverage import NOT_SERVED, mark
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.infer import snake
from mock_services.rest.openapi.schemas import Schemas
from mock_services.rest.router import Call
from mock_services.store import Row

CREATED = ("created", "created_at", "createdAt", "date_created", "created_time")
UPDATED = ("updated", "updated_at", "updatedAt", "date_updated", "last_edited_time")


class Resources:
    """The model of one pack, over its trimmed description."""

    def __init__(self, pack: str, document: dict, model: dict, defaults: dict[str, dict] | None = None,
                 missing: dict[str, str] | None = None) -> None:
        self.pack, self.document, self.model = pack, document, model
        self.schemas = Schemas(document)
        self.defaults = defaults or {}
        self.missing = missing or {}  # table -> the vendor's words for a row that is not there
        self.raw_ops = {o["operationId"]: (path, method, o) for path, ops in document["paths"].items()
                        for method, o in ops.items()}

    # -- lookups -------------------------------------------------------------------------------
    def resource(self, call: Call) -> dict:
        return self.model["resources"][self.model["operations"][call.operation.short_id]["resource"]]

    def envelope(self, call: Call) -> str | None:
        """The key this call's resource comes wrapped in, both ways (Zendesk's `{"ticket": {...}}`)."""
        table = self.model["operations"].get(call.operation.short_id, {}).get("resource")
        return self.model["resources"][table].get("envelope") if table else None

    def request_schema(self, operation_id: str) -> dict | None:
        content = self.raw_ops[operation_id][2].get("requestBody", {}).get("content", {})
        return next(iter(content.values()), {}).get("schema") if content else None

    def response(self, operation_id: str) -> tuple[int, dict | None]:
        for status, answer in sorted(self.raw_ops[operation_id][2]["responses"].items()):
            if status.startswith("2"):
                content = answer.get("content", {})
                media = next((m for m in content if "json" in m), None)
                return int(status), content[media]["schema"] if media else None
        return 200, None

    def row_schema(self, resource: dict) -> dict:
        return self.schemas.flat(self.schemas.named(resource["schema"]))

    def not_found(self, resource: dict, key: Any) -> RestError:
        kind = resource["object"] or resource["schema"]
        message = self.missing.get(resource["table"], f"No such {kind}: '{{key}}'").format(key=key)
        return RestError(404, "resource_missing", message, details={"param": "id"})

    def find(self, call: Call, resource: dict, key: Any = None) -> Row:
        """The row a path names: by id, else by its `key` where the schema has one (Jira's
        `{issueIdOrKey}`: `10002` or `PROJ-12`), within the parent the path names."""
        key = call.params.get(resource["key"]) if key is None else key
        row = call.state.first(resource["table"], id=key)
        if row is None and resource["id"].get("as") == "integer" and isinstance(key, str) and key.isdigit() \
                and len(key) < 19:
            row = call.state.first(resource["table"], id=int(key))
        if row is None and "key" in self.row_schema(resource).get("properties", {}):
            row = call.state.first(resource["table"], key=key)
        if row is None or (resource.get("parent_key") and row.get(self.parent_field(resource))
                           != self.parent_id(call, resource)):
            raise self.not_found(resource, key)
        return row

    def parent_id(self, call: Call, resource: dict) -> Any:
        """The id of the row the path's parent placeholder names (404 where there is none)."""
        parent = self.model["resources"].get(resource.get("parent") or "")
        value = call.params.get(resource["parent_key"])
        return self.find(call, parent, value)["id"] if parent else value

    # -- bodies and answers --------------------------------------------------------------------
    def body(self, call: Call) -> dict:
        """The request body read as the schema's types and checked against it (a 400 otherwise)."""
        schema = self.request_schema(call.operation.short_id)
        body = call.body if isinstance(call.body, dict) else {} if call.body in (None, b"") else call.body
        if schema is None:
            return body if isinstance(body, dict) else {}
        body = self.schemas.coerce(body, schema)
        self.schemas.check(body, schema)
        envelope = self.envelope(call)
        if envelope and isinstance(body, dict) and isinstance(body.get(envelope), dict):
            return body[envelope]
        return body if isinstance(body, dict) else {}

    def present(self, call: Call, row: Row, schema: Any) -> Any:
        """A stored row as the answer's schema has it (in its envelope, where the resource has
        one), with the fields `expand` names expanded."""
        envelope = self.envelope(call)
        if envelope and envelope not in row and envelope in self.schemas.flat(schema).get("properties", {}):
            inner = self.schemas.flat(schema)["properties"][envelope]
            return self.schemas.fill({envelope: self.present(call, row, inner)}, schema)
        expanded = {k: v for k, v in row.items() if k != "id" or "id" in self.schemas.flat(schema).get(
            "properties", {"id": None})}  # the store's key, where the vendor names its ids otherwise (`sid`)
        for path in call.params.get("expand") or []:
            self._expand(call, expanded, str(path).split("."))
        return self.schemas.fill(expanded, schema) if schema else expanded

    def _expand(self, call: Call, node: Any, path: list[str]) -> None:
        if not isinstance(node, dict) or not path:
            return
        head, rest = path[0], path[1:]
        value = node.get(head)
        if isinstance(value, str):
            for resource in self.model["resources"].values():
                found = call.state.first(resource["table"], id=value)
                if found is not None:
                    node[head] = dict(found)
                    break
        if rest and isinstance(node.get(head), dict):
            self._expand(call, node[head], rest)

    def stamp(self, row: Row, names: tuple[str, ...], schema: dict) -> None:
        for name in names:
            prop = self.schemas.resolve(schema.get("properties", {}).get(name, {}))
            at = clock.utcnow().replace(microsecond=0)
            if prop.get("type") == "integer":
                row[name] = int(clock.now())
            elif prop.get("format") == "date-time-rfc-2822":  # Twilio's `Thu, 24 Aug 2023 05:01:45 +0000`
                row[name] = format_datetime(at)
            elif prop:
                row[name] = at.isoformat().replace("+00:00", "Z")

    def field(self, resource: dict, name: str) -> str:
        """The stored field a body's or path's name stands for: itself, else its snake_case form
        where the schema has that (Twilio's `To` is its `to`, `AccountSid` its `account_sid`)."""
        props = self.row_schema(resource).get("properties", {})
        return name if name in props or snake(name) not in props else snake(name)

    def parent_field(self, resource: dict) -> str:
        """Where a nested row keeps its parent's id: the field the path's placeholder names, or,
        where that is the row's own `id` (PagerDuty's `/incidents/{id}/notes`), the model's name."""
        return resource.get("parent_field") or self.field(resource, resource["parent_key"])

    def links(self, call: Call, resource: dict, row: Row, props: dict) -> None:
        """Where the row reads back: `self` (absolute: Jira's), `uri` (from the root: Twilio's).
        Not `url`: a vendor's `url` may be anything (a Stripe product's web page)."""
        if not resource["item"]:
            return
        path = resource["item"].replace("{" + resource["key"] + "}", str(row["id"]))
        for name, value in call.params.items():
            path = path.replace("{" + name + "}", str(value))
        for name, value in (("self", f"https://{call.headers.get('host', 'localhost')}{path}"), ("uri", path)):
            if name in props and not row.get(name) and self.schemas.resolve(props[name]).get("type") == "string":
                row[name] = value

    # -- the five actions ----------------------------------------------------------------------
    def create(self, call: Call, extra: dict | None = None) -> Any:
        resource = self.resource(call)
        schema = self.row_schema(resource)
        props = schema.get("properties", {})
        body = self.body(call)
        row: Row = {self.field(resource, k): v for k, v in body.items()
                    if (self.field(resource, k) in props or not props) and v != ""}  # "" leaves it unset
        row = {**self.defaults.get(resource["table"], {}), **row, **(extra or {})}
        taken = {r.get("id") for r in call.state.rows(resource["table"])}
        row["id"] = (extra or {}).get("id") or styles.new_id(resource["id"], taken)
        row[resource.get("id_field", "id")] = row["id"]
        if resource["object"]:
            row["object"] = resource["object"]
        if resource.get("parent_key"):
            row[self.parent_field(resource)] = self.parent_id(call, resource)
        self.stamp(row, CREATED + UPDATED, schema)
        self.links(call, resource, row, props)
        row = self.schemas.fill(row, schema)
        call.state.insert(resource["table"], row)
        status, answer = self.response(call.operation.short_id)
        call.status = status
        return self.present(call, row, answer)

    def read(self, call: Call) -> Any:
        return self.present(call, self.find(call, self.resource(call)), self.response(call.operation.short_id)[1])

    def update(self, call: Call, extra: dict | None = None) -> Any:
        resource = self.resource(call)
        row = self.find(call, resource)
        schema = self.row_schema(resource)
        props = schema.get("properties", {})
        changes = {self.field(resource, k): v for k, v in self.body(call).items()
                   if (self.field(resource, k) in props or not props) and k != "id"}
        merged = dict(row)
        for name, value in {**changes, **(extra or {})}.items():
            if isinstance(value, dict) and isinstance(merged.get(name), dict) and call.operation.method != "PUT":
                merged[name] = {k: v for k, v in {**merged[name], **value}.items() if v != ""}  # Stripe: "" unsets
            else:
                merged[name] = None if value == "" and name in props and self.schemas.resolve(
                    props[name]).get("nullable") else value
        self.stamp(merged, UPDATED, schema)
        merged = self.schemas.fill(merged, schema)
        call.state.update(resource["table"], merged)
        status, answer = self.response(call.operation.short_id)
        return None if answer is None or status == 204 else self.present(call, merged, answer)

    def delete(self, call: Call) -> Any:
        resource = self.resource(call)
        row = self.find(call, resource)
        call.state.delete(resource["table"], row)
        status, answer = self.response(call.operation.short_id)
        if answer is None or status == 204:
            return None
        if self.envelope(call):  # the row as it was (Zendesk's deleted user)
            return self.present(call, row, answer)
        gone = {"id": row["id"], "deleted": True, **({"object": row["object"]} if "object" in row else {})}
        return self.schemas.fill(gone, self._deleted_schema(answer))

    def _deleted_schema(self, answer: dict) -> Any:
        options = self.schemas.resolve(answer).get("anyOf") or []
        return next((o for o in options if "deleted" in self.schemas.resolve(o).get("properties", {})), answer)

    def list(self, call: Call) -> Any:
        resource = self.resource(call)
        operation = self.model["operations"][call.operation.short_id]
        equals = {stored: call.params[name] for name, stored in operation.get("filters", {}).items()
                  if call.params.get(name) is not None}
        if resource.get("parent_key"):
            equals[self.parent_field(resource)] = self.parent_id(call, resource)
        rows = call.state.rows(resource["table"], **equals)
        if operation.get("paging") == "starting_after":
            rows.reverse()  # newest first, as Stripe lists
        path = "/" + call.operation.path
        for name, value in call.params.items():  # the list's own path (Twilio's account sid in it)
            path = path.replace("{" + name + "}", str(value))
        chosen, beside, headers = styles.page(rows, operation, call.params, path)
        call.response_headers.update(headers)
        status, answer = self.response(call.operation.short_id)
        answer_schema = self.schemas.flat(answer)
        field = operation.get("items") or ""
        item_schema = (answer_schema.get("items") if field == "" else
                       self.schemas.resolve(answer_schema.get("properties", {}).get(field, {})).get("items"))
        items = [self.present(call, r, item_schema) for r in chosen]
        if field == "":
            return items
        props = answer_schema.get("properties", {})
        listing = {k: v for k, v in beside.items() if k in props and v is not None}
        return self.schemas.fill({**listing, field: items}, answer)


def not_modeled(pack: str, operation_id: str, method: str, path: str) -> Callable[[Call], Any]:
    def answer(call: Call) -> Any:
        raise RestError(501, "not_modeled", f"detour's {pack} replica does not model {operation_id} "
                                            f"({method.upper()} {path}) yet", details={"type": "api_error"})
    return mark(answer, NOT_SERVED)
