"""An agent that uses Slack's official Python SDK, written with no knowledge of detour."""

from slack_sdk import WebClient

slack = WebClient(token="xoxb-agent-token")
me = slack.auth_test()
print(f"signed in as {me['user']} in {me['team']}")

posted = slack.chat_postMessage(channel="general", text="Deploy finished: all green")
print(f"posted at ts={posted['ts']}")

history = slack.conversations_history(channel="general", limit=3)
for message in history["messages"]:
    print(f"  #general <{message['user']}> {message['text']}")
