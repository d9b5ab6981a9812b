"""search.messages, search.files and search.all over what the caller can see.

The query syntax agents use: words (all must appear), "-word" to exclude, `in:#channel`,
`from:@user` or `from:<@U…>`, `before:` and `after:` dates (YYYY-MM-DD).
"""

from __future__ import annotations

from datetime import datetime, timezone

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.methods.files import visible_file
from mock_services.slack.serializers import file_json, messages_json
from mock_services.store import Row


class SearchArgs(BaseModel):
    query: str = ""
    count: int = 20
    page: int = 1
    sort: str = "timestamp"
    sort_dir: str = "desc"


def _day(value: str) -> float:
    try:
        return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        raise SlackError("invalid_query") from None


def matcher(call: SlackCall, query: str):
    words, excluded, checks = [], [], []
    for token in query.split():
        key, _, value = token.partition(":")
        if key == "in" and value:
            channel = call.channel(value)
            checks.append(lambda m, c=channel["channel_id"]: m["channel_id"] == c)
        elif key == "from" and value:
            ref = value.strip("<>@")
            user = call.state.first("users", user_id=ref) or call.state.first("users", username=ref)
            checks.append(lambda m, u=(user or {}).get("user_id"): m.get("user_id") == u)
        elif key in ("before", "after") and value:
            edge = _day(value)
            checks.append((lambda m, e=edge: float(m["message_id"]) < e) if key == "before"
                          else (lambda m, e=edge: float(m["message_id"]) >= e + 86400))
        elif token.startswith("-") and len(token) > 1:
            excluded.append(token[1:].lower())
        else:
            words.append(token.lower())

    def matches(message: Row) -> bool:
        text = (message.get("message_text") or "").lower()
        return (all(w in text for w in words) and not any(x in text for x in excluded)
                and all(check(message) for check in checks))
    return matches


def search_messages(call: SlackCall) -> dict:
    args = call.args(SearchArgs)
    if not args.query.strip():
        raise SlackError("no_query")
    visible = {c["channel_id"]: c for c in call.state.rows("channels")
               if call.is_member(c) or not (c.get("is_private") or c.get("is_dm"))}
    matches = matcher(call, args.query)
    found = [m for m in call.state.rows("messages") if m["channel_id"] in visible and matches(m)]
    found.sort(key=lambda m: float(m["message_id"]), reverse=args.sort_dir != "asc")
    count = min(max(args.count, 1), 100)
    page = max(args.page, 1)
    chunk = found[(page - 1) * count: page * count]
    pages = max(1, -(-len(found) // count))
    matches_json = [{**rendered, "channel": {"id": m["channel_id"], "name": visible[m["channel_id"]].get("channel_name")}}
                    for m, rendered in zip(chunk, messages_json(call.state, chunk))]
    return {"query": args.query, "messages": {
        "total": len(found), "matches": matches_json,
        "paging": {"count": count, "total": len(found), "page": page, "pages": pages},
        "pagination": {"total_count": len(found), "page": page, "per_page": count, "page_count": pages,
                       "first": (page - 1) * count + 1, "last": (page - 1) * count + len(chunk)}}}


def search_files(call: SlackCall) -> dict:
    """Files whose name or title has every word of the query (and none of its -words)."""
    args = call.args(SearchArgs)
    if not args.query.strip():
        raise SlackError("no_query")
    words = [w.lower() for w in args.query.split() if ":" not in w and not w.startswith("-")]
    excluded = [w[1:].lower() for w in args.query.split() if w.startswith("-") and len(w) > 1]
    found = []
    for file in call.state.rows("files", state="complete"):
        text = f"{file.get('name', '')} {file.get('title', '')}".lower()
        if all(w in text for w in words) and not any(x in text for x in excluded):
            try:
                found.append(visible_file(call, file["file_id"]))
            except SlackError:
                continue
    found.sort(key=lambda f: f["created"], reverse=args.sort_dir != "asc")
    count, page = min(max(args.count, 1), 100), max(args.page, 1)
    chunk = found[(page - 1) * count: page * count]
    pages = max(1, -(-len(found) // count))
    return {"query": args.query, "files": {
        "total": len(found), "matches": [file_json(call.state, f) for f in chunk],
        "paging": {"count": count, "total": len(found), "page": page, "pages": pages}}}


def search_all(call: SlackCall) -> dict:
    return {**search_messages(call), "files": search_files(call)["files"]}


METHODS = {"search.messages": search_messages, "search.files": search_files, "search.all": search_all}
