# expect: proxy=ok rewrite=ok
import http.client
import json

conn = http.client.HTTPConnection("api.slack.com", 80)
conn.request("POST", "/api/chat.postMessage", body="channel=general&text=plain_http",
             headers={"Authorization": "Bearer xoxb-1", "Content-Type": "application/x-www-form-urlencoded"})
assert json.loads(conn.getresponse().read())["ok"]
