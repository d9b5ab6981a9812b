"""Who may see and change what: a user's role on a file, from owning it or from permissions on
it or on a folder above it (reader < commenter < writer < owner), as Drive decides it. A file
the user has no role on is Google's 404 (Drive never says a file exists to someone who cannot
see it); a role too small for what is asked is 403 `insufficientFilePermissions`."""

from __future__ import annotations

from dataclasses import dataclass, field

from mock_services.rest.errors import RestError
from mock_services.issued_tokens import Credentials
from mock_services.rest.google import issue_token, token_user
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

ROLES = ("none", "reader", "commenter", "writer", "owner")
ALIASES = {"fileOrganizer": "writer", "organizer": "writer"}  # shared drives' roles, as My Drive reads them
VIEW_KEY = "drive:view"


def rank(role: str) -> int:
    role = ALIASES.get(role, role)
    return ROLES.index(role) if role in ROLES else 0


def credentials(state: EnvState) -> Credentials:
    """An OAuth access token per user; a sandbox gets the acting user's as GOOGLE_OAUTH_ACCESS_TOKEN."""
    tokens = {u["id"]: issue_token(u["id"]) for u in state.rows("drive_users")}
    own = tokens.get(state.info.acting_user)
    return Credentials(tokens, {"GOOGLE_OAUTH_ACCESS_TOKEN": own} if own else {})


def identify(state: EnvState, token: str | None, _headers: dict[str, str]) -> str:
    """The token's user where it names one of the environment's users, else the acting user."""
    named = token_user(token)
    if named and state.first("drive_users", id=named):
        return named
    return state.info.acting_user


@dataclass
class View:
    """The environment's users, files and permissions, read once per call (a role walks the
    folders above a file, and a list asks it of every file)."""

    users: dict[str, Row]
    files: dict[str, Row]
    permissions: dict[str, list[Row]]
    roles: dict[tuple[str, str, bool], str] = field(default_factory=dict)

    def user_by_email(self, email: str) -> Row | None:
        return next((u for u in self.users.values() if str(u.get("email", "")).lower() == email.lower()), None)

    def ancestors(self, row: Row) -> list[Row]:
        """The folders above `row`, nearest first (a cycle cannot be made, but is not followed)."""
        found: list[Row] = []
        parents = row.get("parents") or []
        while parents and parents[0] in self.files and all(f["id"] != parents[0] for f in found):
            found.append(self.files[parents[0]])
            parents = found[-1].get("parents") or []
        return found

    def trashed(self, row: Row) -> bool:
        """Trashing a folder trashes what is in it (`trashed`; `explicitlyTrashed` is the row's own)."""
        return bool(row.get("trashed")) or any(a.get("trashed") for a in self.ancestors(row))

    def role(self, row: Row, user_id: str, listing: bool = False) -> str:
        """`listing`: as a search sees it, where a link that anyone may open is no reason to list."""
        key = (row["id"], user_id, listing)
        if key not in self.roles:
            self.roles[key] = self._role(row, user_id, listing)
        return self.roles[key]

    def _role(self, row: Row, user_id: str, listing: bool) -> str:
        email = str(self.users.get(user_id, {}).get("email", "")).lower()
        best = "none"
        for item in [row, *self.ancestors(row)]:
            if item.get("owner_id") == user_id:
                return "owner"
            for permission in self.permissions.get(item["id"], []):
                if applies(permission, email, listing) and rank(permission["role"]) > rank(best):
                    best = ALIASES.get(permission["role"], permission["role"])
        return best

    def direct(self, row: Row, user_id: str) -> Row | None:
        """The permission that shares `row` itself with the user (what `sharedWithMe` reads)."""
        email = str(self.users.get(user_id, {}).get("email", "")).lower()
        return next((p for p in self.permissions.get(row["id"], [])
                     if p["type"] in ("user", "group") and str(p.get("email", "")).lower() == email), None)


def applies(permission: Row, email: str, listing: bool) -> bool:
    kind = permission.get("type")
    if kind in ("user", "group"):
        return bool(email) and str(permission.get("email", "")).lower() == email
    if kind == "domain":
        return email.endswith("@" + str(permission.get("domain", "")).lower()) and \
            (not listing or bool(permission.get("allow_file_discovery")))
    return kind == "anyone" and not listing


def view(call: Call) -> View:
    if VIEW_KEY not in call.memo:
        permissions: dict[str, list[Row]] = {}
        for permission in call.state.rows("drive_permissions"):
            permissions.setdefault(permission["file_id"], []).append(permission)
        call.memo[VIEW_KEY] = View({u["id"]: u for u in call.state.rows("drive_users")},
                                   {f["id"]: f for f in call.state.rows("drive_files")}, permissions)
    return call.memo[VIEW_KEY]


def changed(call: Call) -> None:
    """After a write: the next view reads the rows again."""
    call.memo.pop(VIEW_KEY, None)


def me(call: Call) -> Row:
    return view(call).users.get(call.user) or {"id": call.user, "email": "", "display_name": ""}


def root_id(call: Call) -> str:
    return str(me(call).get("root_folder_id") or "")


def not_found(file_id: str) -> RestError:
    return RestError(404, "notFound", f"File not found: {file_id}.")


def file(call: Call, file_id: str, at_least: str = "reader") -> Row:
    """The file (`root` is the user's My Drive) if the user may do what `at_least` allows."""
    seen = view(call)
    row = seen.files.get(root_id(call) if file_id == "root" else file_id)
    if row is None or seen.role(row, call.user) == "none":
        raise not_found(file_id)
    if rank(seen.role(row, call.user)) < rank(at_least):
        raise RestError(403, "insufficientFilePermissions", "The user does not have sufficient permissions for this file.")
    return row
