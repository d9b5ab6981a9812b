# expect: proxy=ok rewrite=ok
# http.client does not read proxy variables: proxy mode catches it transparently.
import http.client
import json

conn = http.client.HTTPSConnection("slack.com")
conn.request("POST", "/api/chat.postMessage", body=json.dumps({"channel": "general", "text": "http_client"}),
             headers={"Authorization": "Bearer xoxb-1", "Content-Type": "application/json"})
assert json.loads(conn.getresponse().read())["ok"]
