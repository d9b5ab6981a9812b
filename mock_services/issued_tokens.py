"""Tokens an environment issues to its users, so that a token says who acts, as a real one does.

A token is `<prefix><user id>-<mac>`: the mac is an HMAC of the user id under a salt that the
environment keeps in its own meta (never in a sandbox), so a program holding one user's token
cannot make another's, and no token works in another environment. Nothing is stored per token.
Tokens stand for nothing outside the environment: they are not secrets to protect.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import NamedTuple

SALT_KEY = "issued_token_salt"  # in the environment's meta, beside EnvironmentInfo's fields


class Credentials(NamedTuple):
    """What a pack issues for an environment: every user's token, and the variables a sandbox gets."""

    tokens: dict[str, str]     # user id -> token
    variables: dict[str, str]  # e.g. SLACK_BOT_TOKEN -> the acting user's token


def new_salt() -> str:
    return secrets.token_hex(16)


def _mac(salt: str, user_id: str) -> str:
    return hmac.new(salt.encode(), user_id.encode(), hashlib.sha256).hexdigest()[:24]


def issue(salt: str | None, prefix: str, user_id: str) -> str | None:
    """The user's token; None for an environment made before tokens were issued (no salt)."""
    return f"{prefix}{user_id}-{_mac(salt, user_id)}" if salt else None


def holder(salt: str | None, prefixes: tuple[str, ...], token: str | None) -> str | None:
    """The user id an issued token names, or None for any other text."""
    if not salt or not token:
        return None
    prefix = next((p for p in prefixes if token.startswith(p)), None)
    if prefix is None:
        return None
    user_id, _, mac = token[len(prefix):].rpartition("-")
    return user_id if user_id and hmac.compare_digest(mac, _mac(salt, user_id)) else None
