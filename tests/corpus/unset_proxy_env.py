# expect: proxy=ok rewrite=ok
# Code that removes the proxy variables: proxy mode still catches it transparently.
import os

for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
    os.environ.pop(name, None)
import requests

assert requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                     data={"channel": "general", "text": "no proxy env"}).json()["ok"]
