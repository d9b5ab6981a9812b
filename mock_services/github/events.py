"""What the GitHub replica's state changes emit: repository webhooks, as GitHub sends them.

A hook (POST /repos/{owner}/{repo}/hooks) names a URL, its events and a secret; each event of
its repository it subscribes to is POSTed to the URL (into the sandbox, by
mock_services/events/webhooks.py) with `X-GitHub-Event`, `X-GitHub-Delivery`, `X-GitHub-Hook-ID`
and `X-Hub-Signature-256` (`sha256=` HMAC of the body under the hook's secret). GitHub does not
retry a failed delivery by itself, so neither does the replica. A branch moving (a push, a
commit through the contents API, a merge) is a `push`; a pull request merged is a
`pull_request` closed with `merged: true`; an issue opened, closed or reopened is `issues`, a
comment on one `issue_comment` (`created`); a new hook gets a `ping`.
"""

from __future__ import annotations

import hashlib
import hmac
from types import SimpleNamespace
from typing import Any

from mock_services import clock
from mock_services.events import webhooks
from mock_services.events.rules import EventRule, Events, Row
from mock_services.github import shapes
from mock_services.store import EnvState

HOOKS, SECRETS_KEY = "github_hooks", "github_hook_secrets"  # a hook's secret: kept, never answered
SIGNER = "mock_services.github.events:signed"


def queue(hook_id: object) -> str:
    return f"github.hook:{hook_id}"


def repository(state: EnvState, row: Row) -> dict[str, Any]:
    found = state.first("github_repositories", id=row["repository_id"])
    return shapes.repository(state, found) if found else {"id": row["repository_id"]}


PUSH = {"ref": "ref", "after": "sha", "repository": repository, "created": lambda s, r: False,
        "deleted": lambda s, r: False, "forced": lambda s, r: False}
PULL = {"action": lambda s, r: "closed", "number": "number", "repository": repository,
        "pull_request": lambda s, r: {"number": r["number"], "state": "closed", "merged": True,
                                      "merged_at": r["merged_at"], "merge_commit_sha": r.get("merge_commit_sha"),
                                      "head": {"ref": r.get("head_ref"), "sha": r.get("head_sha")},
                                      "base": {"ref": r.get("base_ref"), "sha": r.get("base_sha")}}}

def _issues() -> Any:
    """The issue handlers' shapes (imported when used: the handlers import this module)."""
    from mock_services.github.handlers import issues
    return issues


def _seen(state: EnvState) -> SimpleNamespace:
    """The state as the issue handlers' shapes take it (they read only a call's state)."""
    return SimpleNamespace(state=state)


def _repository_row(state: EnvState, row: Row) -> Row:
    return state.first("github_repositories", id=row["repository_id"]) or {"id": row["repository_id"]}


def issue_of(state: EnvState, row: Row) -> dict[str, Any]:
    return _issues().shaped(_seen(state), _repository_row(state, row), row)


def commented_issue(state: EnvState, row: Row) -> dict[str, Any]:
    found = state.first("github_issues", repository_id=row["repository_id"], number=row["issue_number"])
    return issue_of(state, found) if found else {"number": row["issue_number"]}


def sender(state: EnvState, row: Row) -> dict[str, Any] | None:
    return shapes.user_by_id(state, row.get("user_id"))


ISSUE = {"action": lambda s, r: "opened", "issue": issue_of, "repository": repository, "sender": sender}
COMMENT = {"action": lambda s, r: "created", "issue": commented_issue,
           "comment": lambda s, r: _issues().comment(_seen(s), _repository_row(s, r), r), "repository": repository,
           "sender": sender}


def plain_issue(row: Row) -> bool:
    return not row.get("pull_request")


RULES = (
    EventRule("github_issues", "insert", "issues", ISSUE, when=plain_issue),
    EventRule("github_issues", "update", "issues", {**ISSUE, "action": lambda s, r: "closed"},
              when=lambda r: plain_issue(r) and r.get("state") == "closed", changed="state"),
    EventRule("github_issues", "update", "issues", {**ISSUE, "action": lambda s, r: "reopened"},
              when=lambda r: plain_issue(r) and r.get("state") == "open", changed="state"),
    EventRule("github_issue_comments", "insert", "issue_comment", COMMENT),
    EventRule("github_refs", "update", "push", PUSH),
    EventRule("github_refs", "insert", "push", {**PUSH, "created": lambda s, r: True}),
    EventRule("github_pulls", "update", "pull_request", PULL, when=lambda row: bool(row.get("merged_at")),
              changed="merged_at"),
)


def send(state: EnvState, hook: Row, event: str, payload: dict[str, Any]) -> None:
    delivery = str(clock.uuid4())
    webhooks.enqueue(state, queue(hook["id"]), delivery, hook["config"]["url"], event, payload, SIGNER,
                     f"{hook['id']}/{event}/{delivery}")


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    """To each active hook of the event's repository that takes this event."""
    payload = {k: v for k, v in event.items() if k != "type"}
    for hook in state.rows(HOOKS, repository_id=payload["repository"]["id"]):
        if hook.get("active", True) and ({rule.event, "*"} & set(hook.get("events") or ["push"])):
            send(state, hook, rule.event, payload)


def hook_made(state: EnvState, hook: Row, secret: str | None) -> None:
    """A new hook: its secret kept, its queue sent over HTTP, and GitHub's `ping`."""
    if secret:
        state.set_meta(SECRETS_KEY, {**(state.meta(SECRETS_KEY) or {}), str(hook["id"]): secret})
    webhooks.register(state, queue(hook["id"]), ())
    found = state.first("github_repositories", id=hook["repository_id"])
    send(state, hook, "ping", {"zen": "Keep it logically awesome.", "hook_id": hook["id"],
                               "hook": {"id": hook["id"], "type": "Repository", "events": hook.get("events"),
                                        "active": hook.get("active", True)},
                               "repository": shapes.repository(state, found) if found else {}})


def signed(state: EnvState, key: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    hook_id, event, delivery = key.split("/")
    body = webhooks.body_of(payload)
    headers = {"Content-Type": "application/json", "User-Agent": "GitHub-Hookshot/detour",
               "X-GitHub-Event": event, "X-GitHub-Delivery": delivery, "X-GitHub-Hook-ID": hook_id}
    secret = (state.meta(SECRETS_KEY) or {}).get(hook_id)
    if secret:
        headers["X-Hub-Signature-256"] = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return webhooks.Signed(body, headers)


def listening(state: EnvState) -> bool:
    """A hook anywhere in the environment."""
    return state.first(HOOKS) is not None


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening,
                actor=lambda event: str((event.get("sender") or {}).get("id")))
