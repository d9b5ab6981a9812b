"""The one table of what a program does on each hosted MCP server, read by every test that drives
all of them with a different client (Node's SDK, the `mcp` SDK's, the OpenAI Agents SDK's): the
credential variable the run gives for the server, the tool calls in order, the values picked
from their answers with what each must be, and the table the write lands in. Programs get it as JSON (`program_cases`)
and interpret it the same small way (the Python ones with one interpreter, `python_program`),
so no program hard-codes a case:

- a step is `[name, tool, arguments]`; its answer (structured content, else the first text
  content as JSON) is kept under `name`;
- a string argument `"$name.a.0.b"` is that path into an earlier answer, `"$env.VAR"` the run's
  variable;
- a pick is such a path (without `$`); the program prints each pick's value, the test compares.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from detour_core.registry import packs

TITLE = "Made with an MCP client"
PRESENT = object()  # an expectation met by any non-empty value (an id the replica mints)


@dataclass(frozen=True)
class Case:
    token: str
    steps: list[tuple[str, str, dict]]
    expect: dict[str, object]
    table: str


CASES = {
    "github": Case("GITHUB_TOKEN", [
        ("made", "issue_write", {"method": "create", "owner": "acme", "repo": "api", "title": TITLE}),
        ("me", "get_me", {})],
        {"made.title": TITLE, "me.login": "ai-agent"}, "github.github_issues"),
    "linear": Case("LINEAR_API_KEY", [
        ("made", "create_issue", {"title": TITLE, "team": "ENG"}),
        ("team", "get_team", {"query": "ENG"})],
        {"made.title": TITLE, "team.name": "Engineering"}, "linear.issues"),
    "notion": Case("NOTION_TOKEN", [
        ("task", "notion-search", {"query": "ENG-5"}),
        ("made", "notion-create-pages", {"parent": {"data_source_id": "$task.results.0.parent.data_source_id"},
                                         "pages": [{"properties": {"title": TITLE}}]})],
        {"made.pages.0.object": "page", "task.results.0.object": "page"}, "notion.notion_pages"),
    "slack": Case("SLACK_TOKEN", [
        ("sent", "slack_send_message", {"channel_id": "C01ABCD1234", "message": TITLE}),
        ("read", "slack_read_channel", {"channel_id": "C01ABCD1234"})],
        {"sent.ok": True, "read.messages.0.text": TITLE}, "slack.messages"),
    "jira": Case("JIRA_API_TOKEN", [
        ("made", "createJiraIssue", {"cloudId": "$env.JIRA_URL", "projectKey": "ACME", "issueTypeName": "Task",
                                     "summary": TITLE}),
        ("got", "getJiraIssue", {"cloudId": "$env.JIRA_URL", "issueIdOrKey": "$made.key"})],
        {"made.key": PRESENT, "got.fields.summary": TITLE, "got.fields.project.key": "ACME"}, "jira.jira_issue"),
    "stripe": Case("STRIPE_API_KEY", [
        ("made", "create_customer", {"name": TITLE}),
        ("products", "list_products", {"limit": 1})],
        {"made.name": TITLE, "products.object": "list"}, "stripe.stripe_customers"),
    "box": Case("BOX_DEVELOPER_TOKEN", [
        ("made", "create_folder", {"name": TITLE, "parent_folder_id": "0"}),
        ("found", "search_folders_by_name", {"folder_name": TITLE})],
        {"made.name": TITLE, "found.entries.0.name": TITLE}, "box.box_folders"),
    "gmail": Case("GOOGLE_OAUTH_ACCESS_TOKEN", [
        ("draft", "create_draft", {"to": ["robert@acme.example"], "subject": TITLE, "body": "Hello"}),
        ("labels", "list_labels", {})],
        {"draft.message.labelIds.0": "DRAFT", "labels.labels.0.id": "CHAT"}, "gmail.gmail_messages"),  # the draft's message
    "calendar": Case("GOOGLE_OAUTH_ACCESS_TOKEN", [
        ("made", "create_event", {"summary": TITLE, "startTime": "2026-12-01T10:00:00Z",
                                  "endTime": "2026-12-01T11:00:00Z"}),
        ("found", "list_events", {"query": TITLE, "startTime": "2026-11-30T00:00:00Z"})],
        {"made.summary": TITLE, "found.events.0.summary": TITLE}, "calendar.calendar_events"),
    "drive": Case("GOOGLE_OAUTH_ACCESS_TOKEN", [
        ("made", "create_file", {"title": TITLE, "mimeType": "application/vnd.google-apps.folder"}),
        ("got", "get_file_metadata", {"fileId": "$made.id"})],
        {"made.name": TITLE, "got.name": TITLE}, "drive.drive_files"),
    "hubspot": Case("HUBSPOT_ACCESS_TOKEN", [
        ("made", "manage_crm_objects", {"action": "create", "objectType": "deals", "properties": {"dealname": TITLE}}),
        ("found", "search_crm_objects", {"objectType": "deals", "query": TITLE})],
        {"made.properties.dealname": TITLE, "found.total": 1}, "hubspot.hubspot_crm_objects_0_3"),
}


def endpoints() -> dict[str, str]:
    """Each pack's hosted MCP endpoint, as the proxy serves it."""
    return {pack.name: f"https://{pack.mcp.hosts[0]}" for pack in packs() if pack.mcp}


def program_cases() -> str:
    """The table as the programs read it: per server its URL, credential variable, steps, picks."""
    served = endpoints()
    assert set(served) == set(CASES), "a hosted MCP server without a case (or a case without a server)"
    return json.dumps({name: {"url": served[name], "token": case.token, "steps": case.steps, "picks": list(case.expect)}
                       for name, case in CASES.items()})


PYTHON = r'''
import asyncio, json, os

CASES = json.loads(CASES_JSON)


def field(result, name):
    """The mcp SDK's 1.x spells a result's fields in camel case, 2.x in snake case."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(result, snake) if hasattr(result, snake) else getattr(result, name)


def at(kept, path):
    """A path "a.0.b" into the answers kept so far (and the run's variables as "env")."""
    value = kept
    for key in path.split("."):
        try:
            value = value[int(key)] if isinstance(value, list) else value[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def resolve(kept, value):
    if isinstance(value, str) and value.startswith("$"):
        return at(kept, value[1:])
    if isinstance(value, list):
        return [resolve(kept, item) for item in value]
    if isinstance(value, dict):
        return {key: resolve(kept, item) for key, item in value.items()}
    return value


async def perform(name, spec, call):
    """The case's steps through `call(tool, arguments)` (the client's own): the picks' values."""
    kept = {"env": dict(os.environ)}
    for as_, tool, args in spec["steps"]:
        result = await call(tool, resolve(kept, args))
        if field(result, "isError"):
            raise SystemExit(f"{name} {tool}: {result.content[0].text}")
        kept[as_] = field(result, "structuredContent") or json.loads(result.content[0].text)
    return {path: at(kept, path) for path in spec["picks"]}
'''

PYTHON_MAIN = r'''

async def main():
    print(json.dumps({name: await drive(name, spec) for name, spec in CASES.items()}))

asyncio.run(main())
'''


def python_program(drive: str) -> str:
    """A Python program over the table: the shared interpreter above, then `drive`, the client's
    own `async def drive(name, spec)` (connect, `perform` the steps, say server, tools, picks)."""
    return f"CASES_JSON = {program_cases()!r}\n" + PYTHON + drive + PYTHON_MAIN


def check(result, out: dict) -> None:
    """Each server answered every pick as expected, the client saw detour's server and its tools,
    each write is in the diff, and the run reached every server and nothing but them."""
    for name, case in CASES.items():
        got = out[name]
        for path, want in case.expect.items():
            assert (bool(got["picks"][path]) if want is PRESENT else got["picks"][path] == want), (name, path, got)
        assert got["tools"] > 0 and got["server"].startswith("detour"), (name, got)
        assert any(TITLE in json.dumps(row) for row in result.diff.inserts if row["__table__"] == case.table), name
    hosts = {r.host for r in result.requests if r.mcp_call}
    assert hosts == {url.split("/")[2] for url in endpoints().values()}
    assert {r.host for r in result.requests} == hosts  # nothing but MCP
