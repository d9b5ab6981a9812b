"""GitLab's rules that its OpenAPI description does not say, over the generated pack: a project is
named by its id or its path (`acme/checkout`); its issues and merge requests are numbered per
project (`iid`, the number the paths take), opened by the acting user, closed and reopened by
`state_event`, listed newest first with `state`, `labels` and `search` and paged by
`page`/`per_page`; a note is a comment of the acting user on an issue or a merge request (its
`user_notes_count` is counted from them), listed newest first unless `sort=asc`; `/user` is the acting user;
and GitLab's error shape, `{"message": "404 Project Not Found"}`."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

NUMBER = {"kind": "numeric", "digits": 6, "as": "integer"}
IDS = {t: NUMBER for t in ("gitlab_projects", "gitlab_users", "gitlab_issues", "gitlab_merge_requests",
                           "gitlab_issue_notes", "gitlab_mr_notes")}
# Per numbered kind: its path's number, its noteable type, its URL part, its notes' table, its fields.
KINDS = {"gitlab_issues": ("issue_iid", "Issue", "issues", "gitlab_issue_notes",
                           ("title", "description", "labels", "assignee_ids", "confidential", "due_date")),
         "gitlab_merge_requests": ("merge_request_iid", "MergeRequest", "merge_requests", "gitlab_mr_notes",
                                   ("title", "description", "labels", "assignee_ids", "source_branch",
                                    "target_branch", "draft", "squash"))}
STATES = {"close": "closed", "reopen": "opened"}
SPANS = {"id"}  # a project's path (`acme/checkout`, sent as acme%2Fcheckout) arrives with its slash


def error_body(error: RestError) -> dict:
    return {"message": error.message}


def _now() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _missing(what: str) -> RestError:
    return RestError(404, "not_found", f"404 {what} Not Found")


def _project(call: Call) -> Row:
    key = unquote(str(call.params.get("id")))
    found = next((p for p in call.state.rows("gitlab_projects") if key in (str(p["id"]), p.get("path_with_namespace"))),
                 None)
    if found is None:
        raise _missing("Project")
    return found


def _basic(call: Call, user_id: Any) -> dict | None:
    """A user as GitLab embeds one (author, assignee): its basic fields."""
    user = call.state.first("gitlab_users", id=user_id)
    return None if user is None else {k: user.get(k) for k in ("id", "username", "name", "state", "avatar_url",
                                                               "web_url")}


def _me(call: Call) -> dict | None:
    return _basic(call, int(call.user)) if str(call.user).isdigit() else None


def _item(call: Call, table: str) -> Row:
    project = _project(call)
    number, kind = KINDS[table][0], KINDS[table][1]
    found = call.state.first(table, project_id=project["id"], iid=int(call.params.get(number) or 0))
    if found is None:
        raise _missing("Merge Request" if kind == "MergeRequest" else kind)
    return found


def _body(call: Call) -> dict:
    return {**call.params, **(call.body if isinstance(call.body, dict) else {})}


def _fields(call: Call, table: str, given: dict) -> dict:
    """A write's fields as GitLab stores them: labels from a comma list, assignees from ids."""
    fields = {k: given[k] for k in KINDS[table][4] if given.get(k) is not None}
    if isinstance(fields.get("labels"), str):
        fields["labels"] = [label for label in fields["labels"].split(",") if label]
    if "assignee_ids" in fields:
        ids = fields.pop("assignee_ids")
        fields["assignees"] = [u for i in (ids if isinstance(ids, list) else [ids]) if (u := _basic(call, int(i)))]
        fields["assignee"] = (fields["assignees"] or [None])[0]
    return fields


def _answer(resources: Resources, call: Call, row: Row, many: bool = False, table: str = "") -> Any:
    """The row filled to the operation's schema; an issue's or merge request's (`table`) note
    count read from its notes, never stored."""
    schema = resources.response(call.operation.short_id)[1]
    shown = dict(row)
    if table in KINDS:
        shown["user_notes_count"] = len(call.state.rows(KINDS[table][3], noteable_id=row["id"]))
    return resources.schemas.fill(shown, resources.schemas.resolve(schema).get("items") if many else schema)


def _page(call: Call, rows: list) -> list:
    page, size = max(int(call.params.get("page") or 1), 1), min(max(int(call.params.get("per_page") or 20), 1), 100)
    return rows[(page - 1) * size:page * size]


def create(table: str):
    def make(resources: Resources, call: Call) -> Any:
        project, given = _project(call), _body(call)
        if not given.get("title"):
            raise RestError(400, "invalid", "title is missing")
        iid = 1 + max((r["iid"] for r in call.state.rows(table, project_id=project["id"])), default=0)
        now = _now()
        row = {"id": styles.new_id(NUMBER, {r["id"] for r in call.state.rows(table)}), "iid": iid,
               "project_id": project["id"], "description": "", "state": "opened", "labels": [], "assignees": [],
               "assignee": None, "author": _me(call), "created_at": now, "updated_at": now, "closed_at": None,
               "closed_by": None, **_fields(call, table, given),
               "web_url": f"{project['web_url']}/-/{KINDS[table][2]}/{iid}",
               "references": {"short": f"{'!' if table == 'gitlab_merge_requests' else '#'}{iid}"}}
        if table == "gitlab_merge_requests":
            row |= {"source_project_id": project["id"], "target_project_id": project["id"],
                    "merge_status": "can_be_merged", "detailed_merge_status": "mergeable"}
        call.state.insert(table, row)
        call.status = 201
        return _answer(resources, call, row, table=table)
    return make


def update(table: str):
    def change(resources: Resources, call: Call) -> Any:
        row, given = _item(call, table), _body(call)
        changed = {**row, **_fields(call, table, given), "updated_at": _now()}
        state = STATES.get(str(given.get("state_event")))
        if state and row["state"] != "merged":
            closing = state == "closed"
            changed |= {"state": state, "closed_at": changed["updated_at"] if closing else None,
                        "closed_by": _me(call) if closing else None}
        call.state.update(table, changed)
        return _answer(resources, call, changed, table=table)
    return change


def read(table: str):
    def get(resources: Resources, call: Call) -> Any:
        return _answer(resources, call, _item(call, table), table=table)
    return get


def delete(table: str):
    def remove(resources: Resources, call: Call) -> Any:
        call.state.delete(table, _item(call, table))
        call.status = 204
        return None
    return remove


def listing(table: str):
    def found(resources: Resources, call: Call) -> Any:
        rows = call.state.rows(table, project_id=_project(call)["id"])
        state, search = call.params.get("state") or "all", str(call.params.get("search") or "").lower()
        labels = {label for label in str(call.params.get("labels") or "").split(",") if label}
        rows = [r for r in rows if state in ("all", r["state"]) and labels <= set(r.get("labels") or [])
                and search in f"{r.get('title')} {r.get('description')}".lower()]
        rows.sort(key=lambda r: (r["created_at"], r["iid"]), reverse=True)
        return [_answer(resources, call, r, many=True, table=table) for r in _page(call, rows)]
    return found


def note(table: str):
    def add(resources: Resources, call: Call) -> Any:
        parent, body = _item(call, table), _body(call).get("body")
        if not body:
            raise RestError(400, "invalid", "body is missing")
        notes, now = KINDS[table][3], _now()
        row = {"id": styles.new_id(NUMBER, {r["id"] for r in call.state.rows(notes)}), "type": None, "body": body,
               "attachment": None, "author": _me(call), "created_at": now, "updated_at": now, "system": False,
               "noteable_id": parent["id"], "noteable_type": KINDS[table][1], "noteable_iid": parent["iid"],
               "project_id": parent["project_id"], "resolvable": False, "confidential": False,
               "internal": bool(_body(call).get("internal"))}
        call.state.insert(notes, row)
        call.state.update(table, {**parent, "updated_at": now})
        call.status = 201
        return _answer(resources, call, row)
    return add


def notes(table: str):
    def found(resources: Resources, call: Call) -> Any:
        parent = _item(call, table)
        rows = sorted(call.state.rows(KINDS[table][3], noteable_id=parent["id"]), key=lambda r: (r["created_at"], r["id"]),
                      reverse=call.params.get("sort") != "asc")
        return [_answer(resources, call, r, many=True) for r in _page(call, rows)]
    return found


def current_user(resources: Resources, call: Call) -> Any:
    user = call.state.first("gitlab_users", id=int(call.user)) if str(call.user).isdigit() else None
    if user is None:
        raise RestError(401, "unauthorized", "401 Unauthorized")
    return _answer(resources, call, user)


def project(resources: Resources, call: Call) -> Any:
    return _answer(resources, call, _project(call))


HANDLERS = {"getApiV4User": current_user, "getApiV4ProjectsId": project,
            **{f"{verb}ApiV4ProjectsId{name}": make(table)
               for table, name in (("gitlab_issues", "Issues"), ("gitlab_merge_requests", "MergeRequests"))
               for verb, make in (("get", listing), ("post", create))},
            **{f"{verb}ApiV4ProjectsId{name}{number}{suffix}": make(table)
               for table, name, number in (("gitlab_issues", "Issues", "IssueIid"),
                                           ("gitlab_merge_requests", "MergeRequests", "MergeRequestIid"))
               for verb, suffix, make in (("get", "", read), ("put", "", update), ("delete", "", delete),
                                          ("get", "Notes", notes), ("post", "Notes", note))}}

# Credentials: a personal access token (glpat-…), sent as PRIVATE-TOKEN or as a bearer token.
credentials = issuer("glpat-", {"GITLAB_TOKEN": "{token}", "GITLAB_URL": "https://gitlab.com"})
