"""The translator of cross-protocol model routes: an Anthropic Messages call answered by an
OpenAI-compatible server, or an OpenAI chat completion by an Anthropic-shaped one, translated
both ways by litellm (the well-kept translation library; nothing here converts by hand).

It is a server of the proxy's own on loopback, not code in the proxy: litellm's streams are
pulled (async iterators) while mitmproxy pushes an answer's chunks, and litellm takes seconds to
import, so the proxy starts this process on the first call that needs it
(proxy_addons/model_translator.py) and points such calls at it. A streamed answer goes back
event by event as the target produces it. The proxy names the target in TARGET_HEADER and proves
itself with KEY_HEADER (the key it gave this process in its environment); the path's first part
is what the agent speaks (`/anthropic/v1/messages`, `/openai/v1/chat/completions`).

Run: `DETOUR_TRANSLATOR_KEY=... python -m proxy_addons.model_translation`; its first line of
output is its port, written once it takes calls.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import socket
import sys
from collections.abc import AsyncIterator
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # else litellm fetches its price list at import

try:
    import litellm
except ImportError:  # the proxy reads this line as the reason the translator did not start
    print("error: litellm is not installed; pip install 'detour[models]'", flush=True)
    sys.exit(1)
import uvicorn  # noqa: E402
from fastapi import FastAPI, Request  # noqa: E402
from fastapi.encoders import jsonable_encoder  # noqa: E402
from fastapi.responses import JSONResponse, Response, StreamingResponse  # noqa: E402
from litellm.anthropic_interface import messages as anthropic_messages  # noqa: E402

from detour_core.model_routes import Protocol, vendor_error  # noqa: E402
from proxy_addons.model_translator import KEY_HEADER, KEY_VARIABLE, TARGET_HEADER  # noqa: E402

litellm.drop_params = True  # a parameter the target's protocol lacks is left out, not an error
litellm.suppress_debug_info = True
litellm.use_chat_completions_url_for_anthropic_messages = True  # OpenAI-compatible servers speak chat completions


def error(protocol: Protocol, kind: str, message: str, status: int | None = None) -> JSONResponse:
    status, body = vendor_error(protocol, kind, f"detour: {message}", status)
    return JSONResponse(body, status_code=status)


def credential(request: Request) -> str:
    """The agent's key as its SDK sent it (a placeholder unless the policy put a secret in)."""
    bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    return request.headers.get("x-api-key") or bearer or "none"


async def openai_events(chunks: AsyncIterator[Any]) -> AsyncIterator[bytes]:
    """litellm's chat completion chunks as OpenAI's server-sent events, each as it comes."""
    async for chunk in chunks:
        yield b"data: " + chunk.model_dump_json(exclude_none=True).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


async def anthropic_call(body: dict, target: str, key: str) -> Any:
    """An Anthropic Messages request, asked of an OpenAI-compatible server."""
    return await anthropic_messages.acreate(**(body | {"model": f"openai/{body['model']}"}), api_base=target, api_key=key)


async def openai_call(body: dict, target: str, key: str) -> Any:
    """An OpenAI chat completion, asked of an Anthropic-shaped server."""
    return await litellm.acompletion(**(body | {"model": f"anthropic/{body['model']}"}), api_base=target, api_key=key)


CALLS = {("anthropic", "v1/messages"): anthropic_call, ("openai", "v1/chat/completions"): openai_call}


def answer(protocol: Protocol, result: Any) -> Response:
    if protocol == "openai" and not hasattr(result, "model_dump"):  # a stream of chunks
        return StreamingResponse(openai_events(result), media_type="text/event-stream")
    if protocol == "anthropic" and not isinstance(result, dict):  # Anthropic's events, as bytes
        return StreamingResponse(result, media_type="text/event-stream")
    return JSONResponse(jsonable_encoder(result.model_dump(exclude_none=True) if hasattr(result, "model_dump") else result))


def create_app(key: str) -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.api_route("/{protocol}/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def translate(protocol: str, path: str, request: Request) -> Response:
        if protocol not in ("anthropic", "openai"):
            return JSONResponse({"detail": "not a protocol detour translates"}, status_code=404)
        call = CALLS.get((protocol, path)) if request.method == "POST" else None
        target = request.headers.get(TARGET_HEADER)
        if not secrets.compare_digest(request.headers.get(KEY_HEADER, ""), key) or not target:
            return error(protocol, "invalid", "only detour's proxy may call the model translator", 403)
        if call is None:
            served = " and ".join(f"POST /{p}" for _, p in CALLS)
            return error(protocol, "unserved", f"a translated model route serves only {served}; "
                                               f"{request.method} /{path} is not translated")
        try:
            body = await request.json()
            assert isinstance(body, dict) and isinstance(body.get("model"), str)
        except (ValueError, AssertionError):
            return error(protocol, "invalid", "the request body is not a JSON object with a `model`")
        try:
            return answer(protocol, await call(body, target, credential(request)))
        except Exception as failed:  # noqa: BLE001 - litellm's errors carry the target's status
            status = getattr(failed, "status_code", None)
            kind = "invalid" if isinstance(status, int) and status < 500 else "upstream"
            return error(protocol, kind, f"the route's target {target} answered: {failed}",
                         status if isinstance(status, int) else None)

    return app


def end_with_parent() -> None:
    """Killed with the proxy that started it, however the proxy ends (PR_SET_PDEATHSIG)."""
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the proxy ended before the line above
        sys.exit("the proxy that started the model translator is gone")


def main() -> None:
    key = os.environ.pop(KEY_VARIABLE, "")
    if not key:
        sys.exit(f"{KEY_VARIABLE} is not set: the proxy starts the model translator")
    end_with_parent()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(listener.getsockname()[1], flush=True)
    uvicorn.Server(uvicorn.Config(create_app(key), log_level="warning", access_log=False)).run(sockets=[listener])


if __name__ == "__main__":
    main()
