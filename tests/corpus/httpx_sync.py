# expect: proxy=ok rewrite=ok
import httpx

r = httpx.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
               json={"channel": "general", "text": "httpx_sync"})
assert r.json()["ok"], r.text
