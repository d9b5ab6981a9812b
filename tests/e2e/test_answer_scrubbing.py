"""No answer brings a secret's value back. The lab's upstream (tests/e2e/upstream.py) echoes
what it receives, in JSON, base64, URL-encoded, gzip, chunked in 5-byte pieces, over a MiB in
two halves that split the value, with a compression nobody can read and switching protocols:
the sandbox gets the placeholder where the value was, or a 502 where the answer could not be
checked. The value goes only in the parts of a request the secret names (the Authorization
header unless it says more); a placeholder elsewhere goes as it is."""

import base64
import json
import secrets
from urllib.parse import unquote

import pytest

from detour_core.secret_encodings import forms
from tests.conftest import ISOLATING
from tests.e2e.test_egress import allow, lab  # noqa: F401 - the lab fixture: the upstream and a stack
from tests.e2e.test_secrets import secret_set
from tests.e2e.upstream import ECHO_FORMS

AGENT = r"""
import json, os, requests
key = os.environ["PARTNER_KEY"]
out = {}
for form in FORMS:
    answer = requests.post(f"https://api.partner.test/echo?form={form}&q={key}", data=json.dumps({"text": key}),
                           headers={"Authorization": f"Bearer {key}"}, timeout=30)
    text = answer.content.decode("latin-1").strip(".") if form not in QUIET else ""
    out[form] = [answer.status_code, dict(answer.headers), text]
print(json.dumps(out))
"""


def agent(forms_asked, quiet=()) -> str:
    return AGENT.replace("FORMS", repr(tuple(forms_asked))).replace("QUIET", repr(tuple(quiet)))


def echoed(form: str, text: str) -> dict:
    """What the upstream said it received, read back out of the answer's form."""
    decoded = {"base64": lambda t: base64.b64decode(t).decode(), "urlencoded": unquote}.get(form, lambda t: t)(text)
    return json.loads(decoded)


def new_secret(stack, env: str, *options: str) -> tuple[str, str]:
    value = "sk-live-" + secrets.token_urlsafe(30)
    done = secret_set(stack, env, "PARTNER_KEY", value, "api.partner.test", options=options)
    assert done.returncode == 0, done.stderr
    return value, done.stdout.rsplit(" ", 1)[1].strip()


def new_echoes(folder, before: str) -> list[list[str]]:
    return [json.loads(line) for line in (folder / "echoes").read_text()[len(before):].splitlines()]


def assert_nowhere(value: str, placeholder: str, *texts: str) -> None:
    """Neither the value nor any of its encoded forms is in what the sandbox printed."""
    for text in texts:
        assert not [form.core for form in forms(value, placeholder) if form.core.decode() in text]


@pytest.mark.parametrize("backend", ISOLATING)
def test_an_echoed_value_comes_back_as_the_placeholder_in_every_form(lab, backend):  # noqa: F811
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test")
    value, placeholder = new_secret(stack, env)
    echoes = seen.parent / "echoes"
    before = echoes.read_text() if echoes.exists() else ""
    result = stack.run(env, agent(ECHO_FORMS), ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert_nowhere(value, placeholder, result.stdout, result.stderr)
    out = json.loads(result.stdout)
    # The host got the value in the Authorization header only; the query and the body kept the placeholder.
    received = new_echoes(seen.parent, before)
    assert [(path.split("&")[0], auth) for path, auth, _ in received] == [
        (f"/echo?form={form}", f"Bearer {value}") for form in ECHO_FORMS]
    assert all(f"q={placeholder}" in path and json.loads(body) == {"text": placeholder} for path, _, body in received)
    for form in ECHO_FORMS[:-2]:
        status, headers, text = out[form]
        assert status == 200 and headers["X-Echo-Authorization"] == f"Bearer {placeholder}", form
        assert echoed(form, text)["headers"]["Authorization"] == f"Bearer {placeholder}", form
        assert "Content-Encoding" not in headers, form  # checked decoded, and passed on decoded
    for form in ("compress", "upgrade"):
        status, _, text = out[form]
        assert status == 502 and "cannot be checked for the secrets PARTNER_KEY" in text, form
    records = {r.path.split("&")[0].removeprefix("/echo?form="): r for r in result.requests}
    for form in ECHO_FORMS:
        assert (records[form].secrets, records[form].placeholders) == (["PARTNER_KEY"], ["PARTNER_KEY"]), form
        assert records[form].scrubbed == (["PARTNER_KEY"] if form != "upgrade" else None), form
    assert records["upgrade"].reason.startswith("answer refused: the host switched protocols (to echo)")
    assert value not in json.dumps([r.model_dump() for r in result.requests])


@pytest.mark.parametrize("backend", ISOLATING)
def test_a_secret_declared_for_the_body_goes_there_and_still_does_not_come_back(lab, backend):  # noqa: F811
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test")
    value, placeholder = new_secret(stack, env, "--inject=header,body", "--unchecked=pass")
    echoes = seen.parent / "echoes"
    before = echoes.read_text() if echoes.exists() else ""
    asked = ("json", "gzip-chunked", "large", "compress")
    result = stack.run(env, agent(asked, quiet=["compress"]), ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert_nowhere(value, placeholder, result.stdout, result.stderr)
    received = new_echoes(seen.parent, before)
    assert [(auth, json.loads(body)) for _, auth, body in received] == [(f"Bearer {value}", {"text": value})] * 4
    out = json.loads(result.stdout)
    for form in asked[:-1]:
        assert echoed(form, out[form][2])["body"] == json.dumps({"text": placeholder}), form
    assert out["compress"][0] == 200  # passed, as the secret says, and recorded so
    record = next(r for r in result.requests if "form=compress" in r.path)
    assert record.unchecked == ["PARTNER_KEY"] and record.reason.startswith("answer passed unchecked")
