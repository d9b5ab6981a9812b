"""What the proxy keeps between requests so as not to redo it per request (issue #37's CPU per
request) still answers as if made afresh: the merged policy, the registry's route table, the
rate limits' running byte count."""

import os

import pytest
from mitmproxy.test import taddons

from detour_core import registry
from detour_core.hosts import host_matches, path_matches
from detour_core.policy import Policy, policy_file, save_policy
from proxy_addons.policies import Policies


def test_an_environments_merged_policy_is_kept_until_either_file_changes(state):
    policies = Policies()
    server = state.home / "server-policy.json"
    save_policy(server, Policy(capture="headers"))
    with taddons.context(policies) as tctx:
        tctx.options.update(detour_policy=str(server), detour_policies_dir=str(state.policies_dir))
        first = policies.for_env("env-a")
        assert first.capture == "headers" and policies.for_env("env-a") is first
        own = policy_file(state, "env-a")
        save_policy(own, Policy(capture="bodies", allow=["api.example.com"]))
        os.utime(own, (1, 1))  # another mtime than any before, whatever the clock's grain
        changed = policies.for_env("env-a")
        assert changed.capture == "bodies" and changed.allow == ["api.example.com"]
        save_policy(server, Policy(capture="off", allow=["api.other.com"]))
        os.utime(server, (2, 2))
        assert policies.for_env("env-a").allow == ["api.example.com", "api.other.com"]
        assert policies.for_env("env-b").allow == ["api.other.com"]


def every_route() -> list[tuple[str, str]]:
    return [(host, prefix) for p in registry.packs() for host, prefix in p.host_routes()]


def brute_force(host: str, path: str) -> list[str]:
    """services_for as the registry answered before it kept a table: every pack's every route."""
    path = path.split("?", 1)[0] or "/"
    best: tuple[tuple[int, int], list[str]] = ((-1, -1), [])
    for p in registry.packs():
        for route_host, prefix in p.host_routes():
            rank = (0 if route_host.startswith("*.") else 1, len(prefix))
            if host_matches(host, route_host) and path_matches(path, prefix):
                if rank > best[0]:
                    best = (rank, [p.name])
                elif rank == best[0] and p.name not in best[1]:
                    best[1].append(p.name)
    return best[1]


@pytest.mark.parametrize("host,prefix", every_route())
def test_the_route_table_answers_as_every_packs_routes_do(host, prefix):
    name = host.replace("*", "acme")
    for path in (prefix, prefix.rstrip("/") + "/x/y?q=1", "/", "/elsewhere"):
        assert registry.services_for(name, path) == brute_force(name, path), (name, path)
        assert registry.services_for(name.upper() + ".", path) == brute_force(name, path)
    assert registry.is_replicated_host(name) and not registry.is_replicated_host(name + ".example")


def test_the_rate_limits_forget_an_environment_whose_last_body_is_a_second_old(monkeypatch):
    from proxy_addons import rate_limits
    limits, policy, now = rate_limits.RateLimits(), Policy(max_bytes_per_second=100), [1000.0]
    monkeypatch.setattr(rate_limits.time, "monotonic", lambda: now[0])
    limits.recent["env-a"].append((now[0], 60))
    limits.recent_bytes["env-a"] += 60
    assert limits._over_bytes("env-a", 50, policy) and not limits._over_bytes("env-a", 40, policy)
    now[0] += 1.0
    assert limits._over_bytes("env-a", 50, policy) is None
    assert "env-a" not in limits.recent and "env-a" not in limits.recent_bytes
