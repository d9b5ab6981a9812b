"""A secret's value in an answer, without a running proxy: every encoded form found and turned
into the same form of the placeholder, whole or chunk by chunk however the chunks fall, and the
scrubber's choices (decode, stream, refuse or pass what it cannot check)."""

import base64
import gzip
import json
import random
import secrets
from urllib.parse import quote

from mitmproxy.test import tflow, tutils

from detour_core.audit import Verdict
from detour_core.secret_encodings import forms
from detour_core.secrets import Secret
from proxy_addons.answer_scrubbing import AnswerScrubber
from proxy_addons.chunk_replacer import ChunkReplacer, Needle
from proxy_addons.secret_injection import HOST_SECRETS_KEY
from proxy_addons.verdict import METADATA_KEY


def pair() -> tuple[str, str]:
    return "sk-" + secrets.token_urlsafe(24), "sk-" + secrets.token_urlsafe(24)


def replacer(value: str, placeholder: str, found: list | None = None) -> ChunkReplacer:
    return ChunkReplacer([Needle(f, "KEY", True) for f in forms(value, placeholder)],
                         lambda name, replaced: (found if found is not None else []).append(name))


def test_base64_at_every_alignment_decodes_to_the_placeholder_with_the_neighbours_intact():
    for _ in range(100):
        value, placeholder = pair()
        for before in (b"", b"a", b"ab", b"abc"):
            for after in (b"", b"z", b"yz"):
                for encode, decode in ((base64.b64encode, base64.b64decode),
                                       (base64.urlsafe_b64encode, base64.urlsafe_b64decode)):
                    scrubbed = replacer(value, placeholder).whole(encode(before + value.encode() + after))
                    assert decode(scrubbed) == before + placeholder.encode() + after


def test_url_encoded_json_escaped_and_hex_forms_become_the_placeholders():
    value, placeholder = "sk-a/b+c d\"e" + secrets.token_hex(8), "sk-" + secrets.token_hex(10)
    texts = [quote(value, safe=""), quote(value, safe="").lower(), json.dumps(value), value.encode().hex()]
    scrubbed = replacer(value, placeholder).whole(" ".join(texts).encode()).decode()
    assert placeholder in scrubbed and not [t for t in texts if t in scrubbed]


def test_chunks_give_what_the_whole_body_gives_however_they_fall():
    for _ in range(100):
        value, placeholder = pair()
        body = b"x" * random.randint(0, 40) + value.encode() + b".." + json.dumps(value).encode()
        body += base64.b64encode(b"q" * random.randint(0, 4) + body)
        found, streaming, sent, at = [], replacer(value, placeholder), [], 0
        streaming.found = lambda name, _: found.append(name)
        while at < len(body):
            size = random.randint(1, 9)
            sent += streaming(body[at:at + size])
            at += size
        sent += streaming(b"")
        assert b"" not in sent and b"".join(sent) == replacer(value, placeholder).whole(body)
        assert value.encode() not in b"".join(sent) and found


def answered(value: str, placeholder: str, response, method: str = "GET", unchecked: str = "refuse"):
    flow = tflow.tflow(resp=response)
    flow.request.method = method
    flow.metadata[HOST_SECRETS_KEY] = [Secret(name="KEY", value=value, placeholder=placeholder, hosts=["a.test"],
                                              unchecked=unchecked)]
    flow.metadata[METADATA_KEY] = Verdict(decision="allowed", host="a.test", port=443, scheme="https", path="/")
    scrubber = AnswerScrubber()
    scrubber.responseheaders(flow)
    if not flow.response.stream:
        scrubber.response(flow)
    return flow


def test_a_gzip_answer_is_decoded_checked_and_passed_on_decoded():
    value, placeholder = pair()
    response = tutils.tresp(content=gzip.compress(f'{{"echo": "{value}"}}'.encode()))
    response.headers["content-encoding"], response.headers["x-echo"] = "gzip", value
    flow = answered(value, placeholder, response)
    assert flow.response.content == f'{{"echo": "{placeholder}"}}'.encode()
    assert "content-encoding" not in flow.response.headers and flow.response.headers["x-echo"] == placeholder
    assert flow.metadata[METADATA_KEY].scrubbed == ["KEY"]


def test_what_cannot_be_checked_is_refused_unless_the_secret_lets_it_pass():
    value, placeholder = pair()
    unknown = tutils.tresp(content=value.encode())
    unknown.headers["content-encoding"] = "compress"
    refused = answered(value, placeholder, unknown)
    assert refused.response.status_code == 502 and value.encode() not in refused.response.content
    assert "Content-Encoding 'compress' cannot be decoded" in refused.metadata[METADATA_KEY].reason
    switch = answered(value, placeholder, tutils.tresp(status_code=101, headers=((b"upgrade", b"h2c"),), content=b""))
    assert switch.response.status_code == 502 and "switched protocols (to h2c)" in switch.metadata[METADATA_KEY].reason
    unknown = tutils.tresp(content=value.encode())
    unknown.headers["content-encoding"] = "compress"
    flow = answered(value, placeholder, unknown, unchecked="pass")
    assert flow.response.status_code == 200 and flow.metadata[METADATA_KEY].unchecked == ["KEY"]


def test_an_answer_of_unknown_length_streams_and_a_head_answer_does_not():
    value, placeholder = pair()
    response = tutils.tresp(content=b"")
    del response.headers["content-length"]
    response.headers["transfer-encoding"] = "chunked"
    flow = answered(value, placeholder, response)
    assert callable(flow.response.stream)
    body = b"a" * 3 + value.encode() + b"b" * 3
    assert b"".join([*flow.response.stream(body[:7]), *flow.response.stream(body[7:]), *flow.response.stream(b"")]) \
        == body.replace(value.encode(), placeholder.encode())
    head = tutils.tresp(content=b"")
    del head.headers["content-length"]
    assert not answered(value, placeholder, head, method="HEAD").response.stream
