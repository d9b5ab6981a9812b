"""Assertions on the traffic: "never called chat.delete", "searched before it posted", "at most N
calls", a body field, through the proxy with slack_sdk; the same spec passes for one agent and
fails, naming why, for another."""

from detour_core.policy import Policy, policy_file, save_policy

CAREFUL = """
from slack_sdk import WebClient
client = WebClient(token="xoxb-1")
client.search_messages(query="launch")
client.chat_postMessage(channel="general", text="nothing found about the launch")
"""
CARELESS = """
from slack_sdk import WebClient
client = WebClient(token="xoxb-1")
posted = client.chat_postMessage(channel="general", text="oops")
client.chat_delete(channel=posted["channel"], ts=posted["ts"])
client.search_messages(query="launch")
client.chat_postMessage(channel="general", text="nothing found about the launch")
"""
SPEC = {"assertions": [
    {"diff_type": "requested", "entity": "requests", "where": {"path": "/api/chat.delete"}, "expected_count": 0,
     "description": "never deletes a message"},
    {"diff_type": "requested", "entity": "requests", "where": {"path": "/api/search.messages"},
     "before": {"path": "/api/chat.postMessage"}, "description": "searches before it posts"},
    {"diff_type": "requested", "entity": "requests", "where": {"service": "slack"}, "expected_count": {"max": 3}},
    {"diff_type": "requested", "entity": "requests",
     "where": {"path": "/api/chat.postMessage", "status": 200, "body.text": {"contains": "found"}}},
    {"diff_type": "added", "entity": "messages", "where": {"message_text": {"contains": "found"}}},
]}


def checked(live_stack, api_client, agent: str) -> list[tuple[bool, str]]:
    env = live_stack.env()
    save_policy(policy_file(live_stack.state, env), Policy(capture="bodies"))  # body fields need bodies
    assert live_stack.run(env, agent, ".py").exit_code == 0
    return [(r.passed, r.message) for r in api_client.check(env, SPEC)]


def test_the_careful_agent_passes_every_request_assertion(live_stack, api_client):
    assert all(passed for passed, _ in checked(live_stack, api_client, CAREFUL))


def test_the_careless_agent_fails_them_and_is_told_why(live_stack, api_client):
    results = checked(live_stack, api_client, CARELESS)
    assert [passed for passed, _ in results] == [False, False, False, True, True]
    assert results[0][1] == "1 request(s) matched, expected 0"
    assert results[1][1] == "1 request(s) matched; 1 of those that should follow came before it"
    assert results[2][1] == "4 request(s) matched, expected at most 3"


def test_requests_go_only_with_requested(api_client):
    import pytest
    from mock_services.assertions import InvalidAssertions
    with pytest.raises(InvalidAssertions, match="'requests' goes with diff_type 'requested'"):
        api_client.check("any", {"assertions": [{"diff_type": "added", "entity": "requests"}]})
