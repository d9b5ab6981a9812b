"""Credentials for generated packs: each row of the pack's users table gets a token issued as
the vendor's look (`sk_test_...`, `pat-na1-...`), and a sandbox gets the acting user's under the
variables the vendor's own client reads. A pack says which in its overrides, as data:

    credentials = issuer("sk_test_", {"STRIPE_API_KEY": "{token}"})

A variable's value is a template over `token`, the acting user's row (`{user[emailAddress]}`),
and the host and subdomain of that row's own URL (`self` or `url`: `acme.atlassian.net`, `acme`).
An environment that requires issued tokens refuses a request that presents none of them (as a
bearer token, or as either half of HTTP Basic: Twilio's SID:token, Jira's email:token).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from urllib.parse import urlsplit

from detour_core.registry import pack
from mock_services.issued_tokens import SALT_KEY, Credentials, issue
from mock_services.rest.errors import RestError
from mock_services.store import EnvState, Row


def _site(row: Row) -> str:
    """The tenant's host the user's own URL names (Jira's `self`, Zendesk's `url`), if any."""
    return urlsplit(str(row.get("self") or row.get("url") or "")).hostname or ""


def issuer(prefix: str, variables: dict[str, str]) -> Callable[[EnvState], Credentials]:
    """The pack's credentials hook: a token per user, and `variables` for the acting user."""

    def credentials(state: EnvState) -> Credentials:
        descriptor = pack(state.service)
        key = descriptor.primary_key(descriptor.users_table)[0]
        salt = state.meta(SALT_KEY)
        users = {str(row[key]): row for row in state.rows(descriptor.users_table) if key in row}
        tokens = {uid: token for uid in users if (token := issue(salt, prefix, uid))}
        acting = str(state.info.acting_user)
        if acting not in tokens:
            return Credentials(tokens, {})
        site = _site(users[acting])
        values = {"token": tokens[acting], "user": users[acting], "host": site, "subdomain": site.split(".")[0]}
        return Credentials(tokens, {name: template.format(**values) for name, template in variables.items()})
    return credentials


Identify = Callable[[EnvState, "str | None", dict[str, str]], str]


def presented(token: str | None, headers: dict[str, str]) -> set[str]:
    """Every secret a request shows: its bearer token, both halves of its HTTP Basic, PagerDuty's
    `Token token=…`, Discord's `Bot …` and GitLab's `PRIVATE-TOKEN` header."""
    shown = {token} if token else set()
    if headers.get("private-token"):
        shown.add(headers["private-token"])
    value = headers.get("authorization", "")
    scheme, _, rest = value.partition(" ")
    if scheme.lower() in ("token", "bot"):
        shown.add(rest.strip().removeprefix("token="))
    if value.lower().startswith("basic "):
        try:
            shown |= set(base64.b64decode(value.split(" ", 1)[1]).decode().split(":", 1))
        except (ValueError, UnicodeDecodeError, binascii.Error):
            pass
    return shown


def requiring_issued(identify: Identify, credentials: Callable[[EnvState], Credentials]) -> Identify:
    """`identify`, after a check that the request shows a token the environment issued, where the
    environment requires issued tokens (`--require-issued-tokens`)."""

    def checked(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
        if state.info.require_issued_tokens and not presented(token, headers) & set(credentials(state).tokens.values()):
            raise RestError(401, "unauthorized", "Invalid credentials: not a token this environment issued.")
        return identify(state, token, headers)
    return checked
