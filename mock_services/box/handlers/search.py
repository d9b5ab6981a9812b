"""`GET /search`: the caller's items whose names, descriptions, tags, comments or (for text
files) contents hold every term of the query, filtered as Box's parameters say."""

from __future__ import annotations

import re
from functools import lru_cache

from mock_services.box import access, contents, errors
from mock_services.box.handlers import items
from mock_services.box.resources import fields_asked, select
from mock_services.rest.router import Call
from mock_services.store import Row

TEXT_EXTENSIONS = {"txt", "md", "csv", "json", "html", "htm", "xml", "mhtml", "tsv", "log", "yaml", "yml", "py"}
CONTENT_TYPES = ("name", "description", "file_content", "comments", "tags")
MAX_LIMIT = 200


@lru_cache(maxsize=256)
def _seeded_text(sha1: str) -> str:
    """A seeded file's text, lowercased; seeded contents never change, so it is kept."""
    path = contents.SEEDED / sha1
    return path.read_bytes().decode("utf-8", "replace").lower() if path.is_file() else ""


def _text(call: Call, row: Row) -> str:
    if row.get("type") != "file" or (row.get("extension") or "").lower() not in TEXT_EXTENSIONS:
        return ""
    sha1 = row.get("sha_1") or ""
    if (contents.SEEDED / sha1).is_file():
        return _seeded_text(sha1)
    data = contents.read(call.state, sha1)
    return data.decode("utf-8", "replace").lower() if data else ""


def _terms(query: str) -> list[str]:
    """Quoted phrases stay whole; Box's AND joins terms, and is what a plain space means here."""
    phrases = re.findall(r'"([^"]+)"', query)
    rest = re.sub(r'"[^"]*"', " ", query)
    words = [w for w in re.split(r"\s+", rest) if w and w not in ("AND",)]
    return [t.lower() for t in phrases + words]


def _haystacks(call: Call, row: Row, kinds: tuple[str, ...]) -> list[str]:
    found = []
    if "name" in kinds:
        found.append(row.get("name", "").lower())
    if "description" in kinds:
        found.append((row.get("description") or "").lower())
    if "tags" in kinds:
        found.append(" ".join(row.get("tags") or []).lower())
    if "comments" in kinds and row.get("type") == "file":
        found += [c.get("message", "").lower() for c in call.state.rows("box_comments", file_id=row["id"])]
    if "file_content" in kinds:
        found.append(_text(call, row))
    return found


def _csv(call: Call, name: str) -> list[str]:
    value = call.arg(name)
    values = value if isinstance(value, list) else [value] if value else []
    return [v.strip() for raw in values for v in str(raw).split(",") if v.strip()]


def _under(call: Call, row: Row, ancestors: set[str]) -> bool:
    current = row.get("parent_id")
    while current is not None:
        if current in ancestors:
            return True
        parent = call.state.first("box_folders", id=current)
        current = parent.get("parent_id") if parent else None
    return False


def _wanted(call: Call, row: Row) -> bool:
    extensions = {e.lower().lstrip(".") for e in _csv(call, "file_extensions")}
    if extensions and (row.get("type") != "file" or (row.get("extension") or "").lower() not in extensions):
        return False
    owners = set(_csv(call, "owner_user_ids"))
    if owners and row.get("owned_by_id") not in owners:
        return False
    ancestors = set(_csv(call, "ancestor_folder_ids"))
    return not ancestors or _under(call, row, ancestors)


def _relevance(row: Row, terms: list[str]) -> int:
    """Names that hold the terms first, then descriptions, then the rest (a stable sort keeps
    the tree's order within each)."""
    if all(t in row.get("name", "").lower() for t in terms):
        return 0
    return 1 if all(t in (row.get("description") or "").lower() for t in terms) else 2


def search(call: Call) -> dict:
    query = (call.arg("query") or "").strip()
    if not query and not call.arg("mdfilters"):
        raise errors.bad_request("query or mdfilters is required", name="query", reason="missing_parameter")
    kinds = tuple(_csv(call, "content_types")) or CONTENT_TYPES
    if set(kinds) - set(CONTENT_TYPES):
        raise errors.bad_request("Invalid content type", name="content_types", reason="invalid_parameter")
    wanted_type = call.arg("type")
    status = {"non_trashed_only": ("active",), "trashed_only": ("trashed",), "all_items": ("active", "trashed")}[
        call.arg("trash_content", "non_trashed_only")]
    terms = _terms(query)
    found = []
    for kind, table in access.TABLES.items():
        if wanted_type and kind != wanted_type:
            continue
        for row in call.state.rows(table):
            if row.get("id") == access.ROOT or row.get("item_status", "active") not in status:
                continue
            haystacks = _haystacks(call, row, kinds)
            if all(any(t in h for h in haystacks) for t in terms) and _wanted(call, row) \
                    and access.role_on(call, kind, row):
                found.append(row)
    found.sort(key=lambda r: _relevance(r, terms))
    if call.arg("sort") == "modified_at":
        found.sort(key=lambda r: r.get("modified_at") or "", reverse=call.arg("direction", "DESC") == "DESC")
    offset, limit = call.arg("offset", 0), min(call.arg("limit", 30), MAX_LIMIT)
    if offset < 0 or limit < 0:
        raise errors.bad_request("Invalid offset or limit", name="offset", reason="invalid_parameter")
    entries = [select(items.answer(call, r), r["type"], fields_asked(call)) for r in found[offset:offset + limit]]
    return {"type": "search_results_items", "total_count": len(found), "limit": limit, "offset": offset,
            "entries": entries}


HANDLERS = {"search.search_for_content": search}
