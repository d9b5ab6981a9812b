"""Scripted model servers of a test's own, on loopback: OpenAI's chat completions (as vLLM,
SGLang and Ollama serve them) and Anthropic's messages, whole or streamed as server-sent events,
with tool calls; every call they get is logged with the credential it carried.

A streamed answer sends its first words, then waits for the client to call again with the
model `ack` (or 20 s) before it ends with `acked` or `unacked`: the client can only say it got
the first words before the last were written if they came through as they were produced.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI, Request
from fastapi.responses import StreamingResponse

from tests.e2e.upstream import _certificate

WORDS = ["Hello", " from", " the", " scripted", " model"]


@dataclass
class Script:
    """What a server got (path, credential, body), and the streamed answers' go-ahead."""
    calls: list[dict] = field(default_factory=list)
    ack: threading.Event = field(default_factory=threading.Event)

    async def take(self, request: Request) -> dict:
        """A call's body, logged; the model `ack` lets a waiting stream finish."""
        body = await request.json()
        credential = (request.headers.get("x-api-key") or request.headers.get("authorization") or "").removeprefix("Bearer ")
        self.calls.append({"path": request.url.path, "credential": credential, "body": body})
        if body["model"] == "ack":
            self.ack.set()
        return body

    async def go_ahead(self) -> str:
        acked = await asyncio.to_thread(self.ack.wait, 20)
        self.ack.clear()
        return " acked" if acked else " unacked"


def tokens(body: dict) -> int:
    """A deterministic input count: the words of the prompt."""
    return len(json.dumps(body.get("messages", [])).split())


def _sse(events: list[tuple[str | None, dict | str]]) -> bytes:
    return b"".join((f"event: {name}\n" if name else "").encode() + b"data: "
                    + (data if isinstance(data, str) else json.dumps(data)).encode() + b"\n\n" for name, data in events)


def openai_routes(app: FastAPI, script: Script) -> None:
    def chunk(model: str, delta: dict, finish: str | None = None, usage: dict | None = None) -> dict:
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
                "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
                **({"usage": usage} if usage else {})}

    async def stream(body: dict) -> AsyncIterator[bytes]:
        model = body["model"]
        yield _sse([(None, chunk(model, {"role": "assistant", "content": WORDS[0]}))])
        last = await script.go_ahead()
        yield _sse([(None, chunk(model, {"content": "".join(WORDS[1:]) + last}))])
        yield _sse([(None, chunk(model, {}, "stop"))])
        if body.get("stream_options", {}).get("include_usage"):
            usage = {"prompt_tokens": tokens(body), "completion_tokens": len(WORDS) + 1}
            yield _sse([(None, chunk(model, {}, usage=usage | {"total_tokens": sum(usage.values())}))])
        yield _sse([(None, "[DONE]")])

    @app.post("/v1/chat/completions")
    async def complete(request: Request):
        body = await script.take(request)
        if body.get("stream"):
            return StreamingResponse(stream(body), media_type="text/event-stream")
        tool = (body.get("tools") or [None])[0]
        message = {"role": "assistant", "content": "".join(WORDS)} if tool is None else {
            "role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": tool["function"]["name"], "arguments": json.dumps({"channel": "general"})}}]}
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop" if tool is None else "tool_calls"}],
                "usage": {"prompt_tokens": tokens(body), "completion_tokens": 7, "total_tokens": tokens(body) + 7}}


def anthropic_routes(app: FastAPI, script: Script) -> None:
    async def stream(body: dict) -> AsyncIterator[bytes]:
        start = {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"], "content": [],
                 "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": tokens(body), "output_tokens": 1}}
        yield _sse([("message_start", {"type": "message_start", "message": start}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": WORDS[0]}})])
        last = await script.go_ahead()
        yield _sse([("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": "".join(WORDS[1:]) + last}}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                       "usage": {"output_tokens": len(WORDS) + 1}}),
                    ("message_stop", {"type": "message_stop"})])

    @app.post("/v1/messages")
    async def messages(request: Request):
        body = await script.take(request)
        if body.get("stream"):
            return StreamingResponse(stream(body), media_type="text/event-stream")
        tool = (body.get("tools") or [None])[0]
        content = [{"type": "text", "text": "".join(WORDS)}] if tool is None else [
            {"type": "tool_use", "id": "toolu_1", "name": tool["name"], "input": {"channel": "general"}}]
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"], "content": content,
                "stop_reason": "end_turn" if tool is None else "tool_use", "stop_sequence": None,
                "usage": {"input_tokens": tokens(body), "output_tokens": 9}}


def scripted_app(script: Script) -> FastAPI:
    app = FastAPI()
    openai_routes(app, script)
    anthropic_routes(app, script)
    return app


@contextmanager
def serving(app: FastAPI, host: str = "127.0.0.1", port: int = 0, **tls: str) -> Iterator[int]:
    """uvicorn in a thread for the block (`tls`: ssl_certfile, ssl_keyfile); its port."""
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", **tls))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the scripted model server did not start"
            time.sleep(0.01)
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def vendor_certificates(folder: Path, name: str) -> Path:
    """ca.pem (a CA the test makes) and vendor.pem/.key for `name`, which it signs."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    (folder / "ca.pem").write_bytes(_certificate("model test CA", (), ca_key, "model test CA", ca_key, True)
                                    .public_bytes(serialization.Encoding.PEM))
    (folder / "vendor.pem").write_bytes(_certificate(name, (name,), ca_key, "model test CA", key, False)
                                        .public_bytes(serialization.Encoding.PEM))
    (folder / "vendor.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()))
    return folder / "ca.pem"
