"""Jira's rules that its description does not say, over the generated pack: issues keyed
`PROJ-12` per project with their fields resolved (project, type, assignee, priority by key, id,
name or account), the workflow's transitions (To Do, In Progress, Done: any to any other, as a
team-managed project's default workflow), JQL search, who is acting (Basic auth's email, else
the environment's user), users, the server's info; and `/rest/api/2/` answering as v3."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.jira import events, jql
from mock_services.rest.errors import RestError
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call, basic_login
from mock_services.store import EnvState, Row
from mock_services.rest.openapi.credentials import issuer

ALIASES = {"/rest/api/2/": "/rest/api/3/"}
# Jira Cloud's enhanced search (what the `jira` client uses on Cloud) came after the description.
ROUTES = {"searchForIssuesUsingJql": ["/rest/api/3/search/jql"], "searchForIssuesUsingJqlPost": ["/rest/api/3/search/jql"]}
SYSTEM_FIELDS = ("summary", "description", "status", "assignee", "reporter", "issuetype", "project", "priority",
                 "labels", "created", "updated", "comment")
MISSING = {"jira_issue": "Issue does not exist or you do not have permission to see it.",
           "jira_project": "No project could be found with key '{key}'.",
           "jira_issue_comment": "Can not find a comment for the id: {key}."}
TRANSITIONS = (("11", "To Do"), ("21", "In Progress"), ("31", "Done"))  # (transition id, target status)


def invalid(message: str, status: int = 400) -> RestError:
    return RestError(status, "invalid", message)


def identify(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
    """Basic auth names its user by email (an API token's owner); a bearer token (an OAuth 2.0
    app's, which is who registers webhooks; a timeline step's person) is its own user's where the
    environment issued it; anything else acts as the environment's user."""
    email = basic_login(headers)
    found = state.first("jira_users", emailAddress=email) if email else None
    if found is None and token and not email:
        owner = next((uid for uid, issued in credentials(state).tokens.items() if issued == token), None)
        found = {"id": owner} if owner else None
    return found["id"] if found else state.info.acting_user


def base(call: Call) -> str:
    return f"https://{call.headers.get('host', 'your-domain.atlassian.net')}"


def now() -> str:
    return clock.utcnow().strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def user_of(call: Call, account: Any) -> Row | None:
    if not account:
        return None
    wanted = account.get("accountId") or account.get("id") or account.get("name") if isinstance(account, dict) \
        else account
    row = call.state.first("jira_users", accountId=wanted) or call.state.first("jira_users", emailAddress=wanted)
    if row is None:
        raise invalid(f"The user '{wanted}' does not exist.")
    return {k: v for k, v in row.items() if k != "id"}


def _named(call: Call, table: str, given: Any, what: str) -> Row:
    """A project, issue type or priority given as {key|id|name: ...} or a bare value."""
    if isinstance(given, dict):
        given = given.get("key") or given.get("id") or given.get("name")
    for field in ("id", "key", "name"):
        row = call.state.first(table, **{field: given}) if given else None
        if row:
            return row
    raise invalid(f"valid {what} is required" if not given else f"The {what} '{given}' does not exist.")


def _fields(call: Call, given: dict, issue: Row | None) -> dict:
    fields = dict(issue["fields"]) if issue else {}
    for name, value in given.items():
        if name == "project":
            project = _named(call, "jira_project", value, "project")
            fields[name] = {k: project.get(k) for k in ("id", "key", "name", "self")}
        elif name == "issuetype":
            fields[name] = _named(call, "jira_issuetype", value, "issue type")
        elif name == "priority":
            fields[name] = _named(call, "jira_priority", value, "priority")
        elif name in ("assignee", "reporter"):
            fields[name] = user_of(call, value)
        else:
            fields[name] = value
    missing = [f for f in ("project", "issuetype", "summary") if not fields.get(f)]
    if missing:
        raise invalid(f"You must specify a {missing[0]} of the issue." if missing[0] == "summary"
                      else f"valid {missing[0]} is required")
    fields["updated"] = now()
    return fields


def create_issue(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    fields = _fields(call, body.get("fields") or {}, None)
    issues = call.state.rows("jira_issue")
    project_key = fields["project"]["key"]
    number = 1 + max([int(i["key"].rpartition("-")[2]) for i in issues if i["key"].startswith(project_key + "-")]
                     or [0])
    issue_id = str(1 + max([int(i["id"]) for i in issues if str(i["id"]).isdigit()] or [10000]))
    status = call.state.first("jira_status", name="To Do")
    reporter = call.state.first("jira_users", id=call.user)
    fields = {"labels": [], "assignee": None, "description": None, "priority": None, **fields, "status": status,
              "created": fields["updated"], "reporter": {k: v for k, v in (reporter or {}).items() if k != "id"}}
    return resources.create(call, {"id": issue_id, "key": f"{project_key}-{number}", "fields": fields,
                                   "self": f"{base(call)}/rest/api/3/issue/{issue_id}"})


def edit_issue(resources: Resources, call: Call) -> None:
    issue = resources.find(call, resources.model["resources"]["jira_issue"])
    body = resources.body(call)
    issue = {**issue, "fields": _fields(call, body.get("fields") or {}, issue)}
    call.state.update("jira_issue", issue)


def transitions(resources: Resources, call: Call) -> Any:
    issue = resources.find(call, resources.model["resources"]["jira_issue"])
    current = (issue["fields"].get("status") or {}).get("name")
    return {"expand": "transitions", "transitions": [
        {"id": tid, "name": target, "hasScreen": False, "isGlobal": True, "isInitial": False, "isAvailable": True,
         "isConditional": False, "to": call.state.first("jira_status", name=target)}
        for tid, target in TRANSITIONS if target != current]}


def do_transition(resources: Resources, call: Call) -> None:
    issue = resources.find(call, resources.model["resources"]["jira_issue"])
    wanted = str((resources.body(call).get("transition") or {}).get("id", ""))
    allowed = {t["id"]: t["to"] for t in transitions(resources, call)["transitions"]}
    if wanted not in allowed:
        raise invalid(f"Transition id '{wanted}' is not valid for this issue.")
    fields = {**issue["fields"], "status": allowed[wanted], "updated": now()}
    call.state.update("jira_issue", {**issue, "fields": fields})


def search(resources: Resources, call: Call) -> Any:
    body = resources.body(call) if call.operation.method == "POST" else call.params
    account = (call.state.first("jira_users", id=call.user) or {}).get("accountId", "")
    holds, order = jql.matcher(str(body.get("jql") or ""), account, jql.values_of)
    found = [i for i in call.state.rows("jira_issue") if holds(i)]
    for field, descending in reversed(order or [("key", True)]):
        found.sort(key=lambda i: jql.sort_key(i, field), reverse=descending)
    start, size = max(0, int(body.get("startAt") or 0)), max(1, min(int(body.get("maxResults") or 50), 100))
    schema = resources.response(call.operation.short_id)[1]
    issues = resources.schemas.resolve(schema)["properties"]["issues"]["items"]
    if call.operation.path.endswith("search/jql"):  # enhanced search pages by token
        start = int(body["nextPageToken"]) if str(body.get("nextPageToken") or "").isdigit() else 0
        more = start + size < len(found)
        return {"issues": [resources.present(call, i, issues) for i in found[start:start + size]],
                "isLast": not more, **({"nextPageToken": str(start + size)} if more else {})}
    return {"expand": "schema,names", "startAt": start, "maxResults": size, "total": len(found),
            "issues": [resources.present(call, i, issues) for i in found[start:start + size]]}


def add_comment(resources: Resources, call: Call) -> Any:
    author = user_of(call, (call.state.first("jira_users", id=call.user) or {}).get("accountId"))
    return resources.create(call, {"author": author, "updateAuthor": author, "jsdPublic": True})


def _users(call: Call) -> list[Row]:
    return [{k: v for k, v in row.items() if k != "id"} for row in call.state.rows("jira_users")]


def current_user(resources: Resources, call: Call) -> Any:
    me = call.state.first("jira_users", id=call.user)
    if me is None:
        raise invalid("Client must be authenticated to access this resource.", 401)
    return {k: v for k, v in me.items() if k != "id"}


def get_user(resources: Resources, call: Call) -> Any:
    wanted = call.params.get("accountId") or call.params.get("username") or call.params.get("key")
    found = next((u for u in _users(call) if wanted in (u.get("accountId"), u.get("emailAddress"))), None)
    if found is None:
        raise invalid("Specified user does not exist or you do not have required permissions", 404)
    return found


def all_users(resources: Resources, call: Call) -> Any:
    start, size = int(call.params.get("startAt") or 0), int(call.params.get("maxResults") or 50)
    return _users(call)[start:start + size]


def search_projects(resources: Resources, call: Call) -> Any:
    query = str(call.params.get("query") or "").lower()
    rows = [p for p in call.state.rows("jira_project") if query in p.get("key", "").lower()
            or query in p.get("name", "").lower()]
    start, size = int(call.params.get("startAt") or 0), int(call.params.get("maxResults") or 50)
    return {"self": f"{base(call)}/rest/api/3/project/search", "startAt": start, "maxResults": size,
            "total": len(rows), "isLast": start + size >= len(rows), "values": rows[start:start + size]}


def server_info(resources: Resources, call: Call) -> Any:
    return {"baseUrl": base(call), "version": "1001.0.0-SNAPSHOT", "versionNumbers": [1001, 0, 0],
            "deploymentType": "Cloud", "buildNumber": 100000, "serverTitle": "Jira", "scmInfo": "detour",
            "serverTime": now()}


def fields(resources: Resources, call: Call) -> Any:
    return [{"id": name, "key": name, "name": name.capitalize(), "custom": False, "orderable": True,
             "navigable": True, "searchable": True, "clauseNames": [name]} for name in SYSTEM_FIELDS]


def register_webhooks(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    if not body.get("url") or not isinstance(body.get("webhooks"), list):
        raise invalid("A registration takes a url and a list of webhooks.")
    return {"webhookRegistrationResult": events.register(call.state, str(body["url"]), body["webhooks"])}


def delete_webhooks(resources: Resources, call: Call) -> None:
    """Removes the webhooks named; ids of no webhook are ignored, as Jira ignores other apps'."""
    wanted = {int(i) for i in resources.body(call).get("webhookIds") or () if str(i).isdigit()}
    for webhook in call.state.rows(events.WEBHOOKS):
        if webhook["id"] in wanted:
            call.state.delete(events.WEBHOOKS, webhook)


HANDLERS = {
    "getFields": fields,
    "createIssue": create_issue, "editIssue": edit_issue, "getTransitions": transitions, "doTransition": do_transition,
    "searchForIssuesUsingJql": search, "searchForIssuesUsingJqlPost": search, "addComment": add_comment,
    "getCurrentUser": current_user, "getUser": get_user, "getAllUsers": all_users, "searchProjects": search_projects,
    "getServerInfo": server_info, "registerDynamicWebhooks": register_webhooks, "deleteWebhookById": delete_webhooks,
}

# Credentials: an Atlassian API token with its account's email and the site (basic auth).
credentials = issuer("ATATT", {"JIRA_API_TOKEN": "{token}", "JIRA_EMAIL": "{user[emailAddress]}",
                                "JIRA_URL": "https://{host}"})
