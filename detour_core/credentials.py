"""Environment credentials: `<env_id>:<secret>` where the secret is an HMAC of the id.

Deriving the secret from a key on disk means the proxy needs no database lookup and no
shared state with the replicas to check a credential: it only needs the key file.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from detour_core.errors import DetourError
from detour_core.paths import StatePaths

ENV_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")


class InvalidEnvId(DetourError, ValueError):
    pass


def validate_env_id(env_id: str) -> str:
    if not ENV_ID_PATTERN.fullmatch(env_id):
        raise InvalidEnvId(
            f"invalid environment id {env_id!r}: use 1-63 letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return env_id


def new_env_id() -> str:
    return "env-" + secrets.token_hex(6)


def load_or_create_key(path: Path) -> bytes:
    """Read the signing key, creating it (mode 0600) on first use."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    try:
        os.link(tmp, path)  # fails if another process created the key first; theirs wins
    except FileExistsError:
        pass
    finally:
        tmp.unlink()
    return path.read_bytes()


def env_secret(key: bytes, env_id: str) -> str:
    return hmac.new(key, env_id.encode(), hashlib.sha256).hexdigest()[:32]


def check_secret(key: bytes, env_id: str, secret: str) -> bool:
    return hmac.compare_digest(env_secret(key, env_id), secret)


def api_key(state: StatePaths) -> str:
    """The platform API's key, created (0600) on first use."""
    return load_or_create_key(state.api_key_file).hex()


def secret_for(state: StatePaths, env_id: str) -> str:
    return env_secret(load_or_create_key(state.signing_key), env_id)
