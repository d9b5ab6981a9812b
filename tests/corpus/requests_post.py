# expect: proxy=ok rewrite=ok
import requests

r = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                  data={"channel": "general", "text": "requests_post"})
assert r.json()["ok"], r.text
