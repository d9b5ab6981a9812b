"""Which of the Gmail replica's REST operations backs each tool of Google's Gmail MCP server
(`https://gmailmcp.googleapis.com/mcp/v1`); the tools are in spec/mcp_tools.json, in Google's
camelCase fields. A draft is made as a client makes one: a MIME message, base64url-encoded."""

from __future__ import annotations

from email.message import EmailMessage

from mock_services.gmail.mime import encode, serialize
from mock_services.mcp.operations import Arguments, Operation, Rest

USER = "/gmail/v1/users/me"
PAGING = {"pageSize": "maxResults", "query": "q"}


def _draft(arguments: Arguments) -> Arguments:
    """create_draft's fields as `drafts.create`'s body."""
    message = EmailMessage()
    for header in ("to", "cc", "bcc"):
        if arguments.get(header):
            message[header.capitalize()] = ", ".join(arguments[header])
    message["Subject"] = arguments.get("subject", "")
    message.set_content(arguments.get("body", ""))
    return {"message": {"raw": encode(serialize(message))}}


def _labels(change: str):
    def prepare(arguments: Arguments) -> Arguments:
        return {"threadId": arguments["threadId"], change: arguments["labelIds"]}
    return prepare


OPERATIONS: dict[str, Operation] = {
    "search_threads": Rest("GET", USER + "/threads", rename=PAGING),
    "get_thread": Rest("GET", USER + "/threads/{threadId}"),
    "list_drafts": Rest("GET", USER + "/drafts", rename=PAGING),
    "create_draft": Rest("POST", USER + "/drafts", prepare=_draft),
    "list_labels": Rest("GET", USER + "/labels"),
    "label_thread": Rest("POST", USER + "/threads/{threadId}/modify", prepare=_labels("addLabelIds")),
    "unlabel_thread": Rest("POST", USER + "/threads/{threadId}/modify", prepare=_labels("removeLabelIds")),
}
