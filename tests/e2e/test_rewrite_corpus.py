"""Proxy mode against rewrite mode on a corpus of agent programs.

Each program in tests/corpus states what it expects in each mode (`expect: proxy=ok
rewrite=missed`) and optionally its template. Programs run on the isolating backends only
(namespace and docker), so a request that rewrite mode fails to redirect is rejected on
this machine and never heads for the real network.
"""

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from detour.compare import Comparison, compare
from sandbox.languages import command_for
from tests.conftest import ISOLATING, needs_namespaces

pytestmark = needs_namespaces
CORPUS = sorted((Path(__file__).parents[1] / "corpus").iterdir())


def header(program: Path, key: str, default: str | None = None) -> str:
    found = re.search(rf"^(?:#|//) {key}: (.+)$", program.read_text(), re.MULTILINE)
    return found.group(1).strip() if found else default


def expected(program: Path) -> dict[str, str]:
    return dict(pair.split("=") for pair in header(program, "expect").split())


def outcome(result) -> str:
    return "ok" if result.exit_code == 0 and any(r.decision == "routed" for r in result.requests) else "missed"


@pytest.fixture(scope="module", params=ISOLATING)
def comparisons(live_stack, request) -> dict[str, Comparison]:
    sandbox = live_stack.sandbox(request.param)

    def one(program: Path) -> Comparison:
        return compare(live_stack.state, live_stack.info, sandbox, header(program, "template", "slack_default"),
                       command_for(program, sandbox.runtime), program)

    with ThreadPoolExecutor(4) as pool:
        return dict(zip((p.name for p in CORPUS), pool.map(one, CORPUS)))


def test_the_corpus_is_broad():
    assert len(CORPUS) >= 30
    assert {p.suffix for p in CORPUS} >= {".py", ".ts", ".mjs", ".cjs", ".sh", ".pl"}


@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.name)
def test_each_program_meets_its_expectation_in_both_modes(comparisons, program):
    c = comparisons[program.name]
    got = {"proxy": outcome(c.proxy), "rewrite": outcome(c.rewrite)}
    assert got == expected(program), (c.proxy.stderr[-500:], c.rewrite.stderr[-500:])
    assert {r.mode for r in c.rewrite.requests if r.decision == "routed"} <= {"rewrite"}
    if got == {"proxy": "ok", "rewrite": "ok"}:
        assert c.states_match, (c.only_in_proxy, c.only_in_rewrite)
        assert c.proxy.diff.inserts or c.proxy.diff.updates  # the program did change something


def test_proxy_mode_covers_everything_rewrite_mode_covers(comparisons):
    only_proxy = sorted(n for n, c in comparisons.items() if outcome(c.proxy) == "ok" and outcome(c.rewrite) != "ok")
    only_rewrite = sorted(n for n, c in comparisons.items() if outcome(c.rewrite) == "ok" and outcome(c.proxy) != "ok")
    print("\nonly proxy mode covers:", ", ".join(only_proxy))
    assert only_proxy == ["curl_absolute_path.sh", "curl_config_file.sh", "perl_http_tiny.pl", "raw_ssl_socket.py"]
    assert only_rewrite == []
