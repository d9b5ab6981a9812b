"""Builds templates/discord_default.json: Acme's Discord server. The acme world's people
(mock_services/worlds/acme/people.json) are its users and members (their emails kept on their
user rows, which Discord shows only to themselves); the Acme guild has #general, #engineering
and #launch; #engineering holds a short thread about ENG-5. Ids are snowflakes drawn from a
hash of what they name, in the order things happened.

    python -m mock_services.discord.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
EPOCH = 1420070400000  # Discord's epoch, in ms
AT_MS = 1767603600000  # 2026-01-05 09:00 UTC


def snowflake(name: str, at_ms: int = AT_MS) -> str:
    return str(((at_ms - EPOCH) << 22) | (int(hashlib.sha256(f"acme:discord:{name}".encode()).hexdigest(), 16)
                                          % (1 << 22)))


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    users = {p["person"]: {"id": snowflake(f"user:{p['email']}"), "username": p["person"],
                           "global_name": p["name"], "discriminator": "0", "avatar": None, "bot": False,
                           "flags": 0, "public_flags": 0, "email": p["email"], "verified": True} for p in people}
    guild = {"id": snowflake("guild:acme"), "name": "Acme", "icon": None, "owner_id": users["john"]["id"],
             "owner": False, "permissions": "2248473465835073", "features": [], "description": "Acme's server"}
    channels = [{"id": snowflake(f"channel:{name}"), "guild_id": guild["id"], "name": name, "type": 0,
                 "position": position, "topic": topic, "nsfw": False, "flags": 0, "parent_id": None,
                 "permission_overwrites": [], "last_message_id": None}
                for position, (name, topic) in enumerate((("general", "Anything Acme"),
                                                          ("engineering", "Building Acme"),
                                                          ("launch", "Checkout v2 launch")))]
    members = [{"id": u["id"], "guild_id": guild["id"], "user": {k: v for k, v in u.items() if k != "email"},
                "nick": None, "roles": [], "joined_at": "2025-06-02T09:00:00+00:00", "deaf": False, "mute": False,
                "flags": 0, "pending": False} for u in users.values()]
    engineering = channels[1]
    messages = []
    for minute, (who, text) in enumerate((("robert", "ENG-5: checkout fails for carts over 50 items, looking now."),
                                          ("yuki", "The cart page only loads the first 50, I can reproduce."),
                                          ("john", "Thanks both, let's fix it before the launch review."))):
        at = AT_MS + 60_000 * minute
        author = {k: v for k, v in users[who].items() if k != "email"}
        messages.append({"id": snowflake(f"message:{minute}", at), "channel_id": engineering["id"], "type": 0,
                         "content": text, "author": author, "timestamp": f"2026-01-05T09:{minute:02d}:00+00:00",
                         "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [],
                         "mention_roles": [], "attachments": [], "embeds": [], "components": [], "pinned": False,
                         "flags": 0, "reactions": []})
    engineering["last_message_id"] = messages[-1]["id"]
    return {"discord_users": list(users.values()), "discord_guilds": [guild], "discord_channels": channels,
            "discord_members": members, "discord_messages": messages}


def main() -> None:
    (HERE / "templates" / "discord_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
