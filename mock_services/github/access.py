"""Who acts and what they may see and do: tokens the environment issues per user (GitHub's
classic `ghp_` and fine-grained `github_pat_` prefixes), and a user's role on a repository.

A repository's owner, and an admin of the organization that owns it, are `admin`; the
organization's members `write`; a collaborator, or a member of a team the repository is given
to, what was granted (pull, triage, push, maintain, admin); anyone else `read` on a public
repository and nothing on a private one, which GitHub answers with 404 (not 403) so that its
existence does not leak.
"""

from __future__ import annotations

import base64

from mock_services.github import errors
from mock_services.issued_tokens import SALT_KEY, Credentials, holder, issue
from mock_services.rest.errors import RestError
from mock_services.store import EnvState, Row

CLASSIC, FINE_GRAINED = "ghp_", "github_pat_"
PREFIXES = (FINE_GRAINED, CLASSIC)
ROLES = ("read", "triage", "write", "maintain", "admin")
PERMISSIONS = {"pull": "read", "triage": "triage", "push": "write", "maintain": "maintain", "admin": "admin"}
ANONYMOUS = 0


# git's credential helper for github.com: the token the sandbox holds, as GitHub takes it.
GIT_HELPER = '!f() { echo username=x-access-token; echo "password=$GITHUB_TOKEN"; }; f'


def git_config(settings: dict[str, str]) -> dict[str, str]:
    """git settings as the variables git reads its configuration from (GIT_CONFIG_COUNT and
    GIT_CONFIG_KEY_n/VALUE_n, git >= 2.31): above config files, below `git -c`."""
    variables = {"GIT_CONFIG_COUNT": str(len(settings))}
    for n, (key, value) in enumerate(settings.items()):
        variables |= {f"GIT_CONFIG_KEY_{n}": key, f"GIT_CONFIG_VALUE_{n}": value}
    return variables


def credentials(state: EnvState) -> Credentials:
    """Every user's classic token; a sandbox gets the acting user's as GITHUB_TOKEN and GH_TOKEN
    (what `gh`, Octokit and most scripts read), and git's configuration: a credential helper
    for github.com that answers with that token and the user's name and email, so a plain
    `git clone`, `git commit` and `git push` work."""
    salt = state.meta(SALT_KEY)
    users = {str(u["id"]): u for u in state.rows("github_users", type="User")}
    tokens = {uid: t for uid in users if (t := issue(salt, CLASSIC, uid))}
    own = tokens.get(str(state.info.acting_user))
    if not own:
        return Credentials(tokens, {})
    me = users[str(state.info.acting_user)]
    return Credentials(tokens, {"GITHUB_TOKEN": own, "GH_TOKEN": own} | git_config({
        "credential.https://github.com.helper": GIT_HELPER, "user.name": me.get("name") or me["login"],
        "user.email": me.get("email") or f"{me['login']}@users.noreply.github.com"}))


def presented_token(headers: dict[str, str]) -> str | None:
    """`Authorization: token T`, `Bearer T`, or HTTP basic with the token as password (git)."""
    scheme, _, value = headers.get("authorization", "").strip().partition(" ")
    scheme = scheme.lower()
    if scheme in ("token", "bearer"):
        return value.strip() or None
    if scheme == "basic":
        try:
            user, _, password = base64.b64decode(value.strip()).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return password or user or None
    return None


def identify(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
    """The acting user's id as text; "0" for a caller with no credentials (public reads only).
    An issued token names its user; another token acts as the environment's user unless the
    environment requires issued tokens, where GitHub's 401 answers."""
    token = presented_token(headers)
    if token is None:
        return str(ANONYMOUS)
    named = holder(state.meta(SALT_KEY), PREFIXES, token)
    if named and named.isdigit() and state.first("github_users", id=int(named)):
        return named
    if state.info.require_issued_tokens:
        raise errors.bad_credentials()
    return str(state.info.acting_user)


def user_id(user: str) -> int:
    return int(user) if user.isdigit() else ANONYMOUS


def role_on(state: EnvState, user: str, repository: Row) -> str | None:
    """The best of GitHub's roles the user holds on the repository; None: it is hidden from them."""
    uid = user_id(user)
    if uid and repository["owner_id"] == uid:
        return "admin"
    member = state.first("github_org_members", org_id=repository["owner_id"], user_id=uid) if uid else None
    granted = state.first("github_collaborators", repository_id=repository["id"], user_id=uid) if uid else None
    teams = {m["team_id"] for m in state.rows("github_team_members", user_id=uid)} if uid else set()
    through_teams = [PERMISSIONS.get(t["permission"]) for t in state.rows("github_team_repos",
                                                                           repository_id=repository["id"])
                     if t["team_id"] in teams]
    found = [role for role in ("admin" if member and member["role"] == "admin" else "write" if member else None,
                               PERMISSIONS.get(granted["permission"]) if granted else None,
                               None if repository.get("private") else "read", *through_teams) if role]
    return max(found, key=ROLES.index) if found else None


def repository(state: EnvState, user: str, owner: str, name: str, needs: str = "read") -> Row:
    """The repository `owner/name`, if the user may `needs` on it: 404 where they may not see
    it, 403 where their role is too small."""
    account = state.first("github_users", login=owner) or _case_insensitive(state, owner)
    found = None
    if account is not None:
        found = next((r for r in state.rows("github_repositories", owner_id=account["id"])
                      if r["name"].lower() == name.lower()), None)
    role = role_on(state, user, found) if found else None
    if found is None or role is None:
        raise errors.not_found()
    if ROLES.index(role) < ROLES.index(needs):
        if user_id(user) == ANONYMOUS:
            raise errors.unauthorized() if needs != "read" else errors.not_found()
        raise RestError(403, "forbidden", f"Must have {needs} access to repository")
    return found


def _case_insensitive(state: EnvState, login: str) -> Row | None:
    return next((u for u in state.rows("github_users") if u["login"].lower() == login.lower()), None)


def account(state: EnvState, login: str) -> Row:
    found = state.first("github_users", login=login) or _case_insensitive(state, login)
    if found is None:
        raise errors.not_found()
    return found
