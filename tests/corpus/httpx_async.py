# expect: proxy=ok rewrite=ok
import asyncio

import httpx


async def main() -> None:
    async with httpx.AsyncClient(headers={"Authorization": "Bearer xoxb-1"}) as client:
        posts = [client.post("https://slack.com/api/chat.postMessage", data={"channel": "general", "text": f"async {i}"})
                 for i in range(3)]
        assert all(r.json()["ok"] for r in await asyncio.gather(*posts))

asyncio.run(main())
