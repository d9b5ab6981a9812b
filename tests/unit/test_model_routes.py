"""Model routes' parts without a proxy: the vendors' usage fields as each vendor sends them (whole
and streamed; Gemini's and the Responses API's, which the end-to-end tests do not reach), where a
path lands on a base URL, the vendors' own error shapes, and a stream's bytes let through at once
unless they may begin a secret's value."""

import json

import pytest

from detour_core.model_routes import (EventReader, ModelBudget, ModelCall, ModelRoute, read_usage, request_model,
                                      vendor_error)
from detour_core.secret_encodings import forms
from proxy_addons.chunk_replacer import ChunkReplacer, Needle
from proxy_addons.model_budgets import Spent


def events(*documents: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(d).encode() + b"\n\n" for d in documents) + b"data: [DONE]\n\n"


WHOLE = [
    ("openai chat", {"model": "gpt-4o-2024", "usage": {"prompt_tokens": 12, "completion_tokens": 3}}, ("gpt-4o-2024", 12, 3)),
    ("openai responses", {"model": "o4", "usage": {"input_tokens": 5, "output_tokens": 8}}, ("o4", 5, 8)),
    ("anthropic", {"model": "claude-x", "usage": {"input_tokens": 7, "output_tokens": 9}}, ("claude-x", 7, 9)),
    ("gemini", {"modelVersion": "gemini-2.5-flash", "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 6}},
     ("gemini-2.5-flash", 4, 6)),
    ("no usage", {"error": {"message": "nope"}}, (None, None, None)),
]
STREAMED = [
    ("anthropic", events({"type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 7,
                                                                                              "output_tokens": 1}}},
                         {"type": "content_block_delta", "delta": {"text": "hi"}},
                         {"type": "message_delta", "usage": {"output_tokens": 15}}), ("claude-x", 7, 15)),
    ("openai responses", events({"type": "response.created", "response": {"model": "o4", "usage": None}},
                                {"type": "response.completed", "response": {"model": "o4", "usage": {
                                    "input_tokens": 3, "output_tokens": 4}}}), ("o4", 3, 4)),
    ("gemini", events({"modelVersion": "g", "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 1}},
                      {"modelVersion": "g", "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 9}}),
     ("g", 2, 9)),
]


@pytest.mark.parametrize("name, answer, expected", WHOLE)
def test_a_whole_answers_usage(name, answer, expected):
    call = ModelCall(protocol="openai", target="vendor")
    read_usage(call, answer)
    assert (call.model, call.input_tokens, call.output_tokens) == expected


@pytest.mark.parametrize("name, stream, expected", STREAMED)
def test_a_streamed_answers_usage_read_in_pieces_of_any_size(name, stream, expected):
    for size in (1, 7, len(stream)):
        call = ModelCall(protocol="openai", target="vendor")
        reader = EventReader(call)
        for at in range(0, len(stream), size):
            reader.feed(stream[at:at + size])
        assert (call.model, call.input_tokens, call.output_tokens) == expected


@pytest.mark.parametrize("route, path, landed", [
    ({"host": "api.openai.com", "base_url": "http://127.0.0.1:8000/v1"}, "/v1/chat/completions", "/v1/chat/completions"),
    ({"host": "api.openai.com", "base_url": "http://gpu.test:8000/"}, "/v1/responses?x=1", "/responses?x=1"),
    ({"host": "api.anthropic.com", "base_url": "http://127.0.0.1:9000/anthropic"}, "/v1/messages",
     "/anthropic/v1/messages"),
    ({"host": "generativelanguage.googleapis.com", "base_url": "http://g.test"},
     "/v1beta/models/gemini-2.5-flash:generateContent", "/v1beta/models/gemini-2.5-flash:generateContent"),
    ({"host": "llm.corp.test", "base_url": "http://127.0.0.1:8000/v1"}, "/v1/embeddings", "/v1/embeddings"),
])
def test_a_path_lands_under_the_base_url_as_the_sdk_would_put_it(route, path, landed):
    assert ModelRoute.model_validate(route).rebased(path) == landed


def test_the_model_asked_for_from_the_body_or_geminis_path():
    assert request_model("/v1/chat/completions", b'{"model": "m1"}') == "m1"
    assert request_model("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", b"{}") == "gemini-2.5-pro"
    assert request_model("/v1/chat/completions", b"not json") is None


@pytest.mark.parametrize("protocol, kind, status, shape", [
    ("openai", "budget", 429, {"error": {"message": "m", "type": "insufficient_quota", "param": None,
                                         "code": "insufficient_quota"}}),
    ("azure", "unrecorded", 404, {"error": {"message": "m", "type": "not_found", "param": None, "code": "not_found"}}),
    ("anthropic", "budget", 429, {"type": "error", "error": {"type": "rate_limit_error", "message": "m"}}),
    ("gemini", "budget", 429, {"error": {"code": 429, "message": "m", "status": "RESOURCE_EXHAUSTED"}}),
])
def test_refusals_in_each_vendors_own_shape(protocol, kind, status, shape):
    assert vendor_error(protocol, kind, "m") == (status, shape)


def test_a_streams_bytes_go_on_at_once_unless_they_may_begin_a_value():
    value, placeholder = "sk-ant-" + "a1" * 20, "sk-ant-" + "zz" * 20
    needles = [Needle(f, "KEY", replace=True) for f in forms(value, placeholder)]
    replacer = ChunkReplacer(needles, lambda *_: None)
    event = b'data: {"delta": {"text": "Hello"}}\n\n'
    assert replacer.feed(event) == event  # nothing held back for the next chunk
    assert replacer.feed(b"data: " + value[:10].encode()) == b"data: "  # what may begin the value waits
    assert replacer.feed(value[10:].encode() + b"\n\n") + replacer.feed(b"", end=True) == placeholder.encode() + b"\n\n"


def test_a_budget_is_spent_by_calls_or_by_tokens_whichever_comes_first():
    spent = Spent()
    spent.calls, spent.tokens = 2, 900
    assert spent.over(ModelBudget(calls=3, tokens=1000)) is None
    assert spent.over(ModelBudget(calls=2)) == "2 of 2 model calls"
    assert spent.over(ModelBudget(tokens=900)) == "900 of 900 tokens"


@pytest.mark.parametrize("host, protocol", [("api.openai.com", "openai"), ("*.openai.azure.com", "azure"),
                                            ("Acme-East.OpenAI.Azure.com", "azure"), ("api.anthropic.com.", "anthropic"),
                                            ("generativelanguage.googleapis.com", "gemini"), ("llm.corp.test", "openai")])
def test_what_a_routed_host_speaks(host, protocol):
    assert ModelRoute(host=host, vendor=True).protocol == protocol
