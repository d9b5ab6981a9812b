"""Linear as its API words and @linear/sdk types it, through the proxy with the SDK: errors
(an unknown id, a bad or missing key), paging backwards, a label filter on another team,
deleting a deleted comment, and the access-key release documents."""

from __future__ import annotations

import json

AGENT = r'''
import { LinearClient, LinearErrorType } from "@linear/sdk";
const linear = new LinearClient({ apiKey: "lin_api_agent" });
const out = {};
const failure = async (promise) => {
  try { await promise; return null; } catch (e) { return [e.type, e.errors?.[0]?.message ?? e.message]; }
};
out.unknown = await failure(linear.issue("ENG-999"));
out.badKey = (await failure(new LinearClient({ apiKey: "not-a-linear-key" }).viewer))?.[0] ?? "accepted";
out.noKey = (await failure(new LinearClient({ apiKey: " " }).viewer))?.[0] ?? "accepted";
const all = (await linear.issues()).nodes.map((i) => i.identifier);
const oldest = await linear.issues({ last: 2 });
const lastTwo = oldest.nodes.map((i) => i.identifier);
await oldest.fetchPrevious();
out.backwards = [lastTwo, oldest.nodes.map((i) => i.identifier), oldest.pageInfo.hasPreviousPage, all];
const eng = await linear.team("ENG");
await linear.createIssueLabel({ name: "company-wide" });
await linear.createIssueLabel({ name: "roadmap", teamId: (await linear.team("PROD")).id });
const others = await linear.issueLabels({ filter: { team: { id: { neq: eng.id } } } });
out.otherLabels = await Promise.all(others.nodes.map(async (l) => [l.name, (await l.team)?.key ?? null]));
const issue = await linear.issue("ENG-1");
const comment = await (await linear.createComment({ issueId: issue.id, body: "short-lived" })).comment;
await linear.deleteComment(comment.id);
out.deletedTwice = await failure(linear.deleteComment(comment.id));
out.release = (await linear.latestReleaseByAccessKey) ?? null;
out.pipeline = (await linear.releasePipelineByAccessKey).includePathPatterns;
console.log(JSON.stringify(out));
'''


def test_linear_errors_paging_filters_and_documents_through_the_proxy(live_stack):
    result = live_stack.run(live_stack.env("linear_default"), AGENT, ".mjs")
    assert result.exit_code == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["unknown"] == ["InvalidInput", "Entity not found - Could not find referenced Issue."]
    assert out["badKey"] == "AuthenticationError" and out["noKey"] == "AuthenticationError"
    last_two, both_pages, more_before, every = out["backwards"]
    assert last_two == every[-2:] and both_pages == every and not more_before
    assert sorted(out["otherLabels"]) == [["UX", None], ["company-wide", None], ["roadmap", "PROD"]]
    assert out["deletedTwice"] == ["InvalidInput", "Entity not found - Could not find referenced Comment."]
    assert out["release"] is None and out["pipeline"] == []
