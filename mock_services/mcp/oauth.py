"""OAuth at an MCP host, as the vendors with it publish it (a pack's `McpSurface.oauth`): the
protected resource's metadata (RFC 9728), the authorization server's (RFC 8414), dynamic client
registration (RFC 7591), and a code flow with PKCE that needs no browser: `/authorize` answers
at once with a redirect carrying the code, as if the acting person had approved, and `/token`
gives the token the environment issues that person. So an MCP client's own OAuth flow works in
a sandbox, and its token acts as the person it names.

Nothing is stored: a client id is drawn fresh (any is accepted, as a registration would have
made it), and a code is its PKCE challenge and redirect URI signed with the environment's salt.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel

from detour_core.pack import ServicePack, resolve
from mock_services.deps import StoreDep
from mock_services.issued_tokens import SALT_KEY, Credentials

SCOPES = ("read", "write")


class ProtectedResource(BaseModel):
    resource: str
    authorization_servers: list[str]
    bearer_methods_supported: list[str] = ["header"]
    scopes_supported: list[str] = list(SCOPES)


class AuthorizationServer(BaseModel):
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    registration_endpoint: str
    response_types_supported: list[str] = ["code"]
    grant_types_supported: list[str] = ["authorization_code"]
    code_challenge_methods_supported: list[str] = ["S256"]
    token_endpoint_auth_methods_supported: list[str] = ["none", "client_secret_post", "client_secret_basic"]
    scopes_supported: list[str] = list(SCOPES)


class ClientRegistration(BaseModel):
    """What a client sends (RFC 7591); what it does not name takes the defaults a server gives."""

    redirect_uris: list[str]
    client_name: str | None = None
    grant_types: list[str] = ["authorization_code"]
    response_types: list[str] = ["code"]
    token_endpoint_auth_method: str = "none"
    scope: str | None = None


class RegisteredClient(ClientRegistration):
    client_id: str
    client_secret: str | None = None


class TokenAnswer(BaseModel):
    access_token: str
    token_type: str = "Bearer"
    scope: str = " ".join(SCOPES)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _sign(salt: str, payload: str) -> str:
    return hmac.new(salt.encode(), payload.encode(), hashlib.sha256).hexdigest()[:32]


def oauth_error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


def oauth_router(pack: ServicePack) -> APIRouter:
    """The OAuth routes of one pack's MCP host (the proxy sends its OAUTH_PATHS here)."""
    assert pack.mcp is not None and pack.credentials is not None
    endpoint = pack.mcp.hosts[0]
    issuer = "https://" + endpoint.partition("/")[0]
    issued = resolve(pack.credentials)
    router = APIRouter(prefix=f"/api/env/{{env_id}}/services/{pack.name}", include_in_schema=False)

    @router.get("/.well-known/oauth-protected-resource{rest:path}")
    def protected_resource() -> ProtectedResource:
        return ProtectedResource(resource="https://" + endpoint, authorization_servers=[issuer])

    @router.get("/.well-known/oauth-authorization-server")
    def authorization_server() -> AuthorizationServer:
        return AuthorizationServer(issuer=issuer, authorization_endpoint=issuer + "/authorize",
                                   token_endpoint=issuer + "/token", registration_endpoint=issuer + "/register")

    @router.post("/register", status_code=201)
    def register(client: ClientRegistration) -> RegisteredClient:
        secret = None if client.token_endpoint_auth_method == "none" else secrets.token_urlsafe(24)
        return RegisteredClient(**client.model_dump(), client_id=secrets.token_urlsafe(16), client_secret=secret)

    @router.get("/authorize", response_model=None)
    def authorize(env_id: str, store: StoreDep, redirect_uri: str, code_challenge: str, response_type: str = "code",
                  state: str | None = None, code_challenge_method: str = "S256") -> RedirectResponse | JSONResponse:
        """The acting person approves at once: the redirect carries the code."""
        if response_type != "code" or code_challenge_method != "S256":
            return oauth_error("unsupported_response_type", "only the code flow with S256 PKCE is supported")
        with store.open(env_id, service=pack.name) as env:
            payload = _b64(json.dumps({"challenge": code_challenge, "redirect_uri": redirect_uri}).encode())
            code = f"{payload}.{_sign(env.meta(SALT_KEY) or '', payload)}"
        query = urlencode({"code": code, **({"state": state} if state is not None else {})})
        return RedirectResponse(f"{redirect_uri}{'&' if '?' in redirect_uri else '?'}{query}", status_code=302)

    @router.post("/token", response_model=None)
    def token(env_id: str, store: StoreDep, grant_type: Annotated[str, Form()], code: Annotated[str, Form()],
              code_verifier: Annotated[str, Form()], redirect_uri: Annotated[str | None, Form()] = None
              ) -> TokenAnswer | JSONResponse:
        if grant_type != "authorization_code":
            return oauth_error("unsupported_grant_type", "only authorization_code is supported")
        with store.open(env_id, service=pack.name) as env:
            payload, _, mac = code.partition(".")
            if not hmac.compare_digest(mac, _sign(env.meta(SALT_KEY) or "", payload)):
                return oauth_error("invalid_grant", "the code was not issued here")
            granted: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            if _b64(hashlib.sha256(code_verifier.encode()).digest()) != granted["challenge"]:
                return oauth_error("invalid_grant", "the code verifier does not match the code challenge")
            if redirect_uri is not None and redirect_uri != granted["redirect_uri"]:
                return oauth_error("invalid_grant", "the redirect URI is not the one the code was issued for")
            given: Credentials = issued(env)
        acting = next(iter(given.variables.values()), None)
        if acting is None:
            return oauth_error("invalid_grant", "the environment issues no token to its acting person")
        return TokenAnswer(access_token=acting)

    return router


def resource_metadata(pack: ServicePack) -> str | None:
    """Where a 401 points an OAuth client (the `resource_metadata` of WWW-Authenticate)."""
    if pack.mcp is None or not pack.mcp.oauth:
        return None
    host, _, path = pack.mcp.hosts[0].partition("/")
    return f"https://{host}/.well-known/oauth-protected-resource/{path}"
