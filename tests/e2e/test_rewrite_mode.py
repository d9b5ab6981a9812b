"""Rewrite mode keeps the user's program its own, and its gateway serves only its environment."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BACKENDS, NAMESPACE_MISSING, needs_namespaces

CORPUS = Path(__file__).parents[1] / "corpus"
DETOUR = str(Path(sys.executable).parent / "detour")

FAILING = """import requests

def post(text):
    requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer x"},
                  data={"channel": "general", "text": text})
    raise RuntimeError("agent bug on line 6")

post("before the bug")
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_tracebacks_point_at_the_users_own_lines(live_stack, make_env, backend):
    result = live_stack.run(make_env(), FAILING, ".py", backend=backend, mode="rewrite")
    assert result.exit_code == 1
    assert ', line 6, in post' in result.stderr and ', line 8, in <module>' in result.stderr
    assert "sitecustomize" not in result.stderr
    assert [i["message_text"] for i in result.diff.inserts] == ["before the bug"]  # it did run, rewritten


def test_node_errors_and_exit_codes_stay_the_programs(live_stack, make_env):
    code = 'await fetch("https://slack.com/api/auth.test", {headers: {Authorization: "Bearer x"}});\n' \
           'console.log("out"); console.error("err");\nprocess.exitCode = 7;\n'
    result = live_stack.run(make_env(), code, ".mjs", mode="rewrite")
    assert (result.exit_code, result.stdout, result.stderr) == (7, "out\n", "err\n")
    assert [r.mode for r in result.requests] == ["rewrite"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_gateway_serves_only_the_callers_environment(live_stack, make_env, backend):
    mine, other = make_env(), make_env()
    base_of_other = f"/api/env/{other}/services/slack/api/chat.postMessage"
    code = f"""
B=${{DETOUR_REWRITE_BASE%/api/env/*}}
/usr/bin/curl -s -H "$DETOUR_REWRITE_HEADERS" "$B{base_of_other}" -d channel=general -d text=cross; echo
/usr/bin/curl -s -H "$DETOUR_REWRITE_HEADERS" "$B/api/platform/environments"; echo
/usr/bin/curl -s "$DETOUR_REWRITE_BASE/slack/api/auth.test" -H 'Authorization: Bearer x'; echo
"""
    result = live_stack.run(mine, code, ".sh", backend=backend, mode="rewrite")
    cross, platform, anonymous = (json.loads(line) for line in result.stdout.splitlines())
    assert cross["error"] == "denied" and cross["reason"] == f"another environment ({other})"
    assert platform["error"] == "denied" and platform["reason"] == "not a replica path"
    if backend in ("namespace", "docker"):  # its address identifies it
        assert anonymous["ok"] is True
    else:
        assert anonymous["error"] == "unauthorized"
    assert live_stack.store.diff(other).inserts == []


@needs_namespaces
def test_compare_names_the_divergence_and_exits_1(tmp_path):
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    diverging = subprocess.run([DETOUR, "compare", str(CORPUS / "raw_ssl_socket.py")], env=env,
                               capture_output=True, text=True, timeout=120)
    assert diverging.returncode == 1, diverging.stderr
    assert "final states diverge" in diverging.stdout
    assert "only in proxy mode" in diverging.stdout and "raw_socket" in diverging.stdout
    matching = subprocess.run([DETOUR, "compare", "--json", str(CORPUS / "httpx_async.py")], env=env,
                              capture_output=True, text=True, timeout=120)
    assert matching.returncode == 0, matching.stderr
    report = json.loads(matching.stdout)
    assert report["states_match"] and report["requests"][0]["proxy"] == report["requests"][0]["rewrite"] == 3


READ_THEN_FAIL_IN_REWRITE = """import os, sys, urllib.request
if "DETOUR_REWRITE_BASE" in os.environ:
    sys.exit(1)  # a rewrite run that fails before its first request: it changes no state either
request = urllib.request.Request("https://slack.com/api/auth.test", headers={"Authorization": "Bearer xoxb-1"})
print(urllib.request.urlopen(request).read().decode())
"""


def test_compare_exits_1_when_exit_codes_and_requests_differ_though_states_match(tmp_path):
    """Runs that changed nothing both ways still diverge when one failed and saw no request."""
    agent = tmp_path / "reader.py"
    agent.write_text(READ_THEN_FAIL_IN_REWRITE)
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    plain = subprocess.run([DETOUR, "compare", "--backend", "process", str(agent)], env=env,
                           capture_output=True, text=True, timeout=120)
    assert plain.returncode == 1, plain.stdout + plain.stderr
    assert "exit codes differ: proxy 0, rewrite 1" in plain.stdout
    assert "requests differ: GET slack.com/api/auth.test -> routed 200 seen 1 times in proxy mode, 0" in plain.stdout
    as_json = subprocess.run([DETOUR, "compare", "--backend", "process", "--json", str(agent)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert as_json.returncode == 1, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["states_match"] and len(report["divergences"]) == 2, report["divergences"]


def test_compare_refuses_a_missing_file(tmp_path):
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    done = subprocess.run([DETOUR, "compare", "nope.py"], env=env, capture_output=True, text=True)
    assert done.returncode == 2 and "no such file: nope.py" in done.stderr


@pytest.mark.skipif(not NAMESPACE_MISSING, reason="only where auto falls back to the process backend")
def test_auto_warns_that_process_is_not_isolation(tmp_path):
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    done = subprocess.run([DETOUR, "run", "--", "true"], env=env, capture_output=True, text=True)
    assert "not isolation" in done.stderr
