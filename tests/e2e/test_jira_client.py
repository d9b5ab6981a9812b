"""The `jira` Python client, run unmodified in a sandbox against a tenant's site
(acme.atlassian.net, routed by the pack's `*.atlassian.net`), reaches the environment's Jira
replica (a pack generated from Atlassian's OpenAPI description of the platform REST API v3; the
client speaks v2, which answers as v3) through the proxy: who am I, projects, an issue created by
type name, a comment, a workflow transition by name, JQL search (Cloud's enhanced search), Jira's
404; the diff shows what it changed."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from jira import JIRA, JIRAError

jira = JIRA(server="https://acme.atlassian.net", basic_auth=("agent@example.com", "api-token"))
out = {"me": jira.myself()["displayName"], "projects": sorted(p.key for p in jira.projects())}
issue = jira.create_issue(project="ACME", summary="Write the release notes", issuetype="Task",
                          description="For 1.0")
out["created"] = [issue.key, issue.fields.status.name, issue.fields.reporter.emailAddress]
jira.add_comment(issue, "Drafted in the wiki")
jira.transition_issue(issue, "In Progress")
out["moved"] = jira.issue(issue.key).fields.status.name
out["in_progress"] = [i.key for i in jira.search_issues('project = ACME AND status = "In Progress" ORDER BY key')]
out["yuki"] = [i.fields.summary for i in jira.search_issues('assignee = "yuki@example.com"')]
out["comments"] = [c.body for c in jira.comments(issue)]
try:
    jira.issue("ACME-999")
except JIRAError as e:
    out["missing"] = e.status_code
print(json.dumps(out))
'''

EXPECTED = {"me": "AI Agent", "projects": ["ACME", "OPS"],
            "created": ["ACME-4", "To Do", "agent@example.com"], "moved": "In Progress",
            "in_progress": ["ACME-1", "ACME-4"], "yuki": ["Fix the login redirect loop"],
            "comments": ["Drafted in the wiki"], "missing": 404}


@pytest.mark.parametrize("backend", ISOLATING)
def test_jira_python_through_the_proxy(live_stack, backend):
    result = run_official_client(live_stack, "jira_default", AGENT, EXPECTED, {"acme.atlassian.net"},
                                 ["jira_issue", "jira_issue_comment"], backend)
    issue = next(row for row in result.diff.inserts if row["__table__"] == "jira_issue")
    assert (issue["key"], issue["fields"]["status"]["name"]) == ("ACME-4", "In Progress")
