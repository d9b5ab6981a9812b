"""Google Docs over the pack generated from its discovery document (google-api-python-client's
docs.v1.json): a document's text is its body's paragraphs, as Docs lays them out (index 0 a
section break, each paragraph a text run ending in a newline), and `documents.batchUpdate`
applies the text requests agents send: insertText, replaceAllText, deleteContentRange. Other
requests are refused, naming them, in Google's error shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mock_services.rest.errors import RestError
from mock_services.rest.google import generated_error_body as error_body
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call

TABLE = "docs_documents"
IDS = {TABLE: {"kind": "prefix", "prefix": "1", "length": 43}}
MISSING = {TABLE: "Requested entity was not found."}


def body(text: str) -> dict:
    """Docs' body for `text` (which ends in a newline): a section break, then a paragraph per line."""
    content: list[dict] = [{"endIndex": 1, "sectionBreak": {"sectionStyle": {
        "columnSeparatorStyle": "NONE", "contentDirection": "LEFT_TO_RIGHT", "sectionType": "CONTINUOUS"}}}]
    start = 1
    for line in text.splitlines(keepends=True):
        end = start + len(line)
        content.append({"startIndex": start, "endIndex": end, "paragraph": {
            "elements": [{"startIndex": start, "endIndex": end, "textRun": {"content": line, "textStyle": {}}}],
            "paragraphStyle": {"namedStyleType": "NORMAL_TEXT", "direction": "LEFT_TO_RIGHT"}}})
        start = end
    return {"content": content}


def text_of(document: dict) -> str:
    return "".join(element["textRun"]["content"] for part in document.get("body", {}).get("content", [])
                   for element in part.get("paragraph", {}).get("elements", []) if "textRun" in element)


def create(resources: Resources, call: Call) -> Any:
    resource = resources.model["resources"][TABLE]
    made = styles.new_id(resource["id"], {r["id"] for r in call.state.rows(TABLE)})
    return resources.create(call, {"id": made, "documentId": made, "body": body("\n"), "revisionId": "1"})


def _index(request: dict, text: str, field: str = "location") -> int:
    """A request's place in the text (Docs counts from 1, the section break being 0)."""
    if "endOfSegmentLocation" in request:
        return len(text)
    index = int((request.get(field) or {}).get("index", 0))
    if not 1 <= index <= len(text):
        raise RestError(400, "invalid", f"Invalid requests[0].{next(iter(request), 'request')}: Index {index} must be "
                                        f"less than the end index of the referenced segment, {len(text) + 1}.")
    return index - 1


def _insert(text: str, request: dict) -> tuple[str, dict]:
    at = _index(request, text)
    if at == len(text):  # at the segment's end: before its final newline, as Docs inserts
        at -= 1
    return text[:at] + request["text"] + text[at:], {}


def _replace(text: str, request: dict) -> tuple[str, dict]:
    wanted = request["containsText"]["text"]
    if request["containsText"].get("matchCase", False):
        found = text.count(wanted)
        return text.replace(wanted, request.get("replaceText", "")), {"replaceAllText": {"occurrencesChanged": found}}
    lowered, out, found, start = text.lower(), [], 0, 0
    while (at := lowered.find(wanted.lower(), start)) >= 0 and wanted:
        out += [text[start:at], request.get("replaceText", "")]
        start, found = at + len(wanted), found + 1
    return "".join(out) + text[start:], {"replaceAllText": {"occurrencesChanged": found}}


def _delete(text: str, request: dict) -> tuple[str, dict]:
    span = request["range"]
    start, end = int(span["startIndex"]) - 1, int(span["endIndex"]) - 1
    if not 0 <= start < end <= len(text) - 1:  # the segment's final newline stays
        raise RestError(400, "invalid", "Invalid requests[0].deleteContentRange: Index out of range.")
    return text[:start] + text[end:], {}


APPLY: dict[str, Callable[[str, dict], tuple[str, dict]]] = {
    "insertText": _insert, "replaceAllText": _replace, "deleteContentRange": _delete}


def batch_update(resources: Resources, call: Call) -> Any:
    document = resources.find(call, resources.model["resources"][TABLE], call.params["documentId"])
    text, replies = text_of(document) or "\n", []
    for number, request in enumerate(resources.body(call).get("requests") or []):
        kind = next(iter(request), "")
        if kind not in APPLY:
            raise RestError(501, "notImplemented", f"detour's Docs replica does not apply requests[{number}].{kind} "
                                                   f"(it applies {', '.join(APPLY)})")
        text, reply = APPLY[kind](text, request[kind])
        replies.append(reply)
    revision = str(int(document.get("revisionId") or 1) + 1)
    call.state.update(TABLE, {**document, "body": body(text if text.endswith("\n") else text + "\n"),
                              "revisionId": revision})
    return {"documentId": document["documentId"], "replies": replies, "writeControl": {"requiredRevisionId": revision}}


HANDLERS = {"docs.documents.create": create, "docs.documents.batchUpdate": batch_update}

__all__ = ["HANDLERS", "IDS", "MISSING", "error_body"]
