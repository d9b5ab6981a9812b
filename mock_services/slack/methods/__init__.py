"""Slack methods by family; METHODS maps a method name to its handler."""

from __future__ import annotations

from collections.abc import Callable

from mock_services.slack.call import SlackCall
from mock_services.slack.methods import auth, channel_admin, chat, conversations, membership, reactions, search, users

Handler = Callable[[SlackCall], dict]

METHODS: dict[str, Handler] = {
    **auth.METHODS,
    **chat.METHODS,
    **conversations.METHODS,
    **membership.METHODS,
    **channel_admin.METHODS,
    **reactions.METHODS,
    **search.METHODS,
    **users.METHODS,
}

