# expect: proxy=ok rewrite=ok
from slack_sdk import WebClient

slack = WebClient(token="xoxb-1")
newest = slack.conversations_history(channel="general", limit=1)["messages"][0]
slack.chat_postMessage(channel="general", text="thread reply", thread_ts=newest["ts"])
slack.reactions_add(channel="general", timestamp=newest["ts"], name="white_check_mark")
