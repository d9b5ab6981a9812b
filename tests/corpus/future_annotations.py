# expect: proxy=ok rewrite=ok
from __future__ import annotations

import requests


def post(text: str) -> dict[str, object]:
    return requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                         data={"channel": "general", "text": text}).json()


assert post("future annotations")["ok"]
