"""Secrets at the boundary without a running proxy: the placeholder's shape, the store, and the
injector's swap (only to the secret's hosts, only what the rules allowed, put back after)."""

import json

import pytest
import typer
from mitmproxy.test import taddons, tflow

from detour_core.audit import Verdict
from detour_core.policy import Policy, SecretRules
from detour_core.secrets import InvalidSecret, SecretStore, placeholder_for
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.secret_injection import SecretInjector
from proxy_addons.verdict import METADATA_KEY

VALUE = "sk-ant-api03-" + "x" * 40
EVERYWHERE = SecretRules(inject=["header", "query", "body"], headers=["x-api-key"])


def test_a_placeholder_keeps_the_values_shape_and_nothing_of_it():
    made = placeholder_for(VALUE)
    assert made.startswith("sk-ant-api03-") and len(made) == len(VALUE) and "x" * 8 not in made
    assert len(placeholder_for("a-short-secret")) == 14 and placeholder_for("abcdefgh") != placeholder_for("abcdefgh")
    assert len(placeholder_for("1234")) == 8  # fewer random characters could turn up by chance


def test_the_store_keeps_values_from_others_and_refuses_what_it_cannot_use(state):
    store = SecretStore(state.secrets_dir)
    kept = store.set("env-a", "API_KEY", VALUE, ["api.anthropic.com", "*.models.test"])
    assert store.placeholders("env-a") == {"API_KEY": kept.placeholder}
    assert store.set("env-a", "API_KEY", VALUE, ["api.anthropic.com"]).placeholder == kept.placeholder
    # 0640 in a 0700 folder: only a proxy user's group (detour/proxy_user.py) may be let in
    assert (state.secrets_dir / "env-a.json").stat().st_mode & 0o777 == 0o640
    assert state.secrets_dir.stat().st_mode & 0o777 == 0o700
    for name, value, hosts in (("2X", "v", ["a.test"]), ("X", "", ["a.test"]), ("X", "v", []),
                               ("X", "v", ["a.test/path"])):
        with pytest.raises(InvalidSecret):
            store.set("env-a", name, value, hosts)
    assert list(store.all("env-a")) == ["API_KEY"]  # nothing stored was lost
    store.remove("env-a", "API_KEY")
    assert store.all("env-a") == {}


def flow_to(host: str, decision: str, placeholder: str, env_id: str = "env-a"):
    flow = tflow.tflow()
    flow.request.host, flow.request.path = host, f"/v1?key={placeholder}"
    flow.request.headers["x-api-key"] = placeholder
    flow.request.headers["authorization"] = f"Bearer {placeholder}"
    flow.request.text = f'{{"key": "{placeholder}"}}'
    flow.metadata[ENV_KEY] = env_id
    flow.metadata[METADATA_KEY] = Verdict(decision=decision, host=host, port=443, scheme="https", path="/v1")
    return flow


def test_by_default_only_the_authorization_header_gets_the_value(state):
    secret = SecretStore(state.secrets_dir).set("env-a", "API_KEY", VALUE, ["api.anthropic.com"])
    injector = SecretInjector()
    with taddons.context(injector) as tctx:
        tctx.options.update(detour_secrets_dir=str(state.secrets_dir))
        flow = flow_to("api.anthropic.com", "allowed", secret.placeholder)
        injector.request(flow)
        assert flow.request.headers["authorization"] == f"Bearer {VALUE}"
        assert VALUE not in flow.request.text + flow.request.path + flow.request.headers["x-api-key"]
        verdict = flow.metadata[METADATA_KEY]
        assert verdict.secrets == ["API_KEY"] and verdict.placeholders == ["API_KEY"]  # the rest went as it was


def test_the_injector_swaps_only_for_the_secrets_hosts_and_puts_it_back(state):
    secret = SecretStore(state.secrets_dir).set("env-a", "API_KEY", VALUE, ["api.anthropic.com"], EVERYWHERE)
    injector = SecretInjector()
    with taddons.context(injector) as tctx:
        tctx.options.update(detour_secrets_dir=str(state.secrets_dir))
        mine = flow_to("api.anthropic.com", "allowed", secret.placeholder)
        injector.request(mine)
        assert mine.request.headers["x-api-key"] == VALUE and VALUE in mine.request.path
        assert VALUE in mine.request.text and mine.metadata[METADATA_KEY].secrets == ["API_KEY"]
        injector.responseheaders(mine)
        assert VALUE not in mine.request.text + mine.request.path + mine.request.headers["x-api-key"]
        for host, decision in (("other.test", "allowed"), ("api.anthropic.com", "denied"), ("slack.com", "routed")):
            other = flow_to(host, decision, secret.placeholder)
            injector.request(other)
            assert other.request.headers["x-api-key"] == secret.placeholder
            assert other.metadata[METADATA_KEY].placeholders == ["API_KEY"] and other.metadata[METADATA_KEY].secrets is None
        stranger = flow_to("api.anthropic.com", "allowed", secret.placeholder, env_id="env-b")
        injector.request(stranger)
        assert stranger.request.headers["x-api-key"] == secret.placeholder  # another environment's secret


def test_a_streamed_body_is_swapped_chunk_by_chunk_even_where_a_placeholder_straddles_two(state):
    store = SecretStore(state.secrets_dir)
    secret = store.set("env-a", "API_KEY", VALUE, ["api.anthropic.com"], EVERYWHERE)
    short = store.set("env-a", "SHORT_KEY", "k-123", ["api.anthropic.com"], EVERYWHERE)  # its placeholder is longer
    other = store.set("env-a", "OTHER_KEY", VALUE.replace("x", "y"), ["api.other.test"])
    injector = SecretInjector()
    with taddons.context(injector) as tctx:
        tctx.options.update(detour_secrets_dir=str(state.secrets_dir))
        flow = flow_to("api.anthropic.com", "allowed", secret.placeholder)
        flow.request.stream = True  # as RequestLimits sets it for a large body to an allowed host
        injector.requestheaders(flow)
        assert flow.request.headers["x-api-key"] == VALUE, "the headers leave before `request`: swapped now"
        body = f"a{secret.placeholder}b{short.placeholder}c{other.placeholder}d{secret.placeholder}".encode()
        chunks = [body[i:i + 7] for i in range(0, len(body), 7)] + [b""]  # b"": the end
        sent = [piece for chunk in chunks for piece in flow.request.stream(chunk)]
        assert b"".join(sent) == body.replace(secret.placeholder.encode(), VALUE.encode())
        assert b"" not in sent and len(b"".join(sent)) == len(body), "the declared length holds"
        verdict = flow.metadata[METADATA_KEY]
        assert verdict.secrets == ["API_KEY"] and verdict.placeholders == ["SHORT_KEY", "OTHER_KEY"]
        injector.request(flow)  # the body has gone: nothing more to do
        injector.responseheaders(flow)
        assert flow.request.headers["x-api-key"] == secret.placeholder


def test_the_servers_secrets_reach_every_environment_and_its_own_win(state):
    from detour_core.secrets import SERVER
    store = SecretStore(state.secrets_dir)
    shared = store.set(SERVER, "MODEL_KEY", "sk-shared-" + "s" * 30, ["api.models.test"], EVERYWHERE)
    own = store.set("env-a", "MODEL_KEY", "sk-own-" + "o" * 30, ["api.models.test"])
    assert store.placeholders("env-a") == {"MODEL_KEY": own.placeholder}
    assert store.placeholders("env-b") == {"MODEL_KEY": shared.placeholder}
    assert list(json.loads((state.secrets_dir / "env-a.json").read_text())) == ["MODEL_KEY"]  # not the server's
    injector = SecretInjector()
    with taddons.context(injector) as tctx:
        tctx.options.update(detour_secrets_dir=str(state.secrets_dir))
        flow = flow_to("api.models.test", "allowed", shared.placeholder, env_id="env-b")
        injector.request(flow)
        assert flow.request.headers["x-api-key"] == "sk-shared-" + "s" * 30


def test_serve_takes_its_secrets_from_its_own_environment(state, monkeypatch):
    from detour.cli.serve import server_secrets
    from detour_core.secrets import SERVER
    monkeypatch.setenv("PARTNER_KEY", "pk-" + "p" * 30)
    server_secrets(state, ["PARTNER_KEY=api.partner.test,*.partner.test"], Policy())
    assert SecretStore(state.secrets_dir).all("env-z")["PARTNER_KEY"].hosts == ["api.partner.test", "*.partner.test"]
    for bad in ("PARTNER_KEY", "UNSET_KEY=api.partner.test"):
        with pytest.raises(typer.Exit):
            server_secrets(state, [bad], Policy())
    server_secrets(state, [], Policy())  # a server without --secret leaves none of an earlier one's
    assert not (state.secrets_dir / f"{SERVER}.json").exists()


def test_a_policy_file_names_where_a_secrets_value_comes_from_never_the_value(state, tmp_path, monkeypatch):
    """Applied, a policy's secrets are read from their sources into the store; the policy kept
    under $DETOUR_HOME names the source only. One that cannot be read makes no environment."""
    import detour
    from detour_core.policy import InvalidPolicy, load_policy, policy_file
    monkeypatch.setenv("MODEL_KEY", "sk-ant-" + "m" * 40)
    (tmp_path / "partner").write_text("pk-" + "p" * 30 + "\n")
    policy = Policy(allow=["api.models.test"], secrets=[
        {"name": "MODEL_KEY", "hosts": ["api.models.test"], "from_env": "MODEL_KEY"},
        {"name": "PARTNER_KEY", "hosts": ["api.partner.test"], "file": str(tmp_path / "partner"),
         "inject": ["body", "header"], "headers": ["X-Api-Key"], "unchecked": "pass"}])
    with detour.Client(home=state.home) as client:
        env = client.environments.create("slack_default", policy=policy).env_id
        kept = SecretStore(state.secrets_dir).all(env)
        assert (kept["MODEL_KEY"].value, kept["PARTNER_KEY"].value) == ("sk-ant-" + "m" * 40, "pk-" + "p" * 30)
        assert (kept["MODEL_KEY"].inject, kept["MODEL_KEY"].unchecked) == (["header"], "refuse")  # the defaults
        assert (kept["PARTNER_KEY"].inject, kept["PARTNER_KEY"].headers) == (["header", "body"], ["x-api-key"])
        assert "sk-ant-" not in policy_file(state, env).read_text()
        assert load_policy(policy_file(state, env)).secrets[0].from_env == "MODEL_KEY"
        before = client.environments.list()
        missing = Policy(secrets=[{"name": "GONE", "hosts": ["api.models.test"], "from_env": "NOT_SET_HERE"}])
        with pytest.raises(InvalidPolicy, match="NOT_SET_HERE is not set"):
            client.environments.create("slack_default", policy=missing)
        assert client.environments.list() == before
    for both_or_neither in ({"from_env": "A", "file": "/x"}, {}):
        with pytest.raises(ValueError, match="one of them"):
            Policy(secrets=[{"name": "X", "hosts": ["api.models.test"], **both_or_neither}])
    for bad, message in (({"inject": ["cookie"]}, "header"), ({"inject": []}, "at least 1"),
                         ({"headers": ["bad header"]}, "not a header name"), ({"unchecked": "maybe"}, "refuse")):
        with pytest.raises(ValueError, match=message):
            Policy(secrets=[{"name": "X", "hosts": ["api.models.test"], "from_env": "A", **bad}])
