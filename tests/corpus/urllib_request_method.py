# expect: proxy=ok rewrite=ok
# A Request's method must survive rewriting (AgentDiff's prelude lost it).
import json
import urllib.request

request = urllib.request.Request("https://slack.com/api/chat.postMessage", method="POST",
                                 data=b"channel=random&text=urllib_method",
                                 headers={"Authorization": "Bearer xoxb-1",
                                          "Content-Type": "application/x-www-form-urlencoded"})
assert request.get_method() == "POST"
assert json.load(urllib.request.urlopen(request))["ok"]
