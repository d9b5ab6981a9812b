"""The state-backed part of GitHub's GraphQL API: `viewer`, `repository` (its issues, pull
requests, refs, one issue or pull request by number), `search` for issues and pull requests,
`node`/`nodes`, and the mutations agents use. Mutations run the REST handlers themselves
(one rule per fact: a GraphQL merge is the REST merge), through a `Call` made for them."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLResolveInfo, GraphQLSchema

from mock_services.github import access
from mock_services.github.graphql import nodes
from mock_services.github.handlers import MODELED
from mock_services.github.handlers.closing import closing_pulls
from mock_services.github.table import SPEC
from mock_services.graphql.context import ctx
from mock_services.graphql.errors import ApiError
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

KINDS = {404: "NOT_FOUND", 401: "FORBIDDEN", 403: "FORBIDDEN"}


def rest(info: GraphQLResolveInfo, operation: str, body: Any = None, **params: Any) -> Any:
    """The REST handler of `operation`, as the viewer, in this request's transaction."""
    call = Call(ctx(info).state, SPEC.operation(operation), params, body, {}, None, user=ctx(info).viewer_id)
    try:
        return MODELED[operation](call)
    except RestError as failed:
        details = "; ".join(e.get("message", "") for e in (failed.details or {}).get("errors", []) if e.get("message"))
        raise ApiError(details or failed.message, type=KINDS.get(failed.status, "UNPROCESSABLE")) from None


def _repository(info: GraphQLResolveInfo, owner: str, name: str) -> Row:
    try:
        return access.repository(ctx(info).state, ctx(info).viewer_id, owner, name)
    except RestError:
        raise ApiError(f"Could not resolve to a Repository with the name '{owner}/{name}'.",
                       type="NOT_FOUND") from None


def _full_name(info: GraphQLResolveInfo, repo: Row) -> tuple[str, str]:
    owner = ctx(info).state.first("github_users", id=repo["owner_id"])
    return owner["login"], repo["name"]  # type: ignore[index]


def viewer(_: Any, info: GraphQLResolveInfo) -> dict:
    found = nodes.user(ctx(info).state.first("github_users", id=access.user_id(ctx(info).viewer_id)))
    if found is None:  # a token acting as someone this environment's GitHub does not have
        raise ApiError("Could not resolve to a User for the viewer.", type="NOT_FOUND")
    return found


def repository(_: Any, info: GraphQLResolveInfo, owner: str, name: str, **__: Any) -> dict:
    return nodes.repository(ctx(info).state, _repository(info, owner, name))


def _issues(info: GraphQLResolveInfo, parent: dict, pull: bool, args: dict) -> dict:
    state, repo = ctx(info).state, parent["_row"]
    rows = [r for r in state.rows("github_issues", repository_id=repo["id"]) if bool(r.get("pull_request")) == pull]
    shaped = [nodes.issue(state, repo, r) for r in rows]
    if args.get("states"):
        shaped = [n for n in shaped if n["state"] in args["states"]]
    if args.get("labels"):
        shaped = [n for n in shaped if set(args["labels"]) & set(n["_row"].get("labels", []))]
    for key in ("headRefName", "baseRefName"):
        if args.get(key):
            shaped = [n for n in shaped if n.get(key) == args[key]]
    if (args.get("orderBy") or {}).get("direction") == "DESC":
        shaped.reverse()
    return nodes.connection(shaped, **args)


def repo_issues(parent: dict, info: GraphQLResolveInfo, **args: Any) -> dict:
    return _issues(info, parent, False, args)


def repo_pulls(parent: dict, info: GraphQLResolveInfo, **args: Any) -> dict:
    return _issues(info, parent, True, args)


def _one(info: GraphQLResolveInfo, parent: dict, number: int, pull: bool | None) -> dict | None:
    row = ctx(info).state.first("github_issues", repository_id=parent["_row"]["id"], number=number)
    if row is None or (pull is not None and bool(row.get("pull_request")) != pull):
        kind = "PullRequest" if pull else "Issue"
        raise ApiError(f"Could not resolve to an {kind} with the number of {number}.", type="NOT_FOUND")
    return nodes.issue(ctx(info).state, parent["_row"], row)


def repo_issue(parent: dict, info: GraphQLResolveInfo, number: int) -> dict | None:
    return _one(info, parent, number, False)


def repo_pull(parent: dict, info: GraphQLResolveInfo, number: int) -> dict | None:
    return _one(info, parent, number, True)


def repo_issue_or_pull(parent: dict, info: GraphQLResolveInfo, number: int) -> dict | None:
    return _one(info, parent, number, None)


def _refs(info: GraphQLResolveInfo, repo: Row) -> dict[str, str]:
    return {r["ref"]: r["sha"] for r in ctx(info).state.rows("github_refs", repository_id=repo["id"])}


def default_branch_ref(parent: dict, info: GraphQLResolveInfo) -> dict | None:
    name = f"refs/heads/{parent['_row']['default_branch']}"
    sha = _refs(info, parent["_row"]).get(name)
    return nodes.ref(name, sha) if sha else None


def repo_ref(parent: dict, info: GraphQLResolveInfo, qualifiedName: str) -> dict | None:
    refs = _refs(info, parent["_row"])
    for name in (qualifiedName, f"refs/heads/{qualifiedName}", f"refs/tags/{qualifiedName}"):
        if name in refs:
            return nodes.ref(name, refs[name])
    return None


def repo_refs(parent: dict, info: GraphQLResolveInfo, refPrefix: str, **args: Any) -> dict:
    found = [nodes.ref(n, s) for n, s in sorted(_refs(info, parent["_row"]).items()) if n.startswith(refPrefix)]
    return nodes.connection(found, **args)


def labels(parent: dict, info: GraphQLResolveInfo, **args: Any) -> dict:
    state, repo = ctx(info).state, parent["_repo"]
    found = [state.first("github_labels", repository_id=repo["id"], name=n) for n in parent["_row"].get("labels", [])]
    return nodes.connection([{"__typename": "Label", "id": f"LA_{r['id']}", "name": r["name"], "color": r["color"],
                              "description": r.get("description")} for r in found if r], **args)


def comments(parent: dict, info: GraphQLResolveInfo, **args: Any) -> dict:
    state, repo = ctx(info).state, parent["_repo"]
    rows = state.rows("github_issue_comments", repository_id=repo["id"], issue_number=parent["number"])
    return nodes.connection([{"__typename": "IssueComment", "id": f"IC_{r['id']}", "databaseId": r["id"],
                              "body": r["body"], "createdAt": r["created_at"], "updatedAt": r["updated_at"],
                              "author": nodes.user(state.first("github_users", id=r["user_id"]))} for r in rows],
                            **args)


def reviews(parent: dict, info: GraphQLResolveInfo, **args: Any) -> dict:
    state, repo = ctx(info).state, parent["_repo"]
    rows = state.rows("github_reviews", repository_id=repo["id"], pull_number=parent["number"])
    if args.get("states"):
        rows = [r for r in rows if r["state"] in args["states"]]
    return nodes.connection([{"__typename": "PullRequestReview", "id": f"PRR_{r['id']}", "state": r["state"],
                              "body": r.get("body") or "", "submittedAt": r.get("submitted_at"),
                              "author": nodes.user(state.first("github_users", id=r["user_id"]))} for r in rows],
                            **args)


def closed_by(parent: dict, info: GraphQLResolveInfo, includeClosedPrs: bool = False, **args: Any) -> dict:
    """The pull requests that close the issue by a keyword (the link GitHub shows on it)."""
    state = ctx(info).state
    call = Call(state, SPEC.operation("issues/get"), {}, None, {}, None, user=ctx(info).viewer_id)
    found = closing_pulls(call, parent["_repo"], parent["_row"], includeClosedPrs)
    return nodes.connection([nodes.issue(state, repo, state.first("github_issues", repository_id=repo["id"],
                                                                  number=pull["number"])) for repo, pull in found],
                            **args)


def _pull_answer(info: GraphQLResolveInfo, parent: dict) -> dict:
    owner, name = _full_name(info, parent["_repo"])
    return rest(info, "pulls/get", owner=owner, repo=name, pull_number=parent["number"])


def mergeable(parent: dict, info: GraphQLResolveInfo) -> str:
    return {True: "MERGEABLE", False: "CONFLICTING"}.get(_pull_answer(info, parent)["mergeable"], "UNKNOWN")


def merge_state(parent: dict, info: GraphQLResolveInfo) -> str:
    """GitHub's merge box: CLEAN, DIRTY (conflicts), DRAFT, or UNKNOWN once closed."""
    if parent.get("isDraft"):
        return "DRAFT"
    return _pull_answer(info, parent)["mergeable_state"].upper()


def viewer_permission(parent: dict, info: GraphQLResolveInfo) -> str | None:
    role = access.role_on(ctx(info).state, ctx(info).viewer_id, parent["_row"])
    return role.upper() if role else None


def search(_: Any, info: GraphQLResolveInfo, query: str, type: str, **args: Any) -> dict:
    if type != "ISSUE":
        return {**nodes.connection([]), "issueCount": 0, "repositoryCount": 0, "userCount": 0, "codeCount": 0,
                "discussionCount": 0, "wikiCount": 0}
    found = rest(info, "search/issues-and-pull-requests", q=query, per_page=100, page=1)
    state = ctx(info).state
    shaped = []
    for item in found["items"]:
        row = state.first("github_issues", id=item["id"])
        shaped.append(nodes.issue(state, state.first("github_repositories", id=row["repository_id"]), row))  # type: ignore
    return {**nodes.connection(shaped, **args), "issueCount": len(shaped), "repositoryCount": 0, "userCount": 0,
            "codeCount": 0, "discussionCount": 0, "wikiCount": 0}


def node(_: Any, info: GraphQLResolveInfo, id: str) -> dict | None:
    state = ctx(info).state
    prefix, number = nodes.decode(id, "R", "I", "PR", "U")
    if prefix == "R":
        row = state.first("github_repositories", id=number)
        if row and access.role_on(state, ctx(info).viewer_id, row):
            return nodes.repository(state, row)
    elif prefix == "U":
        return nodes.user(state.first("github_users", id=number))
    else:
        found = issue_by_id(info, id)
        return nodes.issue(state, found[0], found[1])
    raise ApiError(f"Could not resolve to a node with the global id of '{id}'", type="NOT_FOUND")


def issue_by_id(info: GraphQLResolveInfo, node_id: str) -> tuple[Row, Row]:
    """(repository, issue row) of an issue's or a pull request's node id the viewer may see."""
    state = ctx(info).state
    prefix, number = nodes.decode(node_id, "I", "PR")
    if prefix == "PR":
        pull = state.first("github_pulls", id=number)
        row = state.first("github_issues", repository_id=pull["repository_id"], number=pull["number"]) if pull else None
    else:
        row = state.first("github_issues", id=number)
    repo = state.first("github_repositories", id=row["repository_id"]) if row else None
    if row is None or repo is None or not access.role_on(state, ctx(info).viewer_id, repo):
        raise ApiError(f"Could not resolve to a node with the global id of '{node_id}'", type="NOT_FOUND")
    return repo, row


def bind(schema: GraphQLSchema) -> None:
    fields = {("Query", "viewer"): viewer, ("Query", "repository"): repository, ("Query", "search"): search,
              ("Query", "node"): node,
              ("Query", "nodes"): lambda _, info, ids: [node(None, info, i) for i in ids],
              ("Repository", "issues"): repo_issues, ("Repository", "pullRequests"): repo_pulls,
              ("Repository", "issue"): repo_issue, ("Repository", "pullRequest"): repo_pull,
              ("Repository", "issueOrPullRequest"): repo_issue_or_pull,
              ("Repository", "defaultBranchRef"): default_branch_ref, ("Repository", "ref"): repo_ref,
              ("Repository", "refs"): repo_refs, ("Repository", "viewerPermission"): viewer_permission}
    for kind in ("Issue", "PullRequest"):
        fields.update({(kind, "labels"): labels, (kind, "comments"): comments})
    fields[("Issue", "closedByPullRequestsReferences")] = closed_by
    fields.update({("PullRequest", "reviews"): reviews, ("PullRequest", "mergeable"): mergeable,
                   ("PullRequest", "mergeStateStatus"): merge_state})
    for (type_name, field_name), resolver in fields.items():
        schema.type_map[type_name].fields[field_name].resolve = resolver  # type: ignore[union-attr]
