"""Which environment a flow belongs to.

Regular mode: from proxy credentials `<env_id>:<secret>`. A CONNECT authenticates its
whole tunnel, as in mitmproxy's proxyauth addon; a plain HTTP proxy request authenticates
itself. A missing or wrong secret gets 407 and never reaches a replica.

Transparent mode: from the client's address, which the namespace backend registers for
the lifetime of a sandbox. A sandbox with a registered address may use only its own
environment's credentials in regular mode too.

Reverse mode (the gateway that rewrite-mode preludes call): from an
`X-Detour-Credentials: <env_id>:<secret>` header, or from a registered address.
"""

from __future__ import annotations

import weakref
from pathlib import Path

from mitmproxy import connection, ctx, exceptions, http
from mitmproxy.addons.proxyauth import parse_http_basic_auth

from detour_core.credentials import ENV_ID_PATTERN, check_secret
from detour_core.registry import CREDENTIALS_HEADER
from proxy_addons.verdict import METADATA_KEY, Verdict, json_response

ENV_KEY = "detour.env_id"
REALM = 'Basic realm="detour"'


class EnvAuth:
    def __init__(self) -> None:
        self.key: bytes | None = None
        self.addresses = ""
        self.tunnels: weakref.WeakKeyDictionary[connection.Client, str] = weakref.WeakKeyDictionary()

    def load(self, loader) -> None:
        loader.add_option("detour_signing_key", str, "",
                          "Path of the key that signs environment credentials.")
        loader.add_option("detour_sandbox_addresses", str, "",
                          "Folder of files named by sandbox address, holding its environment id.")

    def configure(self, updated: set[str]) -> None:
        if "detour_sandbox_addresses" in updated:  # kept: an option read costs a deep copy
            self.addresses = ctx.options.detour_sandbox_addresses
        if "detour_signing_key" in updated:
            path = ctx.options.detour_signing_key
            if not path:
                raise exceptions.OptionsError("detour_signing_key is required")
            try:
                self.key = Path(path).read_bytes()
            except OSError as e:
                raise exceptions.OptionsError(f"cannot read detour_signing_key {path}: {e}") from None

    def registered_env(self, client: connection.Client) -> str | None:
        """The environment a namespace sandbox at this client address was started for."""
        return self.registered_at(client.peername)

    def registered_at(self, peer: tuple | None) -> str | None:
        folder = self.addresses
        if not folder or not peer:
            return None
        try:
            return (Path(folder) / peer[0]).read_text().strip() or None
        except (OSError, ValueError):
            return None

    def credentials(self, flow: http.HTTPFlow) -> tuple[str | None, bool]:
        """The claimed env id (if well-formed) and whether its secret checks out."""
        if flow.client_conn.proxy_mode.type_name == "reverse":
            env_id, _, secret = flow.request.headers.pop(CREDENTIALS_HEADER, "").partition(":")
        else:
            try:
                _, env_id, secret = parse_http_basic_auth(flow.request.headers.pop("Proxy-Authorization", ""))
            except ValueError:
                return None, False
        return self.checked(env_id, secret)

    def checked(self, env_id: str, secret: str) -> tuple[str | None, bool]:
        if not ENV_ID_PATTERN.fullmatch(env_id):
            return None, False
        assert self.key is not None
        return env_id, check_secret(self.key, env_id, secret)

    def proven(self, authorization: str, peer: tuple | None) -> str | None:
        """The environment a regular-mode Proxy-Authorization proves for the client at `peer`;
        None wherever `authenticate` would refuse (the fast path then leaves the flow to it)."""
        try:
            _, env_id, secret = parse_http_basic_auth(authorization)
        except ValueError:
            return None
        found, ok = self.checked(env_id, secret)
        registered = self.registered_at(peer)
        return found if ok and registered in (None, found) else None

    def refuse(self, flow: http.HTTPFlow, env_id: str | None, reason: str) -> None:
        flow.metadata[METADATA_KEY] = Verdict(
            decision="unauthorized", env_id=env_id, host=flow.request.host, port=flow.request.port,
            scheme=flow.request.scheme, path=flow.request.path, reason=reason)
        if flow.client_conn.proxy_mode.type_name != "regular":
            flow.response = json_response(403, "unauthorized", {"error": "unauthorized", "reason": reason})
            return
        flow.response = json_response(
            407, "unauthorized",
            {"error": "proxy_authentication_required", "reason": reason,
             "detail": "detour: use http://<env_id>:<env_secret>@proxy as the proxy URL"},
            **{"Proxy-Authenticate": REALM})

    def authenticate(self, flow: http.HTTPFlow) -> str | None:
        env_id, ok = self.credentials(flow)
        registered = self.registered_env(flow.client_conn)
        if not ok and registered and env_id is None and flow.client_conn.proxy_mode.type_name == "reverse":
            env_id, ok = registered, True  # a namespace sandbox is known by its address
        if not ok:
            self.refuse(flow, env_id, "missing proxy credentials" if env_id is None else "wrong environment secret")
            return None
        if registered and registered != env_id:
            # Logged under the sandbox that tried it, not the environment it claimed.
            self.refuse(flow, registered, f"credentials of another environment ({env_id})")
            return None
        flow.metadata[ENV_KEY] = env_id
        return env_id

    def http_connect(self, flow: http.HTTPFlow) -> None:
        if flow.response or flow.error:
            return
        env_id = self.authenticate(flow)
        if env_id:
            self.tunnels[flow.client_conn] = env_id

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response or flow.error or not flow.live:
            return
        if flow.client_conn in self.tunnels:
            flow.metadata[ENV_KEY] = self.tunnels[flow.client_conn]
        elif flow.client_conn.proxy_mode.type_name == "transparent":
            env_id = self.registered_env(flow.client_conn)
            if env_id is None:
                self.refuse(flow, None, "client address belongs to no sandbox")
            else:
                flow.metadata[ENV_KEY] = env_id
        else:
            self.authenticate(flow)
