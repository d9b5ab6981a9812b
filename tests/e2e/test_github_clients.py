"""GitHub's whole loop, run unmodified in a sandbox through the proxy: Debian's `git` clones
`https://github.com/acme/api`, commits and pushes a new branch (HTTP basic with the issued
token, as a credential helper gives it); PyGithub opens a pull request from that branch, an
admin protects main (a direct push to it is then declined, an unreviewed merge refused),
reviews it, and the agent merges it; `git fetch` brings the merge commit down. The
diff shows the pull request, its review, the merge commit and the moved ref."""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_docker, needs_namespaces

AGENT = r'''
import json, os, subprocess, tempfile
from github import Auth, Github

work = tempfile.mkdtemp()
helper = '!f() { echo username=x-access-token; echo "password=$GITHUB_TOKEN"; }; f'
env = {**os.environ, "HOME": work, "GIT_TERMINAL_PROMPT": "0"}

def git(*args, cwd=None):
    done = subprocess.run(["git", "-c", f"credential.helper={helper}", "-c", "user.name=AI Agent",
                           "-c", "user.email=agent@example.com", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git {args[0]} failed: {done.stderr}")
    return done.stdout.strip()

out = {}
clone = os.path.join(work, "api")
git("clone", "-q", "https://github.com/acme/api.git", clone)
out["cloned"] = sorted(os.listdir(os.path.join(clone, "app")))
out["tags"] = git("tag", cwd=clone).split()
git("checkout", "-q", "-b", "agent/timeouts", cwd=clone)
with open(os.path.join(clone, "app", "timeouts.py"), "w") as f:
    f.write("TIMEOUT_S = 30\n")
git("add", "app/timeouts.py", cwd=clone)
git("commit", "-q", "-m", "Add request timeouts", cwd=clone)
pushed = git("rev-parse", "HEAD", cwd=clone)
git("push", "-q", "origin", "agent/timeouts", cwd=clone)

agent = Github(auth=Auth.Token(os.environ["GITHUB_TOKEN"]))
repo = agent.get_repo("acme/api")
out["me"] = agent.get_user().login
pr = repo.create_pull(base="main", head="agent/timeouts", title="Request timeouts", body="30 s everywhere.")
out["pr"] = [pr.number, pr.state, pr.head.sha == pushed, pr.mergeable, [f.filename for f in pr.get_files()]]
reviewer = Github(auth=Auth.Token("REVIEWER_TOKEN"))
reviewer.get_repo("acme/api").get_branch("main").edit_protection(required_approving_review_count=1)
pushed_to_main = subprocess.run(["git", "-c", f"credential.helper={helper}", "push", "origin", "agent/timeouts:main"],
                                cwd=clone, env=env, capture_output=True, text=True)
out["main_refused"] = "protected branch hook declined" in pushed_to_main.stderr
try:
    pr.merge(merge_method="merge")
except Exception as e:
    out["unreviewed_merge"] = e.status
reviewer.get_repo("acme/api").get_pull(pr.number).create_review(event="APPROVE", body="Ship it")
out["reviews"] = [(r.user.login, r.state) for r in pr.get_reviews()]
try:
    pr.create_review(event="APPROVE")
except Exception as e:
    out["own_approval"] = e.status
merged = pr.merge(merge_method="merge")
out["merged"] = [merged.merged, repo.get_pull(pr.number).merged]
git("fetch", "-q", "origin", cwd=clone)
tip = git("log", "-1", "--format=%H %P", "origin/main", cwd=clone).split()
out["fetched"] = [tip[0] == merged.sha, tip[2] == pushed, len(tip)]
out["open_issues"] = [i.number for i in repo.get_issues(state="open")]
print(json.dumps(out))
'''


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_git_and_pygithub_through_the_proxy(live_stack, backend):
    env = live_stack.env("github_default")
    tokens = live_stack.store.credentials(env).tokens
    john = next(str(u["id"]) for u in _users(live_stack, env) if u["login"] == "john-doe")
    result = live_stack.run(env, AGENT.replace("REVIEWER_TOKEN", tokens[john]), ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["cloned"] == ["__init__.py", "main.py", "orders.py", "routes.py"]
    assert out["tags"] == ["v1.0.0"]
    assert out["me"] == "ai-agent"
    assert out["pr"] == [5, "open", True, True, ["app/timeouts.py"]]
    assert out["reviews"] == [["john-doe", "APPROVED"]]
    assert out["own_approval"] == 422
    assert (out["main_refused"], out["unreviewed_merge"]) == (True, 405)  # main is protected by then
    assert out["merged"] == [True, True]
    assert out["fetched"] == [True, True, 3]  # the merge commit: itself and two parents
    assert out["open_issues"] == [4, 2, 1]  # GitHub lists pull requests among issues
    assert {r.host for r in result.requests} == {"github.com", "api.github.com"}

    diff = result.diff
    inserted = sorted(row["__table__"] for row in diff.inserts)
    assert inserted == ["github_branch_protections", "github_commits", "github_commits", "github_issues",
                        "github_pulls", "github_refs", "github_reviews"]
    branch = next(r for r in diff.inserts if r["__table__"] == "github_refs")
    assert branch["ref"] == "refs/heads/agent/timeouts"
    merge = next(r for r in diff.inserts if r["__table__"] == "github_commits" and len(r["parents"]) == 2)
    assert merge["message"].startswith("Merge pull request #5 from acme/agent/timeouts")
    review = next(r for r in diff.inserts if r["__table__"] == "github_reviews")
    assert (review["state"], review["pull_number"]) == ("APPROVED", 5)
    moved = {u["after"]["ref"]: (u["before"]["sha"], u["after"]["sha"]) for u in diff.updates
             if u["__table__"] == "github_refs"}
    assert moved["refs/heads/main"][1] == merge["sha"]
    pull = next(r for r in diff.inserts if r["__table__"] == "github_pulls")
    assert (pull["number"], pull["head_ref"], pull["merge_commit_sha"]) == (5, "agent/timeouts", merge["sha"])
    assert {u["__table__"] for u in diff.updates} == {"github_refs", "github_repositories"}
    assert not diff.deletes


def _users(live_stack, env: str) -> list[dict]:
    with live_stack.store.open(env) as state:
        return state.rows("github_users")


REST_ONLY = r'''
import json, os
from github import Auth, Github
repo = Github(auth=Auth.Token(os.environ["GITHUB_TOKEN"])).get_repo("acme/api")
issue = repo.create_issue(title="Both ways", body="made by PyGithub", labels=["bug"])
print(json.dumps([issue.number, [i.title for i in repo.get_issues(labels=["bug"])]]))
'''


@pytest.mark.parametrize("mode", [pytest.param("proxy", marks=needs_namespaces),
                                  pytest.param("rewrite", marks=needs_namespaces)])
def test_pygithub_works_through_the_proxy_and_in_rewrite_mode(live_stack, mode):
    env = live_stack.env("github_default")
    result = live_stack.run(env, REST_ONLY, ".py", backend="namespace", mode=mode)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [5, ["Both ways", "Orders route returns nothing"]]
    made = [r for r in result.diff.inserts if r["__table__"] == "github_issues"]
    assert [(r["title"], r["labels"], r["user_id"]) for r in made] == [("Both ways", ["bug"], 1)]


GITHUBKIT = r'''
import json, os
from githubkit import GitHub
gh = GitHub(os.environ["GITHUB_TOKEN"])
me = gh.rest.users.get_authenticated().parsed_data.login
pull = gh.rest.pulls.create("acme", "api", title="Auth docs", head="docs/auth", base="main").parsed_data
merged = gh.rest.pulls.merge("acme", "api", pull.number, merge_method="rebase").parsed_data
files = [f.filename for f in gh.rest.pulls.list_files("acme", "api", pull.number).parsed_data]
pulls = [p.number for p in gh.paginate(gh.rest.pulls.list, owner="acme", repo="api", state="all", per_page=1)]
print(json.dumps([me, pull.number, merged.merged, files, pulls]))
'''


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_githubkit_through_the_proxy(live_stack, backend):
    """githubkit checks every answer against its models (pydantic, from GitHub's description)."""
    env = live_stack.env("github_default")
    result = live_stack.run(env, GITHUBKIT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == ["ai-agent", 5, True, ["docs/auth.md"], [5, 4]]
    assert [u["after"]["ref"] for u in result.diff.updates if u["__table__"] == "github_refs"] == ["refs/heads/main"]
