# expect: proxy=ok rewrite=ok
import asyncio

import aiohttp


async def main() -> None:
    async with aiohttp.ClientSession(trust_env=True) as session:
        async with session.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                                data={"channel": "general", "text": "aiohttp_trust_env"}) as r:
            assert (await r.json())["ok"]

asyncio.run(main())
