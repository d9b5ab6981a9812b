# expect: proxy=ok rewrite=ok
import json
import urllib.request

with urllib.request.urlopen("https://slack.com/api/users.list?token=xoxb-1&limit=2") as r:
    members = json.load(r)["members"]
data = json.dumps({"channel": "general", "text": f"{len(members)} members"}).encode()
request = urllib.request.Request("https://slack.com/api/chat.postMessage?token=xoxb-1", data=data,
                                 headers={"Content-Type": "application/json"})
assert json.load(urllib.request.urlopen(request))["ok"]
