# expect: proxy=ok rewrite=ok
import asyncio

from slack_sdk.web.async_client import AsyncWebClient


async def main() -> None:
    slack = AsyncWebClient(token="xoxb-1")
    assert (await slack.chat_postMessage(channel="random", text="slack_sdk_async"))["ok"]

asyncio.run(main())
