"""A data source's query and the workspace's search, as Notion answers them: filters on the
common property types (text, number, checkbox, select, status, multi-select, date, people,
relation) and on the created and edited times, `and`/`or` compounds, sorts by property or
timestamp, and cursor pages (`start_cursor` in; `next_cursor`, `has_more` out; at most 100)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mock_services.notion.objects import invalid, plain

TEXT = ("title", "rich_text", "url", "email", "phone_number")
COMPUTED = ("created_time", "last_edited_time")
DATE_OPS = {"equals": lambda d, v: d[:10] == v[:10], "before": lambda d, v: d < v, "after": lambda d, v: d > v,
            "on_or_before": lambda d, v: d[:len(v)] <= v, "on_or_after": lambda d, v: d >= v}


def _text(value: Any, kind: str) -> str:
    return plain(value) if kind in ("title", "rich_text") else value or ""


def _compare(kind: str, value: Any, condition: dict) -> bool:
    """Whether one property value meets one condition (`{"equals": ...}`)."""
    if not isinstance(condition, dict) or len(condition) != 1:
        raise invalid(f"body.filter.{kind} should name one condition.")
    (op, operand), = condition.items()
    if op in ("is_empty", "is_not_empty"):
        empty = value in (None, "", [], False) if kind != "checkbox" else False
        return empty if op == "is_empty" else not empty
    if kind in TEXT:
        text, wanted = _text(value, kind).lower(), str(operand).lower()
        checks: dict[str, Callable[[], bool]] = {
            "equals": lambda: text == wanted, "does_not_equal": lambda: text != wanted,
            "contains": lambda: wanted in text, "does_not_contain": lambda: wanted not in text,
            "starts_with": lambda: text.startswith(wanted), "ends_with": lambda: text.endswith(wanted)}
    elif kind == "number":
        number = value if isinstance(value, int | float) else None
        checks = {"equals": lambda: number == operand, "does_not_equal": lambda: number != operand,
                  "greater_than": lambda: number is not None and number > operand,
                  "less_than": lambda: number is not None and number < operand,
                  "greater_than_or_equal_to": lambda: number is not None and number >= operand,
                  "less_than_or_equal_to": lambda: number is not None and number <= operand}
    elif kind == "checkbox":
        checks = {"equals": lambda: bool(value) == operand, "does_not_equal": lambda: bool(value) != operand}
    elif kind in ("select", "status"):
        name = (value or {}).get("name")
        checks = {"equals": lambda: name == operand, "does_not_equal": lambda: name != operand}
    elif kind in ("multi_select", "people", "relation"):
        names = {v.get("name") or v.get("id") for v in value or []}
        checks = {"contains": lambda: operand in names, "does_not_contain": lambda: operand not in names}
    elif kind in ("date", "created_time", "last_edited_time"):
        start = (value or {}).get("start") if isinstance(value, dict) else value
        if op in ("past_week", "next_week", "past_month", "this_week"):
            raise invalid(f"body.filter.{kind}.{op} is not supported by detour's Notion replica.")
        checks = {name: (lambda test=test: start is not None and test(start, str(operand))) for name, test in
                  DATE_OPS.items()}
    else:
        raise invalid(f"body.filter: filters on {kind} properties are not supported by detour's Notion replica.")
    if op not in checks:
        raise invalid(f"body.filter.{kind}.{op} is not a condition of a {kind} filter.")
    return checks[op]()


def matcher(schema: dict, node: Any) -> Callable[[dict], bool]:
    """A predicate over a page's shown properties (and its timestamps) from a filter object."""
    if node is None:
        return lambda page: True
    if not isinstance(node, dict):
        raise invalid("body.filter should be an object.")
    for compound in ("and", "or"):
        if compound in node:
            parts = [matcher(schema, n) for n in node[compound] or []]
            joined = all if compound == "and" else any
            return lambda page: joined(p(page) for p in parts)
    if "timestamp" in node:
        stamp = node["timestamp"]
        return lambda page: _compare(stamp, page.get(stamp), node.get(stamp, {}))
    key = node.get("property")
    prop = schema.get(key) or next((p for p in schema.values() if p.get("id") == key), None)
    if prop is None:
        raise invalid(f"Could not find property with name or id: {key}")
    kind = prop["type"]
    given = node.get(kind) or next((node[k] for k in ("rich_text", "date") if k in node and kind in TEXT + COMPUTED),
                                   None)
    if given is None:
        raise invalid(f"body.filter: property {prop['name']} is {kind}; give a {kind} condition.")
    return lambda page: _compare(kind, page["properties"][prop["name"]][kind], given)



def sort(pages: list[dict], sorts: Any) -> list[dict]:
    """Pages in the order the sorts name (the first sort first); by default newest first."""
    if not sorts:
        return sorted(pages, key=lambda p: p.get("created_time", ""), reverse=True)
    if not isinstance(sorts, list):
        raise invalid("body.sorts should be an array.")
    for rule in reversed(sorts):
        backwards = (rule or {}).get("direction") == "descending"
        if "timestamp" in rule:
            stamp = rule["timestamp"]
            pages = sorted(pages, key=lambda p: p.get(stamp) or "", reverse=backwards)
            continue
        name = rule.get("property")
        present = [p for p in pages if name in p["properties"]]
        if len(present) != len(pages):
            raise invalid(f"Could not find sort property with name or id: {name}")
        pages = sorted(pages, key=lambda p: _sort_key(p["properties"][name]), reverse=backwards)
    return pages


def _sort_key(value: dict) -> tuple:
    inner = value.get(value["type"])
    if isinstance(inner, list):
        inner = plain(inner) if value["type"] in ("title", "rich_text") else len(inner)
    elif isinstance(inner, dict):
        inner = inner.get("name") or inner.get("start") or ""
    return (inner is None, inner if isinstance(inner, int | float) and not isinstance(inner, bool) else str(inner))


def page_of(items: list[dict], start_cursor: Any, page_size: Any) -> dict:
    """One page of a list in Notion's shape: the cursor is the id of the next page's first item."""
    if isinstance(page_size, str):  # a query parameter (the description's `number` arrives as text)
        if not page_size.isdigit():
            raise invalid(f"page_size should be a number, instead was `\"{page_size}\"`.")
        page_size = int(page_size)
    size = page_size if isinstance(page_size, int | float) and not isinstance(page_size, bool) else 100
    if size != int(size) or not 1 <= size <= 100:
        raise invalid(f"body.page_size should be ≤ `100` and ≥ `1`, instead was `{size}`.")
    ids = [i["id"] for i in items]
    if start_cursor and start_cursor not in ids:
        raise invalid(f"The start_cursor provided is invalid: {start_cursor}")
    start = ids.index(start_cursor) if start_cursor else 0
    size = int(size)
    chosen = items[start:start + size]
    more = start + size < len(items)
    return {"object": "list", "results": chosen, "next_cursor": ids[start + size] if more else None,
            "has_more": more}
