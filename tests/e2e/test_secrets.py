"""Secrets the sandbox never holds: the variable is a placeholder, the upstream that the
secret is for receives the real value, another allowed host and a replica receive the
placeholder (and the records say so), and nothing the agent can read, nor anything under
$DETOUR_HOME but the secret store, holds the value. The upstream is the test's own HTTPS
server in a lab namespace (tests/e2e/upstream.py)."""

import json
import os
import secrets
import subprocess

import pytest

from detour_core.audit import AuditLog
from detour_core.audit_verify import verify
from tests.conftest import ISOLATING
from tests.e2e.test_cli import DETOUR
from tests.e2e.test_egress import allow, lab  # noqa: F401 - the lab fixture: the upstream and a stack

AGENT = r"""
import json, os, re, requests
key = os.environ["PARTNER_KEY"]
out = {"shape": key.startswith("sk-live-"), "length": len(key)}
for url in ("https://api.partner.test/with-key", "https://eu.models.test/elsewhere"):
    out[url] = requests.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=10).status_code
out["replica"] = requests.post("https://slack.com/api/chat.postMessage", timeout=10,
                               data={"token": key, "channel": "general", "text": key}).status_code
seen = []  # everything this program can read that might hold a secret; it looks for key-shaped text
seen.append(json.dumps(dict(os.environ)))
for pid in os.listdir("/proc"):
    for part in ("environ", "cmdline"):
        try:
            seen.append(open(f"/proc/{pid}/{part}", "rb").read().decode("latin-1"))
        except OSError:
            pass
files = 0
for top in ("/tmp", "/etc", os.getcwd(), os.environ.get("HOME") or "/tmp", "HOME_OF_DETOUR"):
    for folder, _, names in os.walk(top):
        for name in names[:200]:
            path = os.path.join(folder, name)
            if files < 3000 and os.path.isfile(path) and not os.path.islink(path):
                files += 1
                try:
                    seen.append(open(path, "rb").read(1 << 20).decode("latin-1"))
                except OSError:
                    pass
out["read"] = len(seen)
out["key_shaped"] = sorted({m for text in seen for m in re.findall(r"sk-live-[A-Za-z0-9_-]{20,}", text)})
print(json.dumps(out))
"""


def secret_set(stack, env: str, name: str, value: str, *hosts: str, options: tuple[str, ...] = ()
               ) -> subprocess.CompletedProcess:
    return subprocess.run([DETOUR, "env", "secret", "set", env, name, *[f"--host={h}" for h in hosts], *options,
                           "--from-env", "THE_VALUE"], capture_output=True, text=True,
                          env=os.environ | {"DETOUR_HOME": str(stack.state.home), "THE_VALUE": value})


@pytest.mark.parametrize("backend", ISOLATING)
def test_the_sandbox_holds_a_placeholder_and_only_the_secrets_host_gets_the_value(lab, backend):  # noqa: F811
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test", "--allow", "*.models.test", "--capture", "headers")
    value = "sk-live-" + secrets.token_urlsafe(30)
    done = secret_set(stack, env, "PARTNER_KEY", value, "api.partner.test")
    assert done.returncode == 0, done.stderr
    placeholder = done.stdout.rsplit(" ", 1)[1].strip()
    assert placeholder.startswith("sk-live-") and len(placeholder) == len(value) and placeholder != value
    authorizations = seen.parent / "authorizations"
    before = authorizations.read_text() if authorizations.exists() else ""
    result = stack.run(env, AGENT.replace("HOME_OF_DETOUR", str(stack.state.home)), ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == {"shape": True, "length": len(value), "https://api.partner.test/with-key": 200,
                   "https://eu.models.test/elsewhere": 200, "replica": 200, "read": out["read"],
                   "key_shaped": [placeholder]} and out["read"] > 10  # all it finds is the placeholder
    assert value not in result.stdout and value not in result.stderr
    received = [json.loads(line) for line in authorizations.read_text()[len(before):].splitlines()]
    assert received == [["/with-key", f"Bearer {value}"], ["/elsewhere", f"Bearer {placeholder}"]]
    records = {r.path.split("?")[0]: r for r in result.requests}
    assert records["/with-key"].secrets == ["PARTNER_KEY"] and records["/with-key"].placeholders is None
    assert records["/elsewhere"].placeholders == ["PARTNER_KEY"] and records["/elsewhere"].secrets is None
    assert records["/api/chat.postMessage"].placeholders == ["PARTNER_KEY"]
    assert value not in json.dumps([r.model_dump() for r in result.requests])
    holders = [path for path in stack.state.home.rglob("*") if path.is_file() and value.encode() in path.read_bytes()]
    assert holders == [stack.state.secrets_dir / f"{env}.json"]
    kept = (stack.state.secrets_dir / f"{env}.json").stat()
    proxy_uid = stack.state.home / "proxy.uid"  # the proxy user's group (unless DETOUR_PROXY_USER=off), else root's
    assert kept.st_mode & 0o777 == 0o640 and kept.st_gid == (int(proxy_uid.read_text()) if proxy_uid.exists() else 0)
    assert verify(AuditLog(stack.state.audit_dir), env).intact  # the chain holds over the new fields


UPLOAD = r"""
import json, os, requests
key = os.environ["PARTNER_KEY"]
body = (key + "." * (3 << 20) + key).encode()  # large enough to stream through the proxy
print(json.dumps([requests.post(url, data=body, headers={"Authorization": f"Bearer {key}"}, timeout=30).status_code
                  for url in ("https://api.partner.test/upload", "https://eu.models.test/upload")]))
"""


@pytest.mark.parametrize("backend", ISOLATING)
def test_a_body_that_streams_gets_the_value_in_its_headers_and_its_body_where_declared(lab, backend):  # noqa: F811
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test", "--allow", "*.models.test")
    value = "sk-live-" + secrets.token_urlsafe(30)
    done = secret_set(stack, env, "PARTNER_KEY", value, "api.partner.test", options=("--inject=header,body",))
    placeholder = done.stdout.rsplit(" ", 1)[1].strip()
    uploads = seen.parent / "uploads"
    before = uploads.read_text() if uploads.exists() else ""
    result = stack.run(env, UPLOAD, ".py", backend=backend)
    assert result.exit_code == 0 and json.loads(result.stdout) == [200, 200], result.stderr
    size = 2 * len(value) + (3 << 20)
    received = [json.loads(line) for line in uploads.read_text()[len(before):].splitlines()]
    assert received == [["api.partner.test", "/upload", f"Bearer {value}", size, value + "." * (80 - len(value)),
                         "." * (80 - len(value)) + value],
                        ["eu.models.test", "/upload", f"Bearer {placeholder}", size,
                         placeholder + "." * (80 - len(value)), "." * (80 - len(value)) + placeholder]]
    records = {r.host: r for r in result.requests if r.method == "POST"}
    assert records["api.partner.test"].secrets == ["PARTNER_KEY"] and records["api.partner.test"].placeholders is None
    assert records["eu.models.test"].placeholders == ["PARTNER_KEY"] and records["eu.models.test"].secrets is None
    assert value not in json.dumps([r.model_dump() for r in result.requests])


def test_bad_secrets_are_refused_and_deleting_the_environment_forgets_them(lab):  # noqa: F811
    stack, _ = lab
    env = stack.env()
    for name, hosts, message in (("1BAD", ("a.test",), "is not a variable name"),
                                 ("KEY", (), "--host"), ("KEY", ("10.0.0.1",), "IP address"),
                                 ("KEY", ("a.test:443",), "no ports")):
        done = secret_set(stack, env, name, "v", *hosts)
        assert done.returncode != 0 and message in done.stderr, done.stderr
    assert secret_set(stack, env, "KEY", "value-1", "a.test").returncode == 0
    listed = subprocess.run([DETOUR, "env", "secret", "list", env], capture_output=True, text=True,
                            env=os.environ | {"DETOUR_HOME": str(stack.state.home)}).stdout
    assert "KEY  hosts=a.test" in listed and "value-1" not in listed
    subprocess.run([DETOUR, "env", "delete", env], check=True, capture_output=True,
                   env=os.environ | {"DETOUR_HOME": str(stack.state.home)})
    assert not (stack.state.secrets_dir / f"{env}.json").exists()
