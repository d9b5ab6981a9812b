"""Which of the Jira replica's REST operations backs each tool of Atlassian's hosted MCP server
(`https://mcp.atlassian.com/v1/mcp`). The tools (spec/mcp_tools.json) name the site by its cloud
ID, which the replica (one site per environment) does not need. A tool not named here, such as
Confluence's, answers that the replica does not back it."""

from __future__ import annotations

from mock_services.mcp.operations import Arguments, Operation, Rest

API = "/rest/api/3"
ISSUE = API + "/issue/{issueIdOrKey}"
SITE = ("cloudId",)


def _new_issue(arguments: Arguments) -> Arguments:
    """The tool's flat arguments as Jira's `fields`."""
    fields = {"project": {"key": arguments["projectKey"]}, "issuetype": {"name": arguments["issueTypeName"]},
              "summary": arguments["summary"]}
    if "description" in arguments:
        fields["description"] = arguments["description"]
    if "assignee_account_id" in arguments:
        fields["assignee"] = {"accountId": arguments["assignee_account_id"]}
    if "parent" in arguments:
        fields["parent"] = {"key": arguments["parent"]}
    return {"fields": fields}


OPERATIONS: dict[str, Operation] = {
    "getVisibleJiraProjects": Rest("GET", API + "/project/search", rename={"searchString": "query"},
                                   omit=(*SITE, "action")),
    "getJiraIssue": Rest("GET", ISSUE, omit=SITE),
    "searchJiraIssuesUsingJql": Rest("GET", API + "/search/jql", omit=SITE),
    "createJiraIssue": Rest("POST", API + "/issue", omit=SITE, prepare=_new_issue),
    "editJiraIssue": Rest("PUT", ISSUE, omit=SITE),
    "getTransitionsForJiraIssue": Rest("GET", ISSUE + "/transitions", omit=SITE),
    "transitionJiraIssue": Rest("POST", ISSUE + "/transitions", omit=SITE),
    "addCommentToJiraIssue": Rest("POST", ISSUE + "/comment", rename={"commentBody": "body"}, omit=SITE),
}
