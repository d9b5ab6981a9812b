"""Secrets injected at the boundary: the sandbox holds placeholders, the proxy puts the real
value in their place only in requests its rules allowed to pass through to the secret's own
hosts (headers, query, body), and puts the placeholder back once the request has left, so
nothing after it (the audit record above all) ever sees the value.

A placeholder sent anywhere else (another allowed host, a replica, a denied host) goes as it
is, and the request's record names the secret whose placeholder it carried. A body large
enough to stream (RequestLimits) leaves before the `request` hook: its headers and path are
swapped at `requestheaders`, its body chunk by chunk as it passes (StreamedBody).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from mitmproxy import ctx, http

from detour_core.audit import Verdict
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


def note(verdict: Verdict, name: str, swapped: bool) -> None:
    """Adds a secret the request carried to its verdict: put in (`secrets`), or left (`placeholders`)."""
    field = "secrets" if swapped else "placeholders"
    names = getattr(verdict, field) or []
    if name not in names:
        setattr(verdict, field, [*names, name])


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


class StreamedBody:
    """A streaming body's placeholders, swapped for their values (`swaps`) or only noticed
    (`watched`) chunk by chunk. A placeholder may straddle two chunks, so each chunk's last bytes
    wait for the next. The body's length was declared before it came, so only values as long as
    their placeholders are swapped here; `found(name, swapped)` tells of each one met."""

    def __init__(self, swaps: dict[str, Secret], watched: dict[str, Secret], found: Callable[[str, bool], None]):
        self.swaps = {p.encode(): (s.name, s.value.encode()) for p, s in swaps.items()}
        self.watched = {p.encode(): s.name for p, s in watched.items()}
        self.found = found
        self.keep = max(map(len, [*self.swaps, *self.watched]), default=1) - 1
        self.held = b""

    def __call__(self, chunk: bytes) -> Iterable[bytes]:
        data = self.held + chunk
        for placeholder, (name, value) in self.swaps.items():
            if placeholder in data:
                self.found(name, True)
                data = data.replace(placeholder, value)
        for placeholder, name in self.watched.items():
            if placeholder in data:
                self.found(name, False)
        cut = len(data) if not chunk else max(0, len(data) - self.keep)  # an empty chunk is the end
        self.held = data[cut:]
        return [data[:cut]] if cut else []  # never an empty chunk, which would end a chunked body


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

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        """A streamed body's headers leave before `request`: they are swapped now, its body as it goes."""
        if flow.request.stream is True:
            self.inject(flow, streamed=True)

    def request(self, flow: http.HTTPFlow) -> None:
        if not flow.request.stream:
            self.inject(flow)

    def inject(self, flow: http.HTTPFlow, streamed: bool = False) -> None:
        env_id, verdict = flow.metadata.get(ENV_KEY), flow.metadata.get(METADATA_KEY)
        if not env_id or verdict is None or not ctx.options.detour_secrets_dir:
            return
        swapped, found, mine_in_body, watched = [], partial(note, verdict), {}, {}
        for secret in self.secrets_of(env_id).values():
            mine = verdict.decision == "allowed" and flow.response is None and secret.covers(verdict.host)
            if mine and swap(flow.request, secret.placeholder, secret.value):
                swapped.append(secret)
                found(secret.name, True)
            elif not mine and carries(flow.request, secret.placeholder):
                found(secret.name, False)
            if streamed:  # a value of another length than its placeholder would break the declared length
                equal = mine and len(secret.value.encode()) == len(secret.placeholder.encode())
                (mine_in_body if equal else watched)[secret.placeholder] = secret
        if swapped:
            flow.metadata[SWAPPED_KEY] = swapped
        if mine_in_body or watched:
            flow.request.stream = StreamedBody(mine_in_body, watched, found)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        self.restore(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        self.restore(flow)

    @staticmethod
    def restore(flow: http.HTTPFlow) -> None:
        """The request has left: the placeholders go back before anything records it."""
        for secret in flow.metadata.pop(SWAPPED_KEY, []):
            swap(flow.request, secret.value, secret.placeholder)

