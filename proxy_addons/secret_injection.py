"""Secrets injected at the boundary: the sandbox holds placeholders, the proxy puts the real
value in their place only in requests its rules allowed to pass through to the secret's own
hosts (headers, query, body), and puts the placeholder back once the request has left, so
nothing after it (the audit record above all) ever sees the value.

A placeholder sent anywhere else (another allowed host, a replica, a denied host) goes as it
is, and the request's record names the secret whose placeholder it carried. A body large
enough to stream (RequestLimits) passes unread: a placeholder in it stays a placeholder.
"""

from __future__ import annotations

from pathlib import Path

from mitmproxy import ctx, http

from detour_core.secrets import SERVER, InvalidSecret, Secret, SecretStore
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.verdict import METADATA_KEY

SWAPPED_KEY = "detour.secrets_swapped"


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def _body(request: http.Request) -> str | None:
    """The body as text, where it was read (a streamed one was not)."""
    return request.get_text(strict=False) if not request.stream and request.raw_content else None


def carries(request: http.Request, text: str) -> bool:
    return (any(text in value for _, value in request.headers.items(multi=True)) or text in request.path
            or text in (_body(request) or ""))


def swap(request: http.Request, old: str, new: str) -> bool:
    """Replace `old` with `new` in the request's headers, path and body; whether it was there."""
    if not carries(request, old):
        return False
    request.headers = http.Headers([(n.encode(), v.replace(old, new).encode())
                                    for n, v in request.headers.items(multi=True)])
    request.path = request.path.replace(old, new)
    body = _body(request)
    if body is not None and old in body:
        request.text = body.replace(old, new)
    return True


class SecretInjector:
    def __init__(self) -> None:
        self.cache: dict[str, tuple[tuple, dict[str, Secret]]] = {}

    def load(self, loader) -> None:
        loader.add_option("detour_secrets_dir", str, "", "Folder of <env_id>.json secrets (detour_core.secrets).")

    def secrets_of(self, env_id: str) -> dict[str, Secret]:
        """Read again when the file changes, so `detour env secret set` applies to the next request."""
        folder = Path(ctx.options.detour_secrets_dir)
        stamp = tuple(_mtime(folder / f"{name}.json") for name in (env_id, SERVER))
        if stamp == (None, None):
            return {}
        cached = self.cache.get(env_id)
        if cached is None or cached[0] != stamp:
            try:
                found = SecretStore(folder).all(env_id)
            except (InvalidSecret, ValueError) as e:
                ctx.log.warn(f"detour: ignoring the secrets of {env_id}: {e}")
                found = {}
            cached = self.cache[env_id] = (stamp, found)
        return cached[1]

    def request(self, flow: http.HTTPFlow) -> None:
        env_id, verdict = flow.metadata.get(ENV_KEY), flow.metadata.get(METADATA_KEY)
        if not env_id or verdict is None or not ctx.options.detour_secrets_dir:
            return
        swapped, carried = [], []
        for secret in self.secrets_of(env_id).values():
            mine = verdict.decision == "allowed" and flow.response is None and secret.covers(verdict.host)
            if mine and swap(flow.request, secret.placeholder, secret.value):
                swapped.append(secret)
            elif not mine and carries(flow.request, secret.placeholder):
                carried.append(secret.name)
        if swapped:
            flow.metadata[SWAPPED_KEY] = swapped
            verdict.secrets = [s.name for s in swapped]
        if carried:
            verdict.placeholders = carried

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        self.restore(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        self.restore(flow)

    @staticmethod
    def restore(flow: http.HTTPFlow) -> None:
        """The request has left: the placeholders go back before anything records it."""
        for secret in flow.metadata.pop(SWAPPED_KEY, []):
            swap(flow.request, secret.value, secret.placeholder)
