"""Slack methods by family; METHODS maps each state-backed method of the catalogue to its handler."""

from __future__ import annotations

from collections.abc import Callable

from mock_services.slack import events_api, socket_mode
from mock_services.slack.call import SlackCall
from mock_services.slack.methods import (auth, bookmarks, channel_admin, chat, conversations, files, membership,
                                         pins, presence, profile, reactions, reminders, remote_files, scheduled,
                                         search, stars, team, usergroups, users)

Handler = Callable[[SlackCall], dict]

METHODS: dict[str, Handler] = {
    **auth.METHODS,
    **bookmarks.METHODS,
    **channel_admin.METHODS,
    **chat.METHODS,
    **conversations.METHODS,
    **files.METHODS,
    **membership.METHODS,
    **pins.METHODS,
    **presence.METHODS,
    **profile.METHODS,
    **reactions.METHODS,
    **reminders.METHODS,
    **remote_files.METHODS,
    **scheduled.METHODS,
    **search.METHODS,
    **stars.METHODS,
    **team.METHODS,
    **usergroups.METHODS,
    **users.METHODS,
    **socket_mode.METHODS,
    **events_api.METHODS,
}
