"""search.messages, search.files and search.all over what the caller can see.

The query syntax agents use: words (all must appear), "-word" to exclude, `in:#channel`,
`from:@user` or `from:<@U…>`, `before:` and `after:` dates (YYYY-MM-DD). Results come by
`count`/`page` or, from `cursor=*` on, by cursor (`response_metadata.next_cursor`); with
`highlight`, the matched words are marked with Slack's U+E000 and U+E001. A match is Slack's
search object (channel summary, permalink, username, iid), not a history message.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.methods.chat import permalink
from mock_services.slack.methods.files import visible_file
from mock_services.slack.pagination import MAX_LIMIT, paginate
from mock_services.slack.serializers import file_json, workspace_team
from mock_services.store import Row


class SearchArgs(BaseModel):
    query: str = ""
    count: int = 20
    page: int = 1
    sort: str = "timestamp"
    sort_dir: str = "desc"
    highlight: bool = False
    cursor: str | None = None


HIGHLIGHT = ("\ue000", "\ue001")  # what Slack wraps a matched word in


def _day(value: str) -> float:
    try:
        return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        raise SlackError("invalid_query") from None


def query_words(query: str) -> list[str]:
    """The plain words of a query (not `key:value`, not `-word`): what a match must contain."""
    return [t.lower() for t in query.split() if ":" not in t and not (t.startswith("-") and len(t) > 1)]


def highlighted(text: str, words: list[str]) -> str:
    if not words:
        return text
    pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)), re.IGNORECASE)
    return pattern.sub(lambda m: f"{HIGHLIGHT[0]}{m.group(0)}{HIGHLIGHT[1]}", text)


def page_of(found: list, args: SearchArgs) -> tuple[list, dict, dict]:
    """(the page, Slack's `paging` and `pagination`, `response_metadata`): by cursor from `*` on,
    else by `count` and `page`."""
    count = min(max(args.count, 1), 100)
    if args.cursor:
        chunk, next_cursor = paginate(found, None if args.cursor == "*" else args.cursor, min(count, MAX_LIMIT))
        page, first = 1, 0
    else:
        page = max(args.page, 1)
        first = (page - 1) * count
        chunk, next_cursor = found[first:first + count], ""
    pages = max(1, -(-len(found) // count))
    return chunk, {
        "paging": {"count": count, "total": len(found), "page": page, "pages": pages},
        "pagination": {"total_count": len(found), "page": page, "per_page": count, "page_count": pages,
                       "first": first + 1 if chunk else 0, "last": first + len(chunk)}}, \
        {"next_cursor": next_cursor}


def match_json(call: SlackCall, message: Row, channel: Row, words: list[str], highlight: bool) -> dict:
    """A message as search answers it."""
    user = call.state.first("users", user_id=message.get("user_id")) or {}
    text = message.get("message_text") or ""
    is_dm, private = bool(channel.get("is_dm")), bool(channel.get("is_private"))
    body = {
        "type": "message", "user": message.get("user_id"), "username": user.get("username", ""),
        "ts": message["message_id"], "text": highlighted(text, words) if highlight else text,
        "team": workspace_team(call.state).get("team_id", ""), "score": 0, "no_reactions": True,
        "iid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"{channel['channel_id']}/{message['message_id']}")),
        "permalink": permalink(call.state, channel["channel_id"], message),
        "channel": {"id": channel["channel_id"], "name": channel.get("channel_name", ""),
                    "name_normalized": channel.get("channel_name", ""), "is_channel": not (is_dm or private),
                    "is_group": private and not is_dm, "is_im": is_dm, "is_mpim": bool(channel.get("is_gc")),
                    "is_private": private or is_dm, "is_shared": False, "is_ext_shared": False,
                    "is_org_shared": False, "is_pending_ext_shared": False, "pending_shared": []},
    }
    return body | {k: message[k] for k in ("blocks", "attachments") if isinstance(message.get(k), list)}


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
    chunk, paging, metadata = page_of(found, args)
    words = query_words(args.query)
    return {"query": args.query, "messages": {
        "total": len(found), **paging,
        "matches": [match_json(call, m, visible[m["channel_id"]], words, args.highlight) for m in chunk]},
        "response_metadata": metadata}


def search_files(call: SlackCall) -> dict:
    """Files whose name, title or indexable text (a remote file's) has every word of the query
    (and none of its -words)."""
    args = call.args(SearchArgs)
    if not args.query.strip():
        raise SlackError("no_query")
    words = query_words(args.query)
    excluded = [w[1:].lower() for w in args.query.split() if w.startswith("-") and len(w) > 1]
    found = []
    for file in call.state.rows("files", state="complete"):
        text = f"{file.get('name', '')} {file.get('title', '')} {file.get('indexable_text') or ''}".lower()
        if all(w in text for w in words) and not any(x in text for x in excluded):
            try:
                found.append(visible_file(call, file["file_id"]))
            except SlackError:
                continue
    found.sort(key=lambda f: f["created"], reverse=args.sort_dir != "asc")
    chunk, paging, metadata = page_of(found, args)
    return {"query": args.query, "files": {"total": len(found), **paging,
                                           "matches": [file_json(call.state, f) for f in chunk]},
            "response_metadata": metadata}


def search_all(call: SlackCall) -> dict:
    """Messages and files; and `posts`, Slack's retired kind, which nothing here makes."""
    return {**search_messages(call), "files": search_files(call)["files"], "posts": {"total": 0, "matches": []}}


METHODS = {"search.messages": search_messages, "search.files": search_files, "search.all": search_all}
