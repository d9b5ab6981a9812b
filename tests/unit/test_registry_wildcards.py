"""A pack may name every tenant's host with a pattern (`*.atlassian.net`): the registry routes
`acme.atlassian.net` to it, a named host still wins over a pattern, and the pattern stays out
of the host lists that need names (a sandbox's /etc/hosts)."""

from __future__ import annotations

import pytest

from detour_core import registry

PACK = '''
from pathlib import Path
from detour_core.pack import ServicePack
PACK = ServicePack(name="{name}", hosts={hosts!r}, router="x:y", templates=Path("."), signature_tables=("{name}_t",))
'''


@pytest.fixture
def tenant_packs(tmp_path, monkeypatch):
    (tmp_path / "tenant_a.py").write_text(PACK.format(name="tenants", hosts=("*.tenant.test",)))
    (tmp_path / "tenant_b.py").write_text(PACK.format(name="named", hosts=("status.tenant.test/api",)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(registry.EXTRA_PACKS_VARIABLE, "tenant_a,tenant_b")


def test_a_tenant_pattern_routes_every_tenant(tenant_packs):
    assert registry.service_for("acme.tenant.test", "/rest/api/3/myself") == "tenants"
    assert registry.service_for("ACME.Tenant.Test.", "/") == "tenants"
    assert registry.service_for("a.b.tenant.test") == "tenants"
    assert registry.service_for("tenant.test") is None and registry.service_for("eviltenant.test") is None
    assert registry.is_replicated_host("globex.tenant.test") and not registry.is_replicated_host("tenant.test")


def test_a_named_host_wins_over_a_pattern(tenant_packs):
    assert registry.service_for("status.tenant.test", "/api/x") == "named"
    assert registry.service_for("status.tenant.test", "/other") == "tenants"


def test_patterns_are_not_hosts(tenant_packs):
    assert "status.tenant.test" in registry.replicated_hosts()
    assert not [h for h in registry.replicated_hosts() if h.startswith("*")]
