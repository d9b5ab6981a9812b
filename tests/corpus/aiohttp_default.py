# expect: proxy=ok rewrite=ok
# aiohttp ignores proxy variables by default: proxy mode catches it transparently.
import asyncio

import aiohttp


async def main() -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post("https://slack.com/api/reactions.add", headers={"Authorization": "Bearer xoxb-1"},
                                data={"channel": "general", "timestamp": "1699564800.000123", "name": "eyes"}) as r:
            assert (await r.json())["ok"]

asyncio.run(main())
