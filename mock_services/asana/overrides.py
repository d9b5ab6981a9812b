"""Asana's rules that its OpenAPI description does not say, over the generated pack: gids are
numbers as text; a task's `assignee`, `projects`, `workspace` and `parent` are given as gids (or
`me`) and answered as compact objects; a project's tasks and a task's subtasks are tasks (one
table), listed by membership; `addProject` adds one; a comment (story) is written by the acting
person; lists page by `limit` and an `offset` token with `next_page`, all at once without a
limit; `/users/me` is the acting person; and Asana's error shape, `{"errors": [{"message",
"help", "phrase"}]}`."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

GID = {"kind": "numeric", "digits": 16, "as": "string"}
TABLES = {"asana_tasks": "task", "asana_projects": "project", "asana_users": "user", "asana_workspaces": "workspace",
          "asana_projects_sections": "section", "asana_tasks_stories": "story"}
IDS = {table: GID for table in TABLES}
DEFAULTS = {"asana_tasks": {"resource_type": "task", "resource_subtype": "default_task", "completed": False,
                            "projects": [], "memberships": [], "tags": [], "followers": [], "notes": "",
                            "assignee": None, "parent": None, "due_on": None},
            "asana_projects": {"resource_type": "project", "archived": False, "color": "light-green", "notes": ""},
            "asana_projects_sections": {"resource_type": "section"},
            "asana_tasks_stories": {"resource_type": "story", "type": "comment", "resource_subtype": "comment_added"}}
MISSING = {table: f"{kind}: Unknown object: {{key}}" for table, kind in TABLES.items()}
HELP = ("For more information on API status codes and how to handle them, read the docs on errors: "
        "https://developers.asana.com/docs/errors")
PHRASES = {400: "Bad Request", 401: "Not Authorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests",
           501: "Not Implemented"}


def error_body(error: RestError) -> dict:
    entry: dict[str, Any] = {"message": error.message, "help": HELP}
    if error.status >= 500:
        entry["phrase"] = "6 sad squid snuggle softly"  # Asana's phrase for its support to find the error
    return {"errors": [entry]}


def _compact(call: Call, table: str, gid: Any) -> dict | None:
    """`{gid, resource_type, name}` of the row `gid` names (the acting person for `me`)."""
    if gid is None or gid == "":
        return None
    gid = call.user if gid == "me" and table == "asana_users" else str(gid.get("gid") if isinstance(gid, dict) else gid)
    row = call.state.first(table, gid=gid)
    if row is None:
        raise RestError(400, "invalid", f"{TABLES[table]}: Not a recognized ID: {gid}")
    return {"gid": row["gid"], "resource_type": TABLES[table], "name": row.get("name")}


def _references(call: Call, body: dict, base: Row | None = None) -> dict:
    """The task's references answered as Asana answers them (compact objects)."""
    extra: dict[str, Any] = {}
    if "assignee" in body:
        extra["assignee"] = _compact(call, "asana_users", body["assignee"])
    if "workspace" in body:
        extra["workspace"] = _compact(call, "asana_workspaces", body["workspace"])
    if "parent" in body:
        extra["parent"] = _compact(call, "asana_tasks", body["parent"])
    if "projects" in body:
        projects = [_compact(call, "asana_projects", p) for p in body.get("projects") or []]
        extra["projects"] = projects
        extra["memberships"] = [{"project": p, "section": None} for p in projects]
    if "completed" in body:
        extra["completed_at"] = _now() if body["completed"] else None
    if base is None and "workspace" not in extra:
        first = (extra.get("projects") or [None])[0]
        project = call.state.first("asana_projects", gid=first["gid"]) if first else None
        workspace = (project or {}).get("workspace") or next(iter(call.state.rows("asana_workspaces")), None)
        extra["workspace"] = _compact(call, "asana_workspaces", workspace) if workspace else None
    return extra


def _now() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _data(call: Call) -> dict:
    body = call.body if isinstance(call.body, dict) else {}
    return body.get("data") if isinstance(body.get("data"), dict) else {}


def _of_tasks(resources: Resources, call: Call) -> None:
    """A project's tasks and a task's subtasks are rows of `asana_tasks` (the generator's
    `--rename` joined their tables to it and left their operations to these overrides)."""
    resources.model["operations"][call.operation.short_id]["resource"] = "asana_tasks"


def create_task(resources: Resources, call: Call) -> Any:
    _of_tasks(resources, call)
    extra = _references(call, _data(call))
    if call.params.get("task_gid"):  # a subtask
        extra["parent"] = _compact(call, "asana_tasks", resources.find(call, resources.model["resources"]["asana_tasks"],
                                                                       call.params["task_gid"])["gid"])
    return resources.create(call, {**extra, "created_at": _now(), "modified_at": _now()})


def update_task(resources: Resources, call: Call) -> Any:
    row = resources.find(call, resources.resource(call))
    return resources.update(call, {**_references(call, _data(call), row), "modified_at": _now()})


def add_project(resources: Resources, call: Call) -> Any:
    task = resources.find(call, resources.model["resources"]["asana_tasks"], call.params["task_gid"])
    project = _compact(call, "asana_projects", _data(call).get("project"))
    if project and all(p["gid"] != project["gid"] for p in task.get("projects") or []):
        task = {**task, "projects": [*(task.get("projects") or []), project],
                "memberships": [*(task.get("memberships") or []), {"project": project, "section": None}]}
        call.state.update("asana_tasks", task)
    return {"data": {}}


def create_story(resources: Resources, call: Call) -> Any:
    resources.find(call, resources.model["resources"]["asana_tasks"], call.params["task_gid"])
    return resources.create(call, {"created_by": _compact(call, "asana_users", "me"), "created_at": _now()})


def _page(call: Call, rows: list[Row], schema: Any, resources: Resources) -> dict:
    """One page as Asana pages: everything without `limit`; else `limit` rows and a `next_page`
    whose `offset` token the next call gives back."""
    offset = call.params.get("offset") or "0"
    if not str(offset).isdigit():
        raise RestError(400, "invalid", "offset: Your pagination token is invalid.")
    start, limit = int(offset), call.params.get("limit")
    chosen = rows[start:start + limit] if limit else rows[start:]
    more = bool(limit) and start + limit < len(rows)
    path = "/" + call.operation.path
    for name, value in call.params.items():
        path = path.replace("{" + name + "}", str(value))
    following = {"offset": str(start + limit), "path": f"{path}?limit={limit}&offset={start + limit}",
                 "uri": f"https://app.asana.com/api/1.0{path}?limit={limit}&offset={start + limit}"} if more else None
    items = [resources.schemas.fill(dict(r), resources.schemas.flat(schema)["properties"]["data"]["items"])
             for r in chosen]
    return {"data": items, "next_page": following}


def list_tasks(resources: Resources, call: Call) -> Any:
    """Tasks of a project (path or `project`), a parent task, or an assignee (`me` too) in a
    workspace, in the order they were made."""
    project = call.params.get("project_gid") or call.params.get("project")
    parent = call.params.get("task_gid")
    assignee = call.params.get("assignee")
    assignee = call.user if assignee == "me" else assignee
    if not (project or parent or assignee):
        raise RestError(400, "invalid", "Must specify exactly one of project, tag, section, user task list, or "
                                        "assignee + workspace")
    if call.params.get("project_gid"):
        _compact(call, "asana_projects", project)
    rows = [r for r in call.state.rows("asana_tasks")
            if (not project or any(p["gid"] == project for p in r.get("projects") or []))
            and (not parent or (r.get("parent") or {}).get("gid") == parent)
            and (not assignee or (r.get("assignee") or {}).get("gid") == assignee)]
    return _page(call, rows, resources.response(call.operation.short_id)[1], resources)


def paged(resources: Resources, call: Call) -> Any:
    """A generic list (projects, users, sections, stories, workspaces) paged as Asana pages."""
    resource = resources.resource(call)
    operation = resources.model["operations"][call.operation.short_id]
    equals = {stored: call.params[name] for name, stored in operation.get("filters", {}).items()
              if call.params.get(name) is not None and name not in ("workspace", "team")}
    if resource.get("parent_key"):
        equals[resources.parent_field(resource)] = resources.parent_id(call, resource)
    rows = call.state.rows(resource["table"], **equals)
    workspace = call.params.get("workspace")
    rows = [r for r in rows if not workspace or (r.get("workspace") or {}).get("gid", workspace) == workspace]
    return _page(call, rows, resources.response(call.operation.short_id)[1], resources)


def get_user(resources: Resources, call: Call) -> Any:
    if call.params.get("user_gid") == "me":
        call.params["user_gid"] = call.user
    return resources.read(call)


HANDLERS = {"createTask": create_task, "createSubtaskForTask": create_task, "updateTask": update_task,
            "addProjectForTask": add_project, "createStoryForTask": create_story,
            "getTasks": list_tasks, "getTasksForProject": list_tasks, "getSubtasksForTask": list_tasks,
            "getUser": get_user, **{op: paged for op in ("getProjects", "getUsers", "getWorkspaces",
                                                         "getSectionsForProject", "getStoriesForTask")}}

# Credentials: a personal access token, as asana.Configuration().access_token takes it.
credentials = issuer("2/", {"ASANA_ACCESS_TOKEN": "{token}"})
