"""Issued Slack tokens: a token says who acts, issued tokens meet Slack's rules on others'
messages, and an environment that requires them refuses any other token; remote files and
profile photos, whose arguments travel as multipart parts."""

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.store import EnvironmentStore

GENERAL, ENGINEERING = "C01ABCD1234", "C03IJKL9012"
AGENT, JOHN, ROBERT = "U01AGENBOT9", "U02JOHNDOE1", "U03ROBERT23"
AGENT_MSG, JOHN_MSG = "1699564800.000123", "1699737600.000654"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@pytest.fixture
def workspace(state):
    """slack_bench_v2 (the agent is a bot user, Robert an admin), twice: a default environment
    and one that requires issued tokens."""
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    envs = {"default": store.create("slack_bench_v2").env_id,
            "strict": store.create("slack_bench_v2", require_issued_tokens=True).env_id}

    def call(method, token, env="default", files=None, **params):
        response = client.post(f"/api/env/{envs[env]}/services/slack/api/{method}",
                               headers={"Authorization": f"Bearer {token}"}, data=params, files=files)
        assert response.status_code == 200, response.text
        return response.json()
    call.tokens = {name: store.credentials(env).tokens for name, env in envs.items()}
    call.variables = store.credentials(envs["default"]).variables
    return call


def test_every_user_gets_a_token_of_their_kind_and_the_sandbox_the_acting_users(workspace):
    tokens = workspace.tokens["default"]
    assert tokens[AGENT].startswith("xoxb-") and tokens[JOHN].startswith("xoxp-")
    assert workspace.variables == {"SLACK_TOKEN": tokens[AGENT], "SLACK_BOT_TOKEN": tokens[AGENT],
                                   "SLACK_APP_TOKEN": workspace.variables["SLACK_APP_TOKEN"],
                                   "SLACK_SIGNING_SECRET": workspace.variables["SLACK_SIGNING_SECRET"]}
    assert workspace.variables["SLACK_APP_TOKEN"].startswith("xapp-1-" + AGENT)
    assert tokens != workspace.tokens["strict"], "an environment's tokens are its own"


def test_an_issued_token_acts_as_its_user_and_a_bot_token_carries_its_bot(workspace):
    tokens = workspace.tokens["default"]
    me = workspace("auth.test", tokens[JOHN])
    assert (me["user_id"], "bot_id" in me) == (JOHN, False)
    bot = workspace("auth.test", tokens[AGENT])
    assert bot["user_id"] == AGENT and bot["bot_id"] == "B" + AGENT[1:]
    assert workspace("bots.info", tokens[JOHN], bot=bot["bot_id"])["bot"]["user_id"] == AGENT
    posted = workspace("chat.postMessage", tokens[AGENT], channel=GENERAL, text="from the bot")
    assert posted["message"]["bot_id"] == bot["bot_id"]
    by_john = workspace("chat.postMessage", tokens[JOHN], channel=GENERAL, text="from John")
    assert by_john["message"]["user"] == JOHN and "bot_id" not in by_john["message"]


def test_any_other_token_acts_as_the_environments_user_unless_issued_ones_are_required(workspace):
    assert workspace("auth.test", "xoxb-made-up")["user_id"] == AGENT
    strict = workspace.tokens["strict"]
    assert workspace("auth.test", strict[JOHN], env="strict")["user_id"] == JOHN
    forged = strict[JOHN].rsplit("-", 1)[0] + "-" + "0" * 24
    elsewhere = workspace.tokens["default"][JOHN]
    for token in ("xoxb-made-up", forged, elsewhere, strict[JOHN].replace("xoxp-", "xoxb-")):
        assert workspace("auth.test", token, env="strict") == {"ok": False, "error": "invalid_auth"}, token


def test_issued_tokens_meet_slacks_rules_on_others_messages(workspace):
    tokens = workspace.tokens["default"]
    args = {"channel": ENGINEERING, "ts": JOHN_MSG}
    assert workspace("chat.update", tokens[AGENT], text="edited", **args)["error"] == "cant_update_message"
    assert workspace("chat.update", tokens[ROBERT], text="edited", **args)["error"] == "cant_update_message"
    assert workspace("chat.delete", tokens[AGENT], **args)["error"] == "cant_delete_message"
    assert workspace("chat.update", tokens[JOHN], text="edited by John", **args)["ok"]
    assert workspace("chat.delete", tokens[ROBERT], **args)["ok"], "an admin's user token deletes others' messages"
    # an unissued token acts as the environment's user and meets the same rules
    assert workspace("chat.update", "xoxb-agentdiff", channel=GENERAL, ts=AGENT_MSG, text="x")["ok"]
    engineering = workspace("conversations.history", "xoxb-agentdiff", channel=ENGINEERING)["messages"]
    someone_elses = next(m["ts"] for m in engineering if m["user"] not in (AGENT, JOHN))
    assert workspace("chat.update", "xoxb-agentdiff", channel=ENGINEERING, ts=someone_elses,
                     text="x")["error"] == "cant_update_message"
    assert workspace("chat.delete", "xoxb-agentdiff", channel=ENGINEERING,
                     ts=someone_elses)["error"] == "cant_delete_message"


def test_remote_files_are_added_shared_found_updated_and_removed(workspace):
    token = workspace.tokens["default"][AGENT]
    added = workspace("files.remote.add", token, external_id="doc-1", external_url="https://docs.example/1",
                      title="Plan", files={"indexable_file_contents": ("plan.txt", b"quarterly plan")})["file"]
    assert (added["mode"], added["is_external"], added["external_id"], added["title"]) == \
        ("external", True, "doc-1", "Plan")
    shared = workspace("files.remote.share", token, external_id="doc-1", channels=GENERAL)["file"]
    assert shared["channels"] == [GENERAL]
    history = workspace("conversations.history", token, channel=GENERAL, limit=1)["messages"]
    assert history[0]["files"][0]["id"] == added["id"]
    assert workspace("files.remote.info", token, file=added["id"])["file"]["external_url"] == "https://docs.example/1"
    assert workspace("files.remote.update", token, external_id="doc-1", title="Plan v2")["file"]["title"] == "Plan v2"
    assert [f["id"] for f in workspace("files.remote.list", token, channel=GENERAL)["files"]] == [added["id"]]
    bad = workspace("files.remote.add", token, external_id="doc-2", external_url="u", title="t",
                    files={"preview_image": ("p.png", b"not an image")})
    assert bad["error"] == "bad_image"
    assert workspace("files.remote.remove", workspace.tokens["default"][JOHN], file=added["id"])["error"] == \
        "not_allowed"
    assert workspace("files.remote.remove", token, external_id="doc-1")["ok"]
    assert workspace("files.remote.info", token, external_id="doc-1")["error"] == "file_not_found"


def test_a_profile_photo_is_a_multipart_part_read_not_dropped(workspace):
    token = workspace.tokens["default"][JOHN]
    before = workspace("users.profile.get", token)["profile"]
    assert workspace("users.setPhoto", token, files={"image": ("me.png", PNG)})["ok"]
    after = workspace("users.profile.get", token)["profile"]
    assert after["is_custom_image"] and after["image_192"] != before["image_192"]
    assert workspace("users.setPhoto", token, files={"image": ("me.txt", b"text")})["error"] == "bad_image"
    assert workspace("users.deletePhoto", token)["ok"]
    assert workspace("users.profile.get", token)["profile"]["image_192"] == before["image_192"]
