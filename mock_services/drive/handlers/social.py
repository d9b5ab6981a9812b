"""comments.* and replies.*: comments on a file (its commenters may write them), replies that
may resolve or reopen them; deleted ones stay, marked, as Drive keeps them. Drive asks every
caller of these methods to name the `fields` it wants (400 without them)."""

from __future__ import annotations

from mock_services.drive import access
from mock_services.drive.handlers.paging import page
from mock_services.drive.resources import comment_json, new_id, reply_json, stamp
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row


def _file(call: Call, at_least: str = "reader") -> Row:
    if not call.arg("fields"):
        raise RestError(400, "required", "The 'fields' parameter is required for this method.")
    return access.file(call, call.params["fileId"], at_least)


def _comment(call: Call, row: Row) -> Row:
    found = call.state.first("drive_comments", id=call.params["commentId"], file_id=row["id"])
    if found is None or found.get("deleted") and not call.arg("includeDeleted"):
        raise RestError(404, "notFound", f"Comment not found: {call.params['commentId']}.")
    return found


def _reply(call: Call, comment: Row) -> Row:
    found = call.state.first("drive_replies", id=call.params["replyId"], comment_id=comment["id"])
    if found is None or found.get("deleted") and not call.arg("includeDeleted"):
        raise RestError(404, "notFound", f"Reply not found: {call.params['replyId']}.")
    return found


def _content(call: Call, required: bool = True) -> str | None:
    body = call.body if isinstance(call.body, dict) else {}
    content = body.get("content")
    if content is not None and not isinstance(content, str) or required and not content:
        raise RestError(400, "required", "Required: content")
    return content


def _author_only(call: Call, row: Row) -> None:
    if row.get("author_id") != call.user:
        raise RestError(403, "insufficientPermissions", "The user does not have sufficient permissions for this comment.")


def _comment_answer(call: Call, comment: Row) -> dict:
    replies = [r for r in call.state.rows("drive_replies", comment_id=comment["id"])
               if call.arg("includeDeleted") or not r.get("deleted")]
    return comment_json(access.view(call), comment, replies, call.user)


def create_comment(call: Call) -> dict:
    row = _file(call, "commenter")
    body = call.body if isinstance(call.body, dict) else {}
    now = stamp()
    comment = {"id": new_id("AAAA", 12), "file_id": row["id"], "author_id": call.user, "content": _content(call),
               "created_time": now, "modified_time": now, "resolved": False, "deleted": False,
               **{column: body[field] for field, column in (("anchor", "anchor"), ("quotedFileContent", "quoted_file_content"))
                  if body.get(field) is not None}}
    call.state.insert("drive_comments", comment)
    return _comment_answer(call, comment)


def list_comments(call: Call) -> dict:
    row = _file(call)
    since = call.arg("startModifiedTime") or ""
    found = [c for c in call.state.rows("drive_comments", file_id=row["id"])
             if (call.arg("includeDeleted") or not c.get("deleted")) and c.get("modified_time", "") >= since]
    shown, following = page(call, found, row["id"], since, default_size=20, largest=100)
    answer = {"kind": "drive#commentList", "comments": [_comment_answer(call, c) for c in shown]}
    return {**answer, "nextPageToken": following} if following else answer


def get_comment(call: Call) -> dict:
    return _comment_answer(call, _comment(call, _file(call)))


def update_comment(call: Call) -> dict:
    comment = _comment(call, _file(call, "commenter"))
    _author_only(call, comment)
    comment.update(content=_content(call), modified_time=stamp())
    call.state.update("drive_comments", comment)
    return _comment_answer(call, comment)


def delete_comment(call: Call) -> None:
    row = _file(call, "commenter")
    comment = _comment(call, row)
    if comment.get("author_id") != call.user and row.get("owner_id") != call.user:
        _author_only(call, comment)
    comment.update(deleted=True, modified_time=stamp())
    call.state.update("drive_comments", comment)


def create_reply(call: Call) -> dict:
    comment = _comment(call, _file(call, "commenter"))
    action = (call.body or {}).get("action") if isinstance(call.body, dict) else None
    if action not in (None, "resolve", "reopen"):
        raise RestError(400, "invalid", "Invalid value for action: resolve or reopen")
    content = _content(call, required=action is None)
    now = stamp()
    reply = {"id": new_id("AAAA", 12), "comment_id": comment["id"], "file_id": comment["file_id"],
             "author_id": call.user, "content": content or "", "created_time": now, "modified_time": now,
             "deleted": False, **({"action": action} if action else {})}
    call.state.insert("drive_replies", reply)
    comment["modified_time"] = now
    if action:
        comment["resolved"] = action == "resolve"
    call.state.update("drive_comments", comment)
    return reply_json(access.view(call), reply, call.user)


def list_replies(call: Call) -> dict:
    comment = _comment(call, _file(call))
    found = [r for r in call.state.rows("drive_replies", comment_id=comment["id"])
             if call.arg("includeDeleted") or not r.get("deleted")]
    shown, following = page(call, found, comment["id"], default_size=20, largest=100)
    answer = {"kind": "drive#replyList", "replies": [reply_json(access.view(call), r, call.user) for r in shown]}
    return {**answer, "nextPageToken": following} if following else answer


def get_reply(call: Call) -> dict:
    return reply_json(access.view(call), _reply(call, _comment(call, _file(call))), call.user)


def update_reply(call: Call) -> dict:
    reply = _reply(call, _comment(call, _file(call, "commenter")))
    _author_only(call, reply)
    reply.update(content=_content(call), modified_time=stamp())
    call.state.update("drive_replies", reply)
    return reply_json(access.view(call), reply, call.user)


def delete_reply(call: Call) -> None:
    reply = _reply(call, _comment(call, _file(call, "commenter")))
    _author_only(call, reply)
    reply.update(deleted=True, modified_time=stamp())
    call.state.update("drive_replies", reply)


HANDLERS = {"comments.create": create_comment, "comments.list": list_comments, "comments.get": get_comment,
            "comments.update": update_comment, "comments.delete": delete_comment,
            "replies.create": create_reply, "replies.list": list_replies, "replies.get": get_reply,
            "replies.update": update_reply, "replies.delete": delete_reply}
