"""The mutations agents use, each the REST operation that does the same (so both faces keep
one rule): createIssue, closeIssue, reopenIssue, addComment, addLabelsToLabelable,
createPullRequest, mergePullRequest. Every other mutation answers that it is not modeled."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLResolveInfo, GraphQLSchema

from mock_services.github.graphql import nodes
from mock_services.github.graphql.resolvers import _full_name, issue_by_id, rest
from mock_services.graphql.context import ctx
from mock_services.graphql.errors import ApiError
from mock_services.store import Row


def _repository(info: GraphQLResolveInfo, node_id: str) -> Row:
    _, number = nodes.decode(node_id, "R")
    found = ctx(info).state.first("github_repositories", id=number)
    if found is None:
        raise ApiError(f"Could not resolve to a node with the global id of '{node_id}'", type="NOT_FOUND")
    return found


def _issue_node(info: GraphQLResolveInfo, repo: Row, number: int) -> dict:
    row = ctx(info).state.first("github_issues", repository_id=repo["id"], number=number)
    return nodes.issue(ctx(info).state, repo, row)  # type: ignore[arg-type]


def _names(info: GraphQLResolveInfo, label_ids: list[str] | None) -> list[str]:
    names = []
    for label_id in label_ids or []:
        _, number = nodes.decode(label_id, "LA")
        found = ctx(info).state.first("github_labels", id=number)
        if found is None:
            raise ApiError(f"Could not resolve to a node with the global id of '{label_id}'", type="NOT_FOUND")
        names.append(found["name"])
    return names


def _logins(info: GraphQLResolveInfo, user_ids: list[str] | None) -> list[str]:
    found = [ctx(info).state.first("github_users", id=nodes.decode(u, "U")[1]) for u in user_ids or []]
    return [u["login"] for u in found if u]


def create_issue(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    repo = _repository(info, input["repositoryId"])
    owner, name = _full_name(info, repo)
    made = rest(info, "issues/create", {"title": input["title"], "body": input.get("body"),
                                        "labels": _names(info, input.get("labelIds")),
                                        "assignees": _logins(info, input.get("assigneeIds"))}, owner=owner, repo=name)
    return {"issue": _issue_node(info, repo, made["number"]), "clientMutationId": input.get("clientMutationId")}


def _set_state(info: GraphQLResolveInfo, input: dict, state: str) -> dict:
    repo, row = issue_by_id(info, input["issueId"])
    owner, name = _full_name(info, repo)
    body = {"state": state}
    if input.get("stateReason"):
        body["state_reason"] = input["stateReason"].lower()
    rest(info, "issues/update", body, owner=owner, repo=name, issue_number=row["number"])
    return {"issue": _issue_node(info, repo, row["number"]), "clientMutationId": input.get("clientMutationId")}


def close_issue(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    return _set_state(info, input, "closed")


def reopen_issue(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    return _set_state(info, input, "open")


def add_comment(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    repo, row = issue_by_id(info, input["subjectId"])
    owner, name = _full_name(info, repo)
    made = rest(info, "issues/create-comment", {"body": input["body"]}, owner=owner, repo=name,
                issue_number=row["number"])
    comment = {"__typename": "IssueComment", "id": f"IC_{made['id']}", "databaseId": made["id"],
               "body": made["body"], "createdAt": made["created_at"], "url": made["html_url"],
               "author": nodes.user(ctx(info).state.first("github_users", id=made["user"]["id"]))}
    return {"commentEdge": {"node": comment, "cursor": ""}, "subject": _issue_node(info, repo, row["number"]),
            "timelineEdge": {"node": comment, "cursor": ""}, "clientMutationId": input.get("clientMutationId")}


def add_labels(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    repo, row = issue_by_id(info, input["labelableId"])
    owner, name = _full_name(info, repo)
    rest(info, "issues/add-labels", {"labels": _names(info, input.get("labelIds"))}, owner=owner, repo=name,
         issue_number=row["number"])
    return {"labelable": _issue_node(info, repo, row["number"]), "clientMutationId": input.get("clientMutationId")}


def create_pull_request(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    repo = _repository(info, input["repositoryId"])
    owner, name = _full_name(info, repo)
    made = rest(info, "pulls/create", {"title": input["title"], "body": input.get("body"), "draft": input.get("draft"),
                                       "head": input["headRefName"], "base": input["baseRefName"]},
                owner=owner, repo=name)
    return {"pullRequest": _issue_node(info, repo, made["number"]), "clientMutationId": input.get("clientMutationId")}


def merge_pull_request(_: Any, info: GraphQLResolveInfo, input: dict) -> dict:
    repo, row = issue_by_id(info, input["pullRequestId"])
    owner, name = _full_name(info, repo)
    body = {"merge_method": (input.get("mergeMethod") or "MERGE").lower(), "commit_title": input.get("commitHeadline"),
            "commit_message": input.get("commitBody"), "sha": input.get("expectedHeadOid")}
    rest(info, "pulls/merge", {k: v for k, v in body.items() if v}, owner=owner, repo=name,
         pull_number=row["number"])
    return {"pullRequest": _issue_node(info, repo, row["number"]), "clientMutationId": input.get("clientMutationId")}


def bind_mutations(schema: GraphQLSchema) -> None:
    mutation = schema.mutation_type
    for name, resolver in {"createIssue": create_issue, "closeIssue": close_issue, "reopenIssue": reopen_issue,
                           "addComment": add_comment, "addLabelsToLabelable": add_labels,
                           "createPullRequest": create_pull_request, "mergePullRequest": merge_pull_request}.items():
        mutation.fields[name].resolve = resolver  # type: ignore[union-attr]
