"""The GitHub replica's REST surface and git data, through its router on a fresh environment of
`github_default`: the generated table is GitHub's (every operation routed and answered), what
is not modeled says so in GitHub's shape, and the contents API, pull requests and merges are
real git commits over the environment's own objects and refs."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from dulwich.objects import Blob
from fastapi.testclient import TestClient

from mock_services.app import create_replica_app
from mock_services.github.generate_spec import generate
from mock_services.github.git.store import EnvObjectStore, open_repo
from mock_services.github.handlers import MODELED
from mock_services.github.router import API, SPEC, SPEC_FILE
from mock_services.store import EnvironmentStore

DESCRIPTION = (Path(__file__).parents[1] / "node_clients" / "node_modules" / "@octokit" / "openapi" / "generated"
               / "api.github.com.json")


@pytest.fixture
def github(state):
    store = EnvironmentStore(state)
    env = store.create("github_default").env_id
    tokens = store.credentials(env).tokens
    client = TestClient(create_replica_app(state))
    return client, store, env, tokens


def call(github, method: str, path: str, user: str | None = "1", headers: dict | None = None, **kwargs):
    client, _, env, tokens = github
    auth = {"Authorization": f"token {tokens[user]}"} if user else {}
    return client.request(method, f"/api/env/{env}/services/github/{path}", headers={**auth, **(headers or {})},
                          **kwargs)


def test_every_operation_of_the_table_is_answered():
    assert len(SPEC.operations) > 1000 and API.missing() == []
    ids = {o.short_id for o in SPEC.operations}
    assert set(MODELED) <= ids, set(MODELED) - ids


def test_the_table_is_what_the_generator_makes_of_githubs_description():
    assert json.loads(SPEC_FILE.read_text()) == generate(json.loads(DESCRIPTION.read_text()))


def test_what_is_not_modeled_answers_in_githubs_shape(github):
    answer = call(github, "GET", "repos/acme/api/actions/runs")
    assert answer.status_code == 501
    assert answer.json() == {"message": "detour's GitHub replica does not model github.actions/list-workflow-runs-for-"
                                        "repo yet", "documentation_url": "https://docs.github.com/rest", "status": "501"}
    assert call(github, "GET", "no/such/path/here").json()["message"] == "Not Found"


def test_private_repositories_are_404_to_who_may_not_see_them(github):
    assert call(github, "GET", "repos/acme/infra", user=None).status_code == 404
    assert call(github, "GET", "repos/acme/infra").json()["permissions"]["push"] is True
    assert call(github, "GET", "repos/acme/api", user=None).json()["full_name"] == "acme/api"
    assert call(github, "PUT", "repos/acme/api/contents/x.md", user=None,
                json={"message": "m", "content": "eA=="}).status_code == 401


def test_pages_carry_githubs_link_header(github):
    answer = call(github, "GET", "repos/acme/api/issues", params={"state": "all", "per_page": 2, "page": 1})
    assert [i["number"] for i in answer.json()] == [4, 3]
    assert 'page=2>; rel="next"' in answer.headers["link"] and answer.headers["x-ratelimit-limit"] == "5000"


def test_a_contents_write_is_a_commit_on_the_branch_and_its_ref_row(github):
    _, store, env, _ = github
    before = call(github, "GET", "repos/acme/api/branches/main").json()["commit"]["sha"]
    written = call(github, "PUT", "repos/acme/api/contents/docs/limits.md",
                   json={"message": "Document limits", "content": base64.b64encode(b"60/min\n").decode()})
    assert written.status_code == 201
    sha = written.json()["commit"]["sha"]
    assert written.json()["commit"]["parents"][0]["sha"] == before
    read = call(github, "GET", "repos/acme/api/contents/docs/limits.md").json()
    assert base64.b64decode(read["content"]) == b"60/min\n"
    diff = store.diff(env)
    assert [(u["before"]["sha"], u["after"]["sha"]) for u in diff.updates if u["__table__"] == "github_refs"] == [
        (before, sha)]
    assert [r["message"] for r in diff.inserts if r["__table__"] == "github_commits"] == ["Document limits\n"]


def test_objects_live_in_their_environment_alone(github):
    _, store, env, _ = github
    other = store.create("github_default").env_id
    with store.open(env, write=True) as opened:
        objects = EnvObjectStore(opened)
        blob = Blob.from_string(b"only here")
        objects.add_object(blob)
        assert objects[blob.id].data == b"only here"
        main = open_repo(opened, opened.first("github_repositories", name="api")).refs[b"refs/heads/main"]
        assert objects[main].type_name == b"commit"  # read through to the seed's pack
    with store.open(other) as opened:
        assert blob.id not in EnvObjectStore(opened)


def test_a_pull_request_merges_by_each_method_into_real_commits(github):
    opened = call(github, "POST", "repos/acme/api/pulls", json={"title": "Docs", "head": "docs/auth", "base": "main"})
    assert opened.status_code == 201 and opened.json()["mergeable"] is True
    number = opened.json()["number"]
    assert call(github, "POST", "repos/acme/api/pulls", json={"title": "Again", "head": "docs/auth",
                                                                 "base": "main"}).status_code == 422
    squashed = call(github, "PUT", f"repos/acme/api/pulls/{number}/merge", json={"merge_method": "squash"}).json()
    commit = call(github, "GET", f"repos/acme/api/commits/{squashed['sha']}").json()
    assert len(commit["parents"]) == 1 and [f["filename"] for f in commit["files"]] == ["docs/auth.md"]
    rebased = call(github, "PUT", "repos/acme/api/pulls/4/merge", json={"merge_method": "rebase"}).json()
    history = call(github, "GET", "repos/acme/api/commits", params={"sha": rebased["sha"], "per_page": 3}).json()
    assert [c["commit"]["message"] for c in history] == ["Apply the limit to orders", "Rate limit the public endpoints",
                                                         "Docs (#5)\n\n* Document the auth flow"]
    assert call(github, "GET", "repos/acme/api/pulls/4").json()["merged"] is True
    assert call(github, "PUT", "repos/acme/api/pulls/4/merge", json={}).status_code == 405


def test_conflicting_branches_are_not_mergeable(github):
    for branch, text in (("main", "one\n"), ("docs/auth", "two\n")):
        call(github, "PUT", "repos/acme/api/contents/clash.txt",
             json={"message": f"clash on {branch}", "content": base64.b64encode(text.encode()).decode(),
                   "branch": branch})
    opened = call(github, "POST", "repos/acme/api/pulls", json={"title": "Clash", "head": "docs/auth", "base": "main"})
    assert opened.json()["mergeable"] is False and opened.json()["mergeable_state"] == "dirty"
    assert call(github, "PUT", f"repos/acme/api/pulls/{opened.json()['number']}/merge").status_code == 405


def test_the_git_database_api_makes_a_commit_git_would(github):
    main = call(github, "GET", "repos/acme/api/git/ref/heads/main").json()["object"]["sha"]
    base_tree = call(github, "GET", f"repos/acme/api/git/commits/{main}").json()["tree"]["sha"]
    blob = call(github, "POST", "repos/acme/api/git/blobs", json={"content": "aGk=", "encoding": "base64"}).json()
    tree = call(github, "POST", "repos/acme/api/git/trees", json={"base_tree": base_tree, "tree": [
        {"path": "notes/hi.txt", "mode": "100644", "type": "blob", "sha": blob["sha"]}]}).json()
    commit = call(github, "POST", "repos/acme/api/git/commits",
                  json={"message": "By the API", "tree": tree["sha"], "parents": [main]}).json()
    assert call(github, "PATCH", "repos/acme/api/git/refs/heads/docs/auth",
                json={"sha": commit["sha"]}).json()["message"] == "Update is not a fast forward"
    moved = call(github, "PATCH", "repos/acme/api/git/refs/heads/main", json={"sha": commit["sha"]})
    assert moved.json()["object"]["sha"] == commit["sha"]
    listed = call(github, "GET", "repos/acme/api/git/trees/main", params={"recursive": "1"}).json()["tree"]
    assert {"notes/hi.txt", "app/main.py"} <= {e["path"] for e in listed}
    assert base64.b64decode(call(github, "GET", "repos/acme/api/contents/notes/hi.txt").json()["content"]) == b"hi"
    assert [t["name"] for t in call(github, "GET", "repos/acme/api/tags").json()] == ["v1.0.0"]


@pytest.mark.parametrize("query, numbers", [
    ("repo:acme/api is:open label:enhancement", [4, 1]),
    ("author:priya-patel -is:closed", [2]),
    ("rate in:title is:pr", [4]),
    ('label:"documentation" state:closed', [3]),
    ("replicas", [1]),  # in the private infra repository, which members see
])
def test_search_reads_githubs_qualifiers(github, query, numbers):
    found = call(github, "GET", "search/issues", params={"q": query}).json()
    assert [i["number"] for i in found["items"]] == numbers and found["total_count"] == len(numbers)


def test_search_leaves_out_what_the_caller_may_not_see(github):
    assert call(github, "GET", "search/issues", user=None, params={"q": "replicas"}).json()["total_count"] == 0


def test_raw_files_and_archives_read_the_same_refs(github):
    assert call(github, "GET", "acme/api/feature/rate-limits/app/limits.py", user=None).text == "LIMIT_PER_MINUTE = 60\n"
    assert call(github, "GET", "acme/infra/main/README.md", user=None).status_code == 404  # private
    assert call(github, "GET", "acme/infra/main/README.md").text.startswith("# infra")
    link = call(github, "GET", "repos/acme/api/zipball/v1.0.0", follow_redirects=False)
    assert link.headers["location"] == "https://codeload.github.com/acme/api/legacy.zip/v1.0.0"
    archive = call(github, "GET", "acme/api/legacy.zip/v1.0.0")
    names = zipfile.ZipFile(io.BytesIO(archive.content)).namelist()
    assert "api-v1.0.0/app/main.py" in names and "api-v1.0.0/app/orders.py" not in names


def test_collaborators_grant_what_their_permission_says(github):
    # sarah-smith (3) is a member: write on acme's repositories; a collaborator grant raises her to admin
    assert call(github, "GET", "repos/acme/api/collaborators/sarah-smith/permission").json()["permission"] == "write"
    assert call(github, "PATCH", "repos/acme/api", user="3", json={"description": "x"}).status_code == 403
    assert call(github, "PUT", "repos/acme/api/collaborators/sarah-smith", json={"permission": "admin"}).status_code \
        == 403  # the agent is a member, not an admin
    assert call(github, "PUT", "repos/acme/api/collaborators/sarah-smith", user="2",
                json={"permission": "admin"}).status_code == 201
    assert call(github, "PATCH", "repos/acme/api", user="3", json={"description": "x", "topics": []}).json()[
        "description"] == "x"
    assert call(github, "PUT", "repos/acme/api/topics", user="3", json={"names": ["Rest", "api"]}).json() == {
        "names": ["rest", "api"]}


def test_issue_lifecycle_milestones_locks_assignees(github):
    made = call(github, "POST", "repos/acme/api/issues", json={"title": "Flaky test", "milestone": 1,
                                                                "labels": ["bug"], "assignees": ["yuki-tanaka"]})
    number = made.json()["number"]
    assert made.json()["milestone"]["open_issues"] == 2
    call(github, "POST", f"repos/acme/api/issues/{number}/assignees", json={"assignees": ["john-doe"]})
    call(github, "DELETE", f"repos/acme/api/issues/{number}/labels/bug")
    call(github, "PUT", f"repos/acme/api/issues/{number}/lock", json={"lock_reason": "resolved"})
    got = call(github, "GET", f"repos/acme/api/issues/{number}").json()
    assert [a["login"] for a in got["assignees"]] == ["yuki-tanaka", "john-doe"] and got["labels"] == []
    assert (got["locked"], got["active_lock_reason"]) == (True, "resolved")
    assert call(github, "POST", f"repos/acme/api/issues/{number}/comments", user="4",
                json={"body": "me too"}).status_code == 201  # members may still comment on a locked issue
    call(github, "PATCH", f"repos/acme/api/issues/{number}", json={"state": "closed", "state_reason": "not_planned"})
    assert call(github, "GET", "repos/acme/api/milestones/1").json()["closed_issues"] == 1


def test_requested_reviewers_review_comments_and_releases(github):
    asked = call(github, "POST", "repos/acme/api/pulls/4/requested_reviewers", json={"reviewers": ["yuki-tanaka"]})
    assert [u["login"] for u in asked.json()["requested_reviewers"]] == ["yuki-tanaka"]
    call(github, "POST", "repos/acme/api/pulls/4/reviews", user="5", json={"event": "COMMENT", "body": "nit"})
    assert call(github, "GET", "repos/acme/api/pulls/4/requested_reviewers").json()["users"] == []
    comment = call(github, "POST", "repos/acme/api/pulls/4/comments",
                   json={"body": "why 60?", "path": "app/limits.py", "line": 1})
    assert comment.status_code == 201 and comment.json()["path"] == "app/limits.py"
    release = call(github, "POST", "repos/acme/api/releases", json={"tag_name": "v1.1.0", "name": "1.1"})
    assert release.status_code == 201
    assert call(github, "GET", "repos/acme/api/releases/latest").json()["tag_name"] == "v1.1.0"
    assert "v1.1.0" in [t["name"] for t in call(github, "GET", "repos/acme/api/tags").json()]


def test_a_fork_carries_the_refs_and_takes_pushes_of_its_own(github):
    fork = call(github, "POST", "repos/acme/web/forks", json={})
    assert fork.status_code == 202 and fork.json()["full_name"] == "ai-agent/web"
    branches = [b["name"] for b in call(github, "GET", "repos/ai-agent/web/branches").json()]
    assert branches == ["main", "redesign"]
    call(github, "PUT", "repos/ai-agent/web/contents/x.txt", json={"message": "x", "content": "eA=="})
    assert call(github, "GET", "repos/acme/web/contents/x.txt").status_code == 404


def test_conditional_reads_answer_304_until_the_resource_changes(github):
    first = call(github, "GET", "repos/acme/api/issues/1")
    tag = first.headers["etag"]
    client, _, env, tokens = github
    again = client.get(f"/api/env/{env}/services/github/repos/acme/api/issues/1",
                       headers={"Authorization": f"token {tokens['1']}", "If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    call(github, "PATCH", "repos/acme/api/issues/1", json={"title": "Rate limit every endpoint"})
    changed = client.get(f"/api/env/{env}/services/github/repos/acme/api/issues/1",
                         headers={"Authorization": f"token {tokens['1']}", "If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["etag"] != tag


def test_release_assets_upload_and_download(github):
    release = call(github, "POST", "repos/acme/api/releases", json={"tag_name": "v1.2.0"}).json()
    uploaded = call(github, "POST", f"repos/acme/api/releases/{release['id']}/assets", params={"name": "api.tar"},
                    content=b"\x00binary\xff", headers={"Content-Type": "application/x-tar"})
    assert uploaded.status_code == 201 and uploaded.json()["size"] == 8
    listed = call(github, "GET", f"repos/acme/api/releases/{release['id']}").json()["assets"]
    assert [a["name"] for a in listed] == ["api.tar"]
    raw = call(github, "GET", f"repos/acme/api/releases/assets/{listed[0]['id']}",
               headers={"Accept": "application/octet-stream"})
    assert raw.content == b"\x00binary\xff"
    assert call(github, "GET", "acme/api/releases/download/v1.2.0/api.tar").content == b"\x00binary\xff"


def test_a_protected_branch_takes_changes_through_reviewed_pull_requests(github):
    rules = {"required_status_checks": None, "enforce_admins": True, "restrictions": None,
             "required_pull_request_reviews": {"required_approving_review_count": 1}}
    assert call(github, "PUT", "repos/acme/api/branches/main/protection", json=rules).status_code == 403  # a member
    assert call(github, "PUT", "repos/acme/api/branches/main/protection", user="2", json=rules).status_code == 200
    assert call(github, "GET", "repos/acme/api/branches/main").json()["protected"] is True
    written = call(github, "PUT", "repos/acme/api/contents/x.md", json={"message": "direct", "content": "eA=="})
    assert (written.status_code, written.json()["message"]) == (409, "Changes must be made through a pull request.")
    commit = call(github, "GET", "repos/acme/api/branches/docs/auth").json()["commit"]["sha"]
    moved = call(github, "PATCH", "repos/acme/api/git/refs/heads/main", json={"sha": commit, "force": True})
    assert moved.status_code == 422 and "Protected branch update failed" in moved.json()["message"]
    opened = call(github, "POST", "repos/acme/api/pulls", json={"title": "Docs", "head": "docs/auth", "base": "main"})
    number = opened.json()["number"]
    unreviewed = call(github, "PUT", f"repos/acme/api/pulls/{number}/merge", json={})
    assert (unreviewed.status_code, unreviewed.json()["message"]) == (
        405, "At least 1 approving review is required by reviewers with write access.")
    call(github, "POST", f"repos/acme/api/pulls/{number}/reviews", user="2", json={"event": "APPROVE"})
    assert call(github, "PUT", f"repos/acme/api/pulls/{number}/merge", json={}).json()["merged"] is True


@pytest.mark.parametrize("query, paths", [
    ("LIMIT_PER_MINUTE", []),  # only on a branch, not main
    ("routes repo:acme/api", ["app/main.py", "app/routes.py", "tests/test_routes.py"]),
    ("def language:python path:app", ["app/main.py", "app/orders.py", "app/routes.py"]),
    ("replicas extension:yaml", ["deploy/api.yaml"]),  # in the private infra repository, which members see
])
def test_code_search_reads_default_branches(github, query, paths):
    found = call(github, "GET", "search/code", params={"q": query}).json()
    assert sorted(i["path"] for i in found["items"]) == paths


def test_a_team_grants_its_members_what_it_is_given(github):
    made = call(github, "POST", "orgs/acme/teams", user="2", json={"name": "Platform Team", "maintainers": ["john-doe"]})
    assert made.status_code == 201 and made.json()["slug"] == "platform-team"
    assert call(github, "POST", "orgs/acme/teams", json={"name": "Mine"}).status_code == 403  # not an owner
    call(github, "PUT", "orgs/acme/teams/platform-team/memberships/sarah-smith", user="2", json={"role": "member"})
    assert call(github, "PATCH", "repos/acme/infra", user="3", json={"description": "x"}).status_code == 403
    call(github, "PUT", "orgs/acme/teams/platform-team/repos/acme/infra", user="2", json={"permission": "admin"})
    assert call(github, "PATCH", "repos/acme/infra", user="3", json={"description": "x"}).status_code == 200
    assert [m["login"] for m in call(github, "GET", "orgs/acme/teams/platform-team/members").json()] == [
        "john-doe", "sarah-smith"]
    assert [t["permission"] for t in call(github, "GET", "repos/acme/infra/teams").json()] == ["admin"]


def test_reactions_count_on_read(github):
    made = call(github, "POST", "repos/acme/api/issues/1/reactions", json={"content": "rocket"})
    again = call(github, "POST", "repos/acme/api/issues/1/reactions", json={"content": "rocket"})
    assert (made.status_code, again.status_code, again.json()["id"]) == (201, 200, made.json()["id"])
    call(github, "POST", "repos/acme/api/issues/1/reactions", user="2", json={"content": "+1"})
    call(github, "POST", "repos/acme/api/issues/comments/5001/reactions", json={"content": "heart"})
    rollup = call(github, "GET", "repos/acme/api/issues/1").json()["reactions"]
    assert (rollup["total_count"], rollup["rocket"], rollup["+1"]) == (2, 1, 1)
    assert call(github, "GET", "repos/acme/api/issues/comments/5001").json()["reactions"]["heart"] == 1
    assert call(github, "DELETE", f"repos/acme/api/issues/1/reactions/{made.json()['id']}", user="2").status_code == 403
    assert call(github, "POST", "repos/acme/api/issues/1/reactions", json={"content": "wave"}).status_code == 422


def test_a_pull_request_from_a_fork_merges_its_branch(github):
    assert call(github, "POST", "repos/acme/web/forks", json={}).status_code == 202
    call(github, "PUT", "repos/ai-agent/web/contents/src/fork.ts",
         json={"message": "From the fork", "content": "ZXhwb3J0IHt9Owo=", "branch": "main"})
    opened = call(github, "POST", "repos/acme/web/pulls", json={"title": "From my fork", "head": "ai-agent:main",
                                                                 "base": "main"})
    assert opened.status_code == 201, opened.text
    assert (opened.json()["head"]["label"], opened.json()["head"]["repo"]["full_name"]) == ("ai-agent:main",
                                                                                            "ai-agent/web")
    assert [f["filename"] for f in call(github, "GET", f"repos/acme/web/pulls/{opened.json()['number']}/files").json()] \
        == ["src/fork.ts"]
    merged = call(github, "PUT", f"repos/acme/web/pulls/{opened.json()['number']}/merge", user="2", json={})
    assert merged.json()["merged"] is True
    assert call(github, "GET", "repos/acme/web/contents/src/fork.ts").status_code == 200


def test_a_process_that_read_the_seeded_git_objects_exits_without_a_message():
    """The shared pack is closed at exit (dulwich's own close at shutdown printed an ImportError)."""
    code = "from mock_services.github.git.store import seeded; assert seeded().packs"
    done = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).parents[2], timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
