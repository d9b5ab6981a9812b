# expect: proxy=ok rewrite=ok
import requests

with requests.Session() as s:
    s.headers["Authorization"] = "Bearer xoxb-1"
    channels = s.get("https://slack.com/api/conversations.list").json()["channels"]
    random = next(c["id"] for c in channels if c["name"] == "random")
    assert s.post("https://api.slack.com/api/chat.postMessage", json={"channel": random, "text": "session"}).json()["ok"]
