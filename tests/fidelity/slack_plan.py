"""What the fidelity suite asks of the Slack replica: every method it answers from state or with
Slack's documented empty result, called once with typical arguments, in an order where what a
call needs exists (a channel, a message, a user group, ...) and what destroys comes last.

A plan step is [method, arguments, saves]: an argument `$name` is what an earlier step saved
under `name` (a dotted path into its answer).
"""

from __future__ import annotations

from mock_services.slack.catalogue import CATALOGUE

JOHN, BOT = "U02JOHNDOE1", "B01AGENBOT9"
SETUP = [
    ["conversations.create", {"name": "fidelity-room"}, {"room": "channel.id"}],
    ["conversations.invite", {"channel": "$room", "users": JOHN}, {}],
    ["chat.postMessage", {"channel": "$room", "text": "hello fidelity"}, {"ts": "ts"}],
    ["chat.postMessage", {"channel": "$room", "text": "a reply", "thread_ts": "$ts"}, {}],
    ["usergroups.create", {"name": "Fidelity", "handle": "fidelity"}, {"group": "usergroup.id"}],
    ["reminders.add", {"text": "check", "time": "in 10 minutes"}, {"reminder": "reminder.id"}],
    ["bookmarks.add", {"channel_id": "$room", "title": "Wiki", "type": "link", "link": "https://wiki.example.com"},
     {"bookmark": "bookmark.id"}],
    ["conversations.open", {"users": JOHN}, {"dm": "channel.id"}],
    ["chat.scheduleMessage", {"channel": "$room", "text": "later", "post_at": "$soon"},
     {"scheduled": "scheduled_message_id"}],
    ["files.remote.add", {"external_id": "fid-1", "external_url": "https://docs.example.com/1", "title": "Doc"},
     {"remote": "file.id"}],
    ["files.remote.add", {"external_id": "fid-2", "external_url": "https://docs.example.com/2", "title": "Doc 2"},
     {"second": "file.id"}],
    ["files.getUploadURLExternal", {"filename": "a.txt", "length": "2"}, {"upload": "file_id"}],
]
# Typical values by argument name; OVERRIDES where a method reads a name differently.
TYPICAL = {
    "channel": "$room", "channel_id": "$room", "channels": "$room", "user": JOHN, "users": JOHN, "user_id": JOHN,
    "ts": "$ts", "timestamp": "$ts", "message_ts": "$ts", "name": "eyes", "text": "typical text", "title": "Title",
    "topic": "a topic", "purpose": "a purpose", "query": "hello", "presence": "away", "num_minutes": "5",
    "time": "in 5 minutes", "post_at": "$soon", "scheduled_message_id": "$scheduled", "reminder": "$reminder",
    "bookmark_id": "$bookmark", "usergroup": "$group", "file": "$remote", "bot": BOT, "email": "john@gmail.com",
    "profile": '{"title": "Tester"}', "filename": "b.txt", "length": "3", "files": '[{"id": "$upload"}]',
    "external_id": "fid-1", "external_url": "https://docs.example.com/1", "type": "link", "handle": "typical",
}
OVERRIDES = {
    "conversations.rename": {"name": "fidelity-renamed"},
    "conversations.create": {"name": "fidelity-second"},
    "usergroups.create": {"name": "Second group", "handle": "second"},
    "usergroups.update": {"name": "Fidelity renamed"},
    "chat.postEphemeral": {"text": "only you"},
    "chat.update": {"text": "edited"},
    "chat.unfurl": {"channel": "$room", "ts": "$ts", "unfurls": '{"https://wiki.example.com": {"text": "Wiki"}}'},
    "conversations.close": {"channel": "$dm"},
    "files.delete": {"file": "$second"}, "files.sharedPublicURL": {"file": "$second"},
    "files.revokePublicURL": {"file": "$second"},
    "files.remote.info": {"external_id": "fid-1"},
    "files.remote.share": {"external_id": "fid-1"},
    "files.remote.update": {"external_id": "fid-1", "title": "Doc, edited"},
    "files.remote.remove": {"external_id": "fid-1"},
    "pins.add": {"timestamp": "$ts"}, "pins.remove": {"timestamp": "$ts"},
    "stars.add": {"channel": "$room", "timestamp": "$ts"}, "stars.remove": {"channel": "$room", "timestamp": "$ts"},
    "reactions.get": {"channel": "$room", "timestamp": "$ts"},
    "reactions.remove": {"channel": "$room", "timestamp": "$ts"},
    "users.setPhoto": {"image": "PNG"},  # the runner sends a PNG's bytes for this marker
    "users.profile.set": {"profile": '{"title": "Tester"}'},
    "api.test": {},
}
# Calls that take away (or give back) what others need: last, in this order.
LATE = ("remove", "revoke", "endsnooze", "enddnd", "close", "disable", "enable", "delete", "kick", "leave", "archive")


def _order(method: str) -> int:
    name = method.lower()
    return max((i + 1 for i, word in enumerate(LATE) if word in name), default=0)


def plan() -> list[list]:
    """Every method answered from state or documented empty, once, after SETUP."""
    done = {step[0] for step in SETUP}
    steps = [list(step) for step in SETUP]
    wanted = sorted((m for m in CATALOGUE.values() if m.answer in ("state", "empty") and m.name not in done),
                    key=lambda m: (_order(m.name), m.name))
    for method in wanted:
        args = {arg: TYPICAL.get(arg, "x") for arg in method.required}
        steps.append([method.name, args | OVERRIDES.get(method.name, {}), {}])
    return steps
