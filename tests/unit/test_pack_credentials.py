"""Credentials for every service that has them, from each pack's `credentials` hook alone: the
variables a run gets under the names each vendor's own client reads, `detour env tokens`
listing them, and generated packs that refuse a token they did not issue where the
environment requires issued tokens."""

from __future__ import annotations

import base64
import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from detour.cli.common import app
from mock_services.app import create_replica_app
from mock_services.store import EnvironmentStore

# What acme's sandbox gets, by service: each vendor's own names.
ACME = {"SLACK_TOKEN", "SLACK_USER_TOKEN", "SLACK_APP_TOKEN", "LINEAR_API_KEY", "GOOGLE_OAUTH_ACCESS_TOKEN",
        "BOX_DEVELOPER_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "STRIPE_API_KEY", "JIRA_API_TOKEN", "JIRA_EMAIL", "JIRA_URL",
        "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "HUBSPOT_ACCESS_TOKEN", "ZENDESK_API_TOKEN", "ZENDESK_EMAIL",
        "ZENDESK_SUBDOMAIN", "NOTION_TOKEN", "GIT_CONFIG_COUNT", "PAGERDUTY_API_KEY", "PAGERDUTY_FROM",
        "SENDGRID_API_KEY", "ASANA_ACCESS_TOKEN", "INTERCOM_ACCESS_TOKEN", "SENTRY_AUTH_TOKEN", "SENTRY_ORG",
        "DISCORD_BOT_TOKEN", "TRELLO_API_KEY", "TRELLO_TOKEN", "GITLAB_TOKEN", "GITLAB_URL"}


def basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def test_a_world_gives_every_services_variables_and_env_tokens_lists_them(state):
    info = EnvironmentStore(state).create("acme")
    listed = CliRunner().invoke(app, ["env", "tokens", info.env_id, "--json"])
    variables = json.loads(listed.stdout)["variables"]
    assert ACME <= set(variables), ACME - set(variables)
    assert (variables["JIRA_EMAIL"], variables["JIRA_URL"], variables["ZENDESK_SUBDOMAIN"]) == (
        "agent@example.com", "https://acme.atlassian.net", "acme")
    assert variables["STRIPE_API_KEY"].startswith("sk_test_") and variables["TWILIO_ACCOUNT_SID"].startswith("AC")
    assert [variables[f"GIT_CONFIG_KEY_{n}"] for n in range(3)] == [
        "credential.https://github.com.helper", "user.name", "user.email"]
    lines = CliRunner().invoke(app, ["env", "tokens", info.env_id]).stdout.splitlines()
    assert f"NOTION_TOKEN={variables['NOTION_TOKEN']}" in lines and len(lines) > len(variables)


@pytest.mark.parametrize("template, path, auth", [
    ("stripe_default", "stripe/v1/customers", lambda v: {"Authorization": f"Bearer {v['STRIPE_API_KEY']}"}),
    ("twilio_default", "twilio/2010-04-01/Accounts/{TWILIO_ACCOUNT_SID}/Messages.json",
     lambda v: basic(v["TWILIO_ACCOUNT_SID"], v["TWILIO_AUTH_TOKEN"])),
    ("jira_default", "jira/rest/api/3/myself", lambda v: basic(v["JIRA_EMAIL"], v["JIRA_API_TOKEN"])),
    ("hubspot_default", "hubspot/crm/v3/objects/contacts",
     lambda v: {"Authorization": f"Bearer {v['HUBSPOT_ACCESS_TOKEN']}"}),
    ("zendesk_default", "zendesk/api/v2/users/me.json",
     lambda v: basic(f"{v['ZENDESK_EMAIL']}/token", v["ZENDESK_API_TOKEN"])),
    ("notion_default", "notion/v1/users/me", lambda v: {"Authorization": f"Bearer {v['NOTION_TOKEN']}",
                                                        "Notion-Version": "2025-09-03"}),
    ("pagerduty_default", "pagerduty/users/me", lambda v: {"Authorization": f"Token token={v['PAGERDUTY_API_KEY']}"}),
    ("sendgrid_default", "sendgrid/v3/teammates", lambda v: {"Authorization": f"Bearer {v['SENDGRID_API_KEY']}"}),
    ("asana_default", "asana/api/1.0/users/me", lambda v: {"Authorization": f"Bearer {v['ASANA_ACCESS_TOKEN']}"}),
    ("intercom_default", "intercom/me", lambda v: {"Authorization": f"Bearer {v['INTERCOM_ACCESS_TOKEN']}"}),
    ("sentry_default", "sentry/api/0/organizations/acme/issues/",
     lambda v: {"Authorization": f"Bearer {v['SENTRY_AUTH_TOKEN']}"}),
    ("discord_default", "discord/api/v10/users/@me", lambda v: {"Authorization": f"Bot {v['DISCORD_BOT_TOKEN']}"}),
    ("gitlab_default", "gitlab/api/v4/user", lambda v: {"PRIVATE-TOKEN": v["GITLAB_TOKEN"]}),
    ("gitlab_default", "gitlab/api/v4/projects/acme%2Fcheckout", lambda v: {"Authorization": f"Bearer {v['GITLAB_TOKEN']}"}),
])
def test_a_generated_pack_takes_its_issued_credentials_and_refuses_others_where_required(state, template, path, auth):
    store = EnvironmentStore(state)
    env = store.create(template, require_issued_tokens=True).env_id
    variables = store.credentials(env).variables
    client = TestClient(create_replica_app(state))
    url = f"/api/env/{env}/services/{path.format(**variables)}"
    assert client.get(url, headers=auth(variables)).status_code == 200
    made_up = {name: value[:-3] + "xyz" if "TOKEN" in name or "KEY" in name else value
               for name, value in variables.items()}
    assert client.get(url, headers=auth(made_up)).status_code == 401
