"""The bench row for the agent's own model calls: a streamed chat completion (OpenAI's SSE
chunks) from an OpenAI-compatible server this module runs on loopback, asked directly and
through the proxy as `api.openai.com` under a model route; the time to the first event and to
the last, and what the proxy adds to each (goal: at most 2 ms to the first token at p50); and the
same server answering an Anthropic Messages stream through a translated route (litellm in the
proxy's translator)."""

from __future__ import annotations

import json
import statistics
import time

import httpx
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from bench.proxy import proxy_cpu
from certs.authority import CertificateAuthority
from detour.stack import Stack, StackInfo
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from detour_core.policy import Policy, policy_file, save_policy
from mock_services.store import EnvironmentStore
from tests.e2e.model_servers import serving

CALLS = 60
EVENTS = 30
ASK = {"model": "bench", "stream": True, "messages": [{"role": "user", "content": "count to thirty"}]}
ANTHROPIC_ASK = ASK | {"max_tokens": 100}


def streaming_model() -> FastAPI:
    """Thirty chunks, written as fast as the server can, then [DONE]."""
    app = FastAPI()

    async def events():
        for n in range(EVENTS):
            chunk = {"id": "chatcmpl-b", "object": "chat.completion.chunk", "created": 1, "model": "bench",
                     "choices": [{"index": 0, "delta": {"content": f" {n}"}, "finish_reason": None}]}
            yield f"data: {json.dumps(chunk)}\n\n".encode()
        yield b"data: [DONE]\n\n"

    @app.post("/v1/chat/completions")
    async def complete() -> StreamingResponse:
        return StreamingResponse(events(), media_type="text/event-stream")
    return app


def _times(client: httpx.Client, url: str, ask: dict = ASK) -> tuple[list[float], list[float]]:
    """Per call: ms to the first body bytes, and to the end."""
    first, whole = [], []
    for _ in range(CALLS + 5):
        started = time.perf_counter()
        with client.stream("POST", url, json=ask, headers={"Authorization": "Bearer sk-bench"}) as answer:
            chunks = answer.iter_raw()
            next(chunks)
            at = time.perf_counter()
            for _ in chunks:
                pass
        first.append((at - started) * 1000)
        whole.append((time.perf_counter() - started) * 1000)
    return first[5:], whole[5:]  # the first calls open connections and warm up


def _p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


def bench_model_stream(state: StatePaths, stack: Stack, info: StackInfo, store: EnvironmentStore) -> None:
    with serving(streaming_model()) as port:
        base = f"http://127.0.0.1:{port}/v1"
        env_id = store.create("slack_default").env_id
        save_policy(policy_file(state, env_id), Policy.model_validate({"models": [
            {"host": "api.openai.com", "base_url": base},
            {"host": "api.anthropic.com", "base_url": base, "protocol": "openai"}]}))
        bundle = str(CertificateAuthority(state).ensure().bundle)
        with httpx.Client(timeout=30, trust_env=False) as direct:
            d_first, d_whole = _times(direct, f"{base}/chat/completions")
        with httpx.Client(proxy=info.access(env_id, secret_for(state, env_id)).url(), verify=bundle,
                          timeout=30, trust_env=False) as proxied:
            before = proxy_cpu(stack)
            p_first, p_whole = _times(proxied, "https://api.openai.com/v1/chat/completions")
            cpu = (proxy_cpu(stack) - before) / (CALLS + 5) * 1000
            t_first, t_whole = _times(proxied, "https://api.anthropic.com/v1/messages", ANTHROPIC_ASK)
    print(f"  streamed completion ({EVENTS} events), {CALLS} calls, one kept connection each way; "
          f"the proxy's CPU {cpu:.1f} ms a call:")
    for label, direct_ms, proxied_ms in (("first token", d_first, p_first), ("whole answer", d_whole, p_whole)):
        print(f"    {label:<12}: direct p50 {_p(direct_ms, 50):.2f} ms, through the proxy p50 {_p(proxied_ms, 50):.2f}"
              f" p95 {_p(proxied_ms, 95):.2f} ms; added at p50 {_p(proxied_ms, 50) - _p(direct_ms, 50):.2f} ms"
              + (" (goal: <= 2 ms)" if label == "first token" else ""))
    print("  the same stream asked as Anthropic Messages, translated (the translator started at the first call):")
    for label, direct_ms, translated_ms in (("first token", d_first, t_first), ("whole answer", d_whole, t_whole)):
        print(f"    {label:<12}: p50 {_p(translated_ms, 50):.2f} ms p95 {_p(translated_ms, 95):.2f} ms; "
              f"added at p50 {_p(translated_ms, 50) - _p(direct_ms, 50):.2f} ms")
