"""Partial responses: Google's `fields` selector (`items(id,summary),nextPageToken`, `a/b`, `*`)
applied to an answer, so a client that asks for some fields gets exactly those."""

from __future__ import annotations

from typing import Any

Selection = dict[str, "Selection | None"]  # a name -> what of it to keep (None: all of it)


class InvalidFields(ValueError):
    pass


def parse(selector: str) -> Selection:
    selection, rest = _parse_list(selector.replace(" ", ""), 0)
    if rest != len(selector.replace(" ", "")):
        raise InvalidFields(f"invalid field selector {selector!r}")
    return selection


def _parse_list(text: str, at: int) -> tuple[Selection, int]:
    selection: Selection = {}
    while at < len(text) and text[at] != ")":
        at = _parse_path(text, at, selection)
        if at < len(text) and text[at] == ",":
            at += 1
    return selection, at


def _parse_path(text: str, at: int, into: Selection) -> int:
    start = at
    while at < len(text) and text[at] not in ",()/":
        at += 1
    name = text[start:at]
    if not name:
        raise InvalidFields(f"invalid field selector {text!r}")
    if at < len(text) and text[at] == "/":
        child = into.get(name) or {}
        at = _parse_path(text, at + 1, child)
        into[name] = child
    elif at < len(text) and text[at] == "(":
        child, at = _parse_list(text, at + 1)
        if at >= len(text) or text[at] != ")":
            raise InvalidFields(f"unbalanced parentheses in {text!r}")
        into[name] = {**(into.get(name) or {}), **child}
        at += 1
    else:
        into[name] = None
    return at


def select(value: Any, selection: Selection | None) -> Any:
    if selection is None or "*" in selection and selection["*"] is None:
        return value
    if isinstance(value, list):
        return [select(item, selection) for item in value]
    if not isinstance(value, dict):
        return value
    return {k: select(v, selection[k] if k in selection else selection.get("*")) for k, v in value.items()
            if k in selection or "*" in selection}
