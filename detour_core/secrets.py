"""Secrets the sandbox never holds: a real value kept beside the environment (0600), and a
placeholder of the same shape that the sandbox gets in its place. The proxy swaps the
placeholder for the value only in requests to the secret's hosts, after the egress rules
allowed them, and only in the parts of the request the secret names (the Authorization header
unless it says more); anywhere else the placeholder stays a placeholder. Every answer from the
secret's hosts has the value (and its common encodings) turned back into the placeholder.

    $DETOUR_HOME/secrets/<env_id>.json   {NAME: {"value", "placeholder", "hosts": [...]}}
    $DETOUR_HOME/secrets/_server.json    the same, for every environment (`detour serve --secret`)
"""

from __future__ import annotations

import json
import os
import re
import secrets
import string
from pathlib import Path

from detour_core.credentials import validate_env_id
from detour_core.errors import DetourError
from detour_core.hosts import host_matches, normal_host
from detour_core.policy import SecretRules, SecretSource, host_pattern
from detour_core.registry import is_replicated_host

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
PREFIX = re.compile(r"^(?:[A-Za-z0-9]{1,8}[-_.])+")  # `sk-ant-`, `xoxb-`, `ghp_`: what clients check
ALPHABET = string.ascii_letters + string.digits
# A placeholder's random part is at least this long: it is random, so nothing of the value shows
# in it at any length, but the proxy puts the value wherever the placeholder turns up in a request
# to the secret's hosts, and fewer random characters could turn up in ordinary text by chance
# (at 8: once in ~2e14 positions). A value with fewer (a PIN) gets a longer placeholder.
SHORTEST_RANDOM = 8
SERVER = "_server"    # the running server's secrets, which every environment has (its own win)


class InvalidSecret(DetourError):
    pass


class Secret(SecretRules):
    name: str
    value: str
    placeholder: str
    hosts: list[str]

    def covers(self, host: str) -> bool:
        host = normal_host(host)
        return any(host_matches(host, h) for h in self.hosts)


def placeholder_for(value: str) -> str:
    """The value's prefix (where a client checks the shape), then random letters and digits to
    the value's length (at least SHORTEST_RANDOM of them): the same length, so an answer that
    echoes the value inside base64 keeps the bytes after it where they were."""
    prefix = (PREFIX.match(value) or [""])[0]
    if len(prefix) > len(value) // 2:
        prefix = ""
    size = max(len(value) - len(prefix), SHORTEST_RANDOM)
    while True:
        made = prefix + "".join(secrets.choice(ALPHABET) for _ in range(size))
        if value not in made and made not in value:
            return made


class SecretStore:
    """An environment's secrets, in a file only detour's user reads."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder  # StatePaths.secrets_dir

    def _file(self, env_id: str) -> Path:
        return self.folder / f"{env_id if env_id == SERVER else validate_env_id(env_id)}.json"

    def _own(self, env_id: str) -> dict[str, Secret]:
        try:
            data = json.loads(self._file(env_id).read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise InvalidSecret(f"the secrets of {env_id} cannot be read: {e}") from None
        return {name: Secret(name=name, **entry) for name, entry in data.items()}

    def all(self, env_id: str) -> dict[str, Secret]:
        """The environment's secrets and the server's (the environment's own win a name)."""
        return {**self._own(SERVER), **self._own(env_id)}

    def placeholders(self, env_id: str) -> dict[str, str]:
        """What a sandbox of the environment gets: each secret's name and placeholder."""
        return {name: secret.placeholder for name, secret in self.all(env_id).items()}

    def set(self, env_id: str, name: str, value: str, hosts: list[str],
            rules: SecretRules | None = None) -> Secret:
        """`env_id` SERVER keeps it for every environment; `rules` say where the value may go."""
        if not NAME.fullmatch(name):
            raise InvalidSecret(f"{name!r} is not a variable name (letters, digits and _, not first a digit)")
        if not value:
            raise InvalidSecret(f"the value of {name} is empty")
        if not hosts:
            raise InvalidSecret(f"{name} needs --host: the hosts its value may be sent to")
        try:
            checked = [host_pattern(h.strip()) for h in hosts if h.strip()]
        except ValueError as e:
            raise InvalidSecret(str(e)) from None
        if replicas := [h for h in checked if is_replicated_host(h)]:
            raise InvalidSecret(f"{name}: {', '.join(replicas)} is answered by its replica, where a secret is never "
                                "sent: secrets go to hosts passed through (--allow) only")
        current = self._own(env_id)
        kept = current.get(name)
        placeholder = kept.placeholder if kept and kept.value == value else placeholder_for(value)
        current[name] = Secret(name=name, value=value, placeholder=placeholder, hosts=checked,
                               **(rules or SecretRules()).model_dump())
        self._write(env_id, current)
        return current[name]

    def take(self, env_id: str, sources: list[SecretSource]) -> None:
        """A policy file's secrets, each read from its source now (all read before any is kept)."""
        values = [(source, source.value()) for source in sources]
        for source, value in values:
            self.set(env_id, source.name, value, source.hosts, SecretRules.model_validate(
                source.model_dump(include=set(SecretRules.model_fields))))

    def remove(self, env_id: str, name: str) -> None:
        current = self._own(env_id)
        if name not in current:
            raise InvalidSecret(f"{env_id} has no secret {name}")
        del current[name]
        self._write(env_id, current)

    def copy(self, env_id: str, into: str) -> None:
        """A fork's secrets: the same values and placeholders as its parent's."""
        own = self._own(env_id)
        if own:
            self._write(into, own)

    def forget(self, env_id: str) -> None:
        """When the environment goes, its secrets go with it."""
        self._file(env_id).unlink(missing_ok=True)

    def _write(self, env_id: str, found: dict[str, Secret]) -> None:
        """Written 0640 under another name and renamed: a reader never sees half a file. The
        folder is 0700, or (a proxy under its own user, detour/proxy_user.py) its group's, which
        is the proxy's: it reads what it injects, nobody else does."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = self._file(env_id)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
        with os.fdopen(fd, "w") as out:
            json.dump({n: s.model_dump(exclude={"name"}) for n, s in found.items()}, out)
        tmp.replace(path)
