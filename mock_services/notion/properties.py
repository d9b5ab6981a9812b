"""Page properties against their data source's schema, as Notion checks them: a value names a
property the schema has (by name or id) and is of that property's type; a select or multi-select
option is found by name or id (a new name adds the option, as Notion does), a status must be one
the schema has, people are users of the workspace. A page outside a data source has only a title.
On read a page shows every property of its schema, the unset ones empty, and the ones Notion
computes (created and edited times and people) computed."""

from __future__ import annotations

from typing import Any

from mock_services.notion.objects import invalid, new_id, rich_text
from mock_services.store import EnvState, Row

COMPUTED = ("created_time", "last_edited_time", "created_by", "last_edited_by")
EMPTY = {"title": [], "rich_text": [], "number": None, "select": None, "status": None, "multi_select": [],
         "date": None, "people": [], "checkbox": False, "url": None, "email": None, "phone_number": None,
         "relation": [], "files": []}
COLORS = ("default", "gray", "brown", "orange", "yellow", "green", "blue", "purple", "pink", "red")
TITLE_SCHEMA = {"title": {"id": "title", "name": "title", "type": "title", "title": {}}}


def schema_of(state: EnvState, page: Row) -> tuple[Row | None, dict]:
    """(the data source a page is a row of, or None; its property schema by name)."""
    parent = page.get("parent") or {}
    if parent.get("type") != "data_source_id":
        return None, TITLE_SCHEMA
    source = state.first("notion_data_sources", id=parent["data_source_id"])
    return source, (source or {}).get("properties", {})


def _property(schema: dict, key: str) -> dict:
    found = schema.get(key) or next((p for p in schema.values() if p.get("id") == key), None)
    if found is None:
        raise invalid(f"{key} is not a property that exists.")
    return found


def _option(state: EnvState, source: Row | None, prop: dict, given: Any) -> dict | None:
    if given is None:
        return None
    if not isinstance(given, dict) or not (given.get("name") or given.get("id")):
        raise invalid(f"{prop['name']}.{prop['type']} should be an object with a name or an id.")
    options = prop[prop["type"]].setdefault("options", [])
    found = next((o for o in options if given.get("id") in (o["id"],) or given.get("name") == o["name"]), None)
    if found is None:
        if prop["type"] == "status" or not given.get("name"):
            raise invalid(f"Invalid {prop['type']} option for {prop['name']}: "
                          f"{given.get('name') or given.get('id')!r} is not one of its options.")
        found = {"id": new_id()[:8], "name": given["name"], "color": given.get("color") or COLORS[len(options) % 10],
                 "description": None}
        options.append(found)
        if source is not None:
            state.update("notion_data_sources", source)
    return found


def _value(state: EnvState, source: Row | None, prop: dict, given: Any) -> Any:
    kind = prop["type"]
    if not isinstance(given, dict) or kind not in given:
        raise invalid(f"{prop['name']} is expected to be {kind}.")
    value = given[kind]
    if kind in ("title", "rich_text"):
        return rich_text(value, state)
    if kind in ("select", "status"):
        return _option(state, source, prop, value)
    if kind == "multi_select":
        if not isinstance(value, list):
            raise invalid(f"{prop['name']}.multi_select should be an array.")
        return [_option(state, source, prop, v) for v in value]
    if kind == "people":
        if not isinstance(value, list):
            raise invalid(f"{prop['name']}.people should be an array.")
        for person in value:
            if not state.first("notion_users", id=(person or {}).get("id")):
                raise invalid(f"{prop['name']}.people: no user with id {(person or {}).get('id')!r}.")
        return [{"object": "user", "id": p["id"]} for p in value]
    if kind == "relation":
        return [{"id": r.get("id")} for r in value or [] if isinstance(r, dict)]
    if kind == "date":
        if value is not None and not (isinstance(value, dict) and isinstance(value.get("start"), str)):
            raise invalid(f"{prop['name']}.date should be an object with a start, or null.")
        return None if value is None else {"start": value["start"], "end": value.get("end"),
                                           "time_zone": value.get("time_zone")}
    if kind == "number" and value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise invalid(f"{prop['name']}.number should be a number, or null.")
    if kind == "checkbox" and not isinstance(value, bool):
        raise invalid(f"{prop['name']}.checkbox should be a boolean.")
    if kind in COMPUTED or kind in ("formula", "rollup", "unique_id"):
        raise invalid(f"{prop['name']} is a {kind} property: Notion computes it.")
    return value


def unabbreviated(state: EnvState, page: Row, given: Any) -> Any:
    """Request properties with Notion's shorthand spelled out: a title or text property given as
    the bare array of rich text (`"title": [...]`, as Notion's own examples write it), which the
    client's types do not name, is `{"title": [...]}`."""
    if not isinstance(given, dict):
        return given
    _, schema = schema_of(state, page)
    out = {}
    for key, value in given.items():
        prop = schema.get(key) or next((p for p in schema.values() if p.get("id") == key), None)
        short = isinstance(value, list) and prop is not None and prop["type"] in ("title", "rich_text")
        out[key] = {prop["type"]: value} if short else value
    return out


def written(state: EnvState, page: Row, given: Any) -> dict:
    """The page's stored properties with the request's `properties` written in."""
    if given is None:
        return dict(page.get("properties") or {})
    if not isinstance(given, dict):
        raise invalid("body.properties should be an object.")
    source, schema = schema_of(state, page)
    out = dict(page.get("properties") or {})
    for key, value in given.items():
        prop = _property(schema, key)
        name = prop.get("name", key)
        if value is None:
            out.pop(name, None)
            continue
        out[name] = {"id": prop["id"], "type": prop["type"], prop["type"]: _value(state, source, prop, value)}
    return out


def shown(state: EnvState, page: Row) -> dict:
    """Every property of the page's schema as Notion answers it."""
    _, schema = schema_of(state, page)
    stored = page.get("properties") or {}
    out = {}
    for name, prop in schema.items():
        kind = prop["type"]
        if kind in COMPUTED:
            value = page.get(kind)
        elif name in stored:
            value = stored[name].get(kind)
        else:
            value = EMPTY.get(kind)
        out[name] = {"id": prop["id"], "type": kind, kind: value}
        if kind == "relation":
            out[name]["has_more"] = False
    return out


def configured(given: Any, stored: dict | None = None) -> dict:
    """A data source's property schema with a request's property configurations written in:
    by name or id; a configuration of null removes the property, a `name` renames it."""
    out = {n: dict(p) for n, p in (stored or {}).items()}
    if not isinstance(given, dict):
        raise invalid("body.properties should be an object.")
    for key, config in given.items():
        current = out.get(key) or next((p for p in out.values() if p["id"] == key), None)
        if config is None:
            if current is None:
                raise invalid(f"{key} is not a property that exists.")
            out.pop(current["name"])
            continue
        if not isinstance(config, dict):
            raise invalid(f"body.properties.{key} should be an object, or null.")
        kind = config.get("type") or next((k for k in config if k not in ("name", "description")), None) or \
            (current or {}).get("type")
        if kind is None:
            raise invalid(f"body.properties.{key} should name its type.")
        if current is not None:
            out.pop(current["name"])
        name = config.get("name") or key
        settings = dict(config.get(kind) or (current or {}).get(kind) or {})
        if kind in ("select", "multi_select", "status"):
            settings["options"] = [{"id": o.get("id") or new_id()[:8], "name": o.get("name") or "",
                                    "color": o.get("color") or COLORS[i % 10], "description": o.get("description")}
                                   for i, o in enumerate(settings.get("options") or []) if isinstance(o, dict)]
        if kind == "status":
            settings.setdefault("groups", [])
        out[name] = {"id": "title" if kind == "title" else (current or {}).get("id") or new_id()[:8],
                     "name": name, "type": kind, kind: settings}
    if sum(1 for p in out.values() if p["type"] == "title") != 1:
        raise invalid("A data source must have exactly one title property.")
    return out

