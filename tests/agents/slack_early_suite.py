"""A scripted agent for AgentDiff's early Slack suite: what a careful agent would do for each
prompt, with slack_sdk, unaware of detour. `detour suite run` passes DETOUR_TEST_ID and
DETOUR_PROMPT; `--lazy` does nothing useful, so every test must fail."""

import os
import sys

from slack_sdk import WebClient

slack = WebClient(token="xoxb-agent")


def channel_id(name):
    return next(c["id"] for c in slack.conversations_list(types="public_channel,private_channel")["channels"]
                if c["name"] == name)


def user_id(first_name):
    return next(u["id"] for u in slack.users_list()["members"] if u["real_name"].split()[0] == first_name)


def history(name):
    return slack.conversations_history(channel=channel_id(name))["messages"]


def find(name, words):
    return next(m for m in history(name) if words.lower() in m["text"].lower())


def dm(*first_names):
    users = ",".join(user_id(n) for n in first_names)
    return slack.conversations_open(users=users)["channel"]["id"]


def login_reports(query):
    found = slack.search_messages(query=query, count=100)["messages"]["matches"]
    return [m["text"] for m in sorted(found, key=lambda m: float(m["ts"]))]


def quoted(text, phrases):
    for phrase in phrases:
        text = text.replace(phrase, f"'{phrase}'") if f"'{phrase}'" not in text else text
    return text


def combined(reports):
    unique = list(dict.fromkeys(reports))
    return quoted("Summary of the login issues and auth improvements: " + " | ".join(unique),
                  ["captcha", "empty password"])


ALL_LOGIN = ["login", "auth improvements"]

TASKS = {
    "test_1": lambda: slack.chat_postMessage(channel="general", text="hello"),
    "test_2": lambda: slack.chat_postMessage(channel=dm("John"), text="Can we sync later?"),
    "test_3": lambda: slack.chat_postMessage(channel=dm("Artem", "Hubert"), text=(
        "Hey, I've took a look at the presentation and I have some questions. Can you help me?")),
    "test_4": lambda: slack.conversations_create(name="rl-project"),
    "test_5": lambda: slack.conversations_invite(channel=channel_id("random"), users=user_id("Morgan")),
    "test_6": lambda: slack.conversations_invite(channel=slack.conversations_create(name="rl-project")["channel"]["id"],
                                                 users=user_id("Morgan")),
    "test_7": lambda: slack.chat_postMessage(channel="general", text="Next monday.", thread_ts=history("general")[0]["ts"]),
    "test_8": lambda: slack.chat_postMessage(channel="general", text="Next monday.",
                                             thread_ts=find("general", "MCP deployment")["ts"]),
    "test_9": lambda: slack.reactions_add(channel=channel_id("random"), timestamp=find("random", "lunch")["ts"],
                                          name="thumbsup"),
    "test_10": lambda: slack.reactions_add(channel=channel_id("general"), timestamp=history("general")[0]["ts"],
                                           name="thumbsup"),
    "test_11": lambda: slack.conversations_setTopic(channel=channel_id("general"), topic="Weekly standup discussions"),
    "test_12": lambda: slack.chat_update(channel=channel_id("general"), ts=find("general", "Hey team")["ts"],
                                         text="Hello everyone, we just shipped the new feature!"),
    "test_13": lambda: slack.chat_postMessage(channel="general", text=f"<@{user_id('Artem')}> Please review the pull request"),
    "test_14": lambda: [slack.chat_postMessage(channel=c, text="System maintenance tonight at 10pm")
                        for c in ("general", "random")],
    "test_15": lambda: slack.chat_delete(channel=channel_id("general"), ts=find("general", "deployment")["ts"]),
    "test_16": lambda: slack.chat_postMessage(channel="general", text=next(m["text"] for m in history("random")
                                                                           if m["text"].endswith("?"))),
    "test_17": lambda: slack.chat_postMessage(channel=dm("Hubert"), text=combined(
        [r for r in login_reports("login in:#engineering") if not r.endswith(":")])),
    "test_18": lambda: slack.chat_postMessage(channel=dm("Hubert"), text=combined(
        [r for q in ALL_LOGIN for r in login_reports(q) if not r.endswith(":")])),
    "test_19": lambda: slack.chat_update(
        channel=channel_id("engineering"), ts=find("engineering", "noticed a few auth issues")["ts"],
        text=find("engineering", "noticed a few auth issues")["text"] + " " + combined(
            [r for q in ALL_LOGIN for r in login_reports(q) if not r.endswith(":")])),
}

if "--lazy" in sys.argv:
    slack.conversations_list()  # looks around, changes nothing
else:
    TASKS[os.environ["DETOUR_TEST_ID"]]()
