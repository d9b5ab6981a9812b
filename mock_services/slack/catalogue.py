"""Every Slack Web API method the replica answers: the one table of them.

A row is a method and its answer:
- `state`: a handler in `methods/` reads or changes the environment's rows;
- a JSON object: Slack's documented result for a workspace with nothing of that kind;
- `unsupported`: `{"ok": false, "error": "not_supported_by_replica"}` (the workspace
  features the replica does not model: apps, calls, canvases, lists, workflows, views);
- `retired`: Slack has retired the method and answers `method_deprecated`.

The methods and the arguments they require come from slack_sdk's client (`spec/slack_sdk.json`,
written by `generate_spec`), except where Slack's reference requires otherwise
(`REFERENCE_OVER_SDK`); `admin.*` (Enterprise Grid) and the retired `channels.*`, `groups.*`,
`im.*`, `mpim.*` families are answered by family (see `answer_for_family`). A test fails when
this table and the spec name different methods.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, NamedTuple

from mock_services.coverage import GENERATED, NOT_SERVED, STATEFUL, Kind

SPEC = json.loads((Path(__file__).parent / "spec" / "slack_sdk.json").read_text())["methods"]

Answer = Literal["state", "unsupported", "retired", "empty"]

TABLE = """
agents.conversations.archive            unsupported
agents.conversations.create             unsupported
agents.conversations.getCanvas          unsupported
agents.conversations.listViews          unsupported
agents.conversations.removeView         unsupported
agents.conversations.setCanvasContent   unsupported
agents.conversations.setCommands        unsupported
agents.conversations.setProperties      unsupported
agents.conversations.setView            unsupported
agents.sessions.rename                  unsupported
agents.sessions.setStatus               unsupported
api.test                                state
apps.connections.open                   state
apps.event.authorizations.list          {"authorizations": [], "response_metadata": {"next_cursor": ""}}
apps.manifest.create                    unsupported
apps.manifest.delete                    unsupported
apps.manifest.export                    unsupported
apps.manifest.update                    state
apps.manifest.validate                  unsupported
apps.uninstall                          unsupported
apps.user.connection.bulkUpdate         unsupported
apps.user.connection.requestAuth        unsupported
apps.user.connection.update             unsupported
assistant.threads.setStatus             unsupported
assistant.threads.setSuggestedPrompts   unsupported
assistant.threads.setTitle              unsupported
auth.revoke                             state
auth.teams.list                         state
auth.test                               state
blocks.validate                         unsupported
bookmarks.add                           state
bookmarks.edit                          state
bookmarks.list                          state
bookmarks.remove                        state
bots.info                               state
calls.add                               unsupported
calls.end                               unsupported
calls.info                              unsupported
calls.participants.add                  unsupported
calls.participants.remove               unsupported
calls.update                            unsupported
canvases.access.delete                  unsupported
canvases.access.set                     unsupported
canvases.create                         unsupported
canvases.delete                         unsupported
canvases.edit                           unsupported
canvases.getContent                     unsupported
canvases.sections.lookup                unsupported
chat.appendStream                       unsupported
chat.delete                             state
chat.deleteScheduledMessage             state
chat.getPermalink                       state
chat.meMessage                          state
chat.postEphemeral                      state
chat.postMessage                        state
chat.scheduleMessage                    state
chat.scheduledMessages.list             state
chat.startStream                        unsupported
chat.stopStream                         unsupported
chat.unfurl                             state
chat.update                             state
conversations.acceptSharedInvite        unsupported
conversations.approveSharedInvite       unsupported
conversations.archive                   state
conversations.canvases.create           unsupported
conversations.close                     state
conversations.create                    state
conversations.declineSharedInvite       unsupported
conversations.externalInvitePermissions.set unsupported
conversations.history                   state
conversations.info                      state
conversations.invite                    state
conversations.inviteShared              unsupported
conversations.join                      state
conversations.kick                      state
conversations.leave                     state
conversations.list                      state
conversations.listConnectInvites        {"invites": [], "arg": "", "response_metadata": {"next_cursor": ""}}
conversations.mark                      state
conversations.members                   state
conversations.open                      state
conversations.rename                    state
conversations.replies                   state
conversations.requestSharedInvite.approve unsupported
conversations.requestSharedInvite.deny  unsupported
conversations.requestSharedInvite.list  {"invite_requests": [], "response_metadata": {"next_cursor": ""}}
conversations.setPurpose                state
conversations.setTopic                  state
conversations.unarchive                 state
dialog.open                             unsupported
dnd.endDnd                              state
dnd.endSnooze                           state
dnd.info                                state
dnd.setSnooze                           state
dnd.teamInfo                            state
emoji.list                              state
entity.presentDetails                   unsupported
files.comments.delete                   state
files.completeUploadExternal            state
files.delete                            state
files.getUploadURLExternal              state
files.info                              state
files.list                              state
files.remote.add                        state
files.remote.info                       state
files.remote.list                       state
files.remote.remove                     state
files.remote.share                      state
files.remote.update                     state
files.revokePublicURL                   state
files.sharedPublicURL                   state
files.upload                            retired
functions.completeError                 unsupported
functions.completeSuccess               unsupported
migration.exchange                      state
oauth.access                            unsupported
oauth.v2.access                         unsupported
oauth.v2.exchange                       unsupported
openid.connect.token                    unsupported
openid.connect.userInfo                 state
pins.add                                state
pins.list                               state
pins.remove                             state
reactions.add                           state
reactions.get                           state
reactions.list                          state
reactions.remove                        state
reminders.add                           state
reminders.complete                      state
reminders.delete                        state
reminders.info                          state
reminders.list                          state
rtm.connect                             unsupported
rtm.start                               retired
search.all                              state
search.files                            state
search.messages                         state
slackLists.access.delete                unsupported
slackLists.access.set                   unsupported
slackLists.create                       unsupported
slackLists.download.get                 unsupported
slackLists.download.start               unsupported
slackLists.items.create                 unsupported
slackLists.items.delete                 unsupported
slackLists.items.deleteMultiple         unsupported
slackLists.items.info                   unsupported
slackLists.items.list                   unsupported
slackLists.items.update                 unsupported
slackLists.update                       unsupported
slackbot.skills.create                  unsupported
slackbot.skills.delete                  unsupported
slackbot.skills.info                    unsupported
slackbot.skills.library.add             unsupported
slackbot.skills.library.remove          unsupported
slackbot.skills.list                    unsupported
slackbot.skills.update                  unsupported
stars.add                               state
stars.list                              state
stars.remove                            state
team.accessLogs                         {"logins": [], "paging": {"count": 100, "total": 0, "page": 1, "pages": 0}}
team.billableInfo                       state
team.billing.info                       {"plan": "free"}
team.externalTeams.disconnect           unsupported
team.externalTeams.list                 {"organizations": [], "total_count": 0, "response_metadata": {"next_cursor": ""}}
team.info                               state
team.integrationLogs                    {"logs": [], "paging": {"count": 100, "total": 0, "page": 1, "pages": 0}}
team.preferences.list                   {"msg_edit_window_mins": -1, "allow_message_deletion": true, "display_real_names": false, "disable_file_uploads": "allow_all", "who_can_post_general": "everyone"}
team.profile.get                        {"profile": {"fields": [], "sections": []}}
tooling.tokens.rotate                   unsupported
usergroups.create                       state
usergroups.disable                      state
usergroups.enable                       state
usergroups.list                         state
usergroups.update                       state
usergroups.users.list                   state
usergroups.users.update                 state
users.conversations                     state
users.deletePhoto                       state
users.discoverableContacts.lookup       {"is_discoverable": false}
users.getPresence                       state
users.identity                          state
users.info                              state
users.list                              state
users.lookupByEmail                     state
users.profile.get                       state
users.profile.set                       state
users.setPhoto                          state
users.setPresence                       state
views.open                              unsupported
views.publish                           unsupported
views.push                              unsupported
views.update                            unsupported
workflows.featured.add                  unsupported
workflows.featured.list                 {"featured_workflows": []}
workflows.featured.remove               unsupported
workflows.featured.set                  unsupported
workflows.stepCompleted                 unsupported
workflows.stepFailed                    unsupported
workflows.updateStep                    unsupported
"""

# Methods that take no token: they authenticate with client credentials, or with none at all.
NO_TOKEN = frozenset({"api.test", "oauth.access", "oauth.v2.access", "oauth.v2.exchange",
                      "openid.connect.token", "tooling.tokens.rotate"})

# Where slack_sdk's signature and Slack's reference disagree on what is required, the
# reference wins: the app-level token of apps.connections.open travels as the token itself;
# conversations.canvases.create may start empty; discoverableContacts.lookup needs an email;
# users.getPresence without a user is the caller's own.
REFERENCE_OVER_SDK = {"apps.connections.open": (), "conversations.canvases.create": ("channel_id",),
                      "users.discoverableContacts.lookup": ("email",), "users.getPresence": ()}

# Families answered as a whole rather than method by method.
RETIRED_FAMILIES = ("channels.", "groups.", "im.", "mpim.")
UNSUPPORTED_FAMILIES = ("admin.",)


class Method(NamedTuple):
    name: str
    required: tuple[str, ...]
    answer: Answer
    empty_result: dict | None = None


def parse_table(table: str) -> dict[str, Method]:
    methods: dict[str, Method] = {}
    for line in table.strip().splitlines():
        name, answer = line.split(None, 1)
        required = REFERENCE_OVER_SDK.get(name, tuple(SPEC.get(name, {}).get("required", ())))
        if answer.startswith("{"):
            methods[name] = Method(name, required, "empty", json.loads(answer))
        else:
            assert answer in ("state", "unsupported", "retired"), line
            methods[name] = Method(name, required, answer)  # type: ignore[arg-type]
    return methods


CATALOGUE: dict[str, Method] = parse_table(TABLE)


def answer_for_family(name: str) -> Method | None:
    """A method of a family the replica answers as a whole (Enterprise Grid, retired families)."""
    if name.startswith(RETIRED_FAMILIES):
        return Method(name, (), "retired")
    if name.startswith(UNSUPPORTED_FAMILIES) and len(name) > len(UNSUPPORTED_FAMILIES[0]):
        return Method(name, (), "unsupported")
    return None


def lookup(name: str) -> Method | None:
    return CATALOGUE.get(name) or answer_for_family(name)


KINDS: dict[Answer, Kind] = {"state": STATEFUL, "empty": GENERATED, "unsupported": NOT_SERVED, "retired": NOT_SERVED}


def coverage() -> dict[str, Kind]:
    """Every method of slack_sdk's client, as the table answers it (mock_services/coverage.py)."""
    return {name: KINDS[method.answer] if (method := lookup(name)) else NOT_SERVED for name in sorted(SPEC)}
