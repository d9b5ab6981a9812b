"""Secrets injected at the boundary: the sandbox holds placeholders, the proxy puts the real
value in their place only in requests its rules allowed to pass through to the secret's own
hosts, and only in the parts of the request the secret names (`inject`: the Authorization header
and the `headers` it names by default, the query or the body where it says so), and puts the
placeholder back once the request has left, so nothing after it (the audit record above all)
ever sees the value. Answers are answer_scrubbing's concern.

A placeholder sent anywhere else (another part of the request, another allowed host, a replica,
a denied host) goes as it is, and the request's record names the secret whose placeholder it
carried. A body large enough to stream (RequestLimits) leaves before the `request` hook: its
headers and query are swapped at `requestheaders`, its body chunk by chunk as it passes.
"""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from mitmproxy import ctx, http

from detour_core.audit import Verdict
from detour_core.secret_encodings import literal
from detour_core.secrets import SERVER, InvalidSecret, Secret, SecretStore
from proxy_addons.chunk_replacer import ChunkReplacer, Needle
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.verdict import METADATA_KEY

SWAPPED_KEY = "detour.secrets_swapped"
# The secrets whose hosts an allowed request goes to: their values are scrubbed from its answer.
HOST_SECRETS_KEY = "detour.host_secrets"
EVERY_PART = frozenset({"header", "query", "body"})


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
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


def _query(request: http.Request) -> str:
    return request.path.partition("?")[2]


def carries(request: http.Request, text: str, parts: frozenset[str] = EVERY_PART,
            headers: frozenset[str] | None = None) -> bool:
    """Whether `text` is in the request's `parts`; its header part is every header, or `headers`."""
    return (("header" in parts and any(text in value for name, value in request.headers.items(multi=True)
                                       if headers is None or name.lower() in headers))
            or ("query" in parts and text in _query(request)) or ("body" in parts and text in (_body(request) or "")))


def swap(request: http.Request, old: str, new: str, parts: frozenset[str] = EVERY_PART,
         headers: frozenset[str] | None = None) -> bool:
    """Replace `old` with `new` in the request's `parts` (the header part: every header, or only
    `headers`); whether it was there."""
    if not carries(request, old, parts, headers):
        return False
    if "header" in parts:
        request.headers = http.Headers([(n.encode(), (v.replace(old, new) if headers is None or n.lower() in headers
                                                      else v).encode()) for n, v in request.headers.items(multi=True)])
    if "query" in parts and "?" in request.path:
        path, _, query = request.path.partition("?")
        request.path = f"{path}?{query.replace(old, new)}"
    body = _body(request) if "body" in parts else None
    if body is not None and old in body:
        request.text = body.replace(old, new)
    return True


def _where(secret: Secret) -> tuple[frozenset[str], frozenset[str]]:
    """The parts of a request the secret may go in, and its header names."""
    return frozenset(secret.inject), secret.header_names()


class SecretInjector:
    def __init__(self) -> None:
        self.cache: dict[str, tuple[tuple, dict[str, Secret]]] = {}
        self.folder = ""  # the option's value, kept: an option read costs a deep copy

    def load(self, loader) -> None:
        loader.add_option("detour_secrets_dir", str, "", "Folder of <env_id>.json secrets (detour_core.secrets).")

    def configure(self, updated: set[str]) -> None:
        if "detour_secrets_dir" in updated:
            self.folder = ctx.options.detour_secrets_dir

    def secrets_of(self, env_id: str) -> dict[str, Secret]:
        """Read again when the file changes, so `detour env secret set` applies to the next request."""
        stamp = (_mtime(os.path.join(self.folder, f"{env_id}.json")), _mtime(os.path.join(self.folder, f"{SERVER}.json")))
        if stamp == (None, None):
            self.cache.pop(env_id, None)
            return {}
        cached = self.cache.get(env_id)
        if cached is None or cached[0] != stamp:
            try:
                found = SecretStore(Path(self.folder)).all(env_id)
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
        if not env_id or verdict is None or not self.folder:
            return
        found, swapped, own, needles = partial(note, verdict), [], [], []
        allowed = verdict.decision == "allowed" and flow.response is None
        for secret in self.secrets_of(env_id).values():
            mine = allowed and secret.covers(flow.request.host)  # where it goes: a model route may move it
            parts, headers = _where(secret) if mine else (frozenset(), frozenset())
            if mine:
                own.append(secret)
            if mine and swap(flow.request, secret.placeholder, secret.value, parts, headers):
                swapped.append(secret)
                found(secret.name, True)
            if carries(flow.request, secret.placeholder):  # what is left: a part it may not go in
                found(secret.name, False)
            if streamed:  # a value of another length than its placeholder would break the declared length
                equal = len(secret.value.encode()) == len(secret.placeholder.encode())
                form = literal(secret.placeholder.encode(), secret.value.encode())
                needles.append(Needle(form, secret.name, replace="body" in parts and equal))
        if own:
            flow.metadata[HOST_SECRETS_KEY] = own
        if swapped:
            flow.metadata[SWAPPED_KEY] = swapped
        if needles:
            flow.request.stream = ChunkReplacer(needles, found)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        self.restore(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        self.restore(flow)

    @staticmethod
    def restore(flow: http.HTTPFlow) -> None:
        """The request has left: the placeholders go back before anything records it."""
        for secret in flow.metadata.pop(SWAPPED_KEY, []):
            swap(flow.request, secret.value, secret.placeholder)

