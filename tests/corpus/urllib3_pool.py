# expect: proxy=ok rewrite=ok
import json

import urllib3

pool = urllib3.PoolManager(headers={"Authorization": "Bearer xoxb-1"})
r = pool.request("POST", "https://slack.com/api/chat.postMessage", fields={"channel": "general", "text": "urllib3"},
                 encode_multipart=False)
assert json.loads(r.data)["ok"]
