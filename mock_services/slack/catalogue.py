"""Every Slack Web API method the replica answers: the one table of them.

A row is a method, the arguments Slack requires (`-` for none) and the answer:
- `state`: a handler in `methods/` reads or changes the environment's rows;
- a JSON object: Slack's documented result for a workspace with nothing of that kind;
- `unsupported`: `{"ok": false, "error": "not_supported_by_replica"}` (the workspace
  features the replica does not model: apps, calls, canvases, lists, workflows, views);
- `retired`: Slack has retired the method and answers `method_deprecated`.

Names and required arguments follow Slack's Web API reference; `admin.*` (Enterprise
Grid) and the retired `channels.*`, `groups.*`, `im.*`, `mpim.*` families are answered by
family (see `answer_for_family`). A test compares this table with slack_sdk's methods.
"""

from __future__ import annotations

import json
from typing import Literal, NamedTuple

Answer = Literal["state", "unsupported", "retired", "empty"]

TABLE = """
agents.conversations.archive            channel_id                      unsupported
agents.conversations.create             name                            unsupported
agents.conversations.getCanvas          channel,canvas_id               unsupported
agents.conversations.listViews          channel_id                      unsupported
agents.conversations.removeView         channel_id                      unsupported
agents.conversations.setCanvasContent   channel,canvas_id,content       unsupported
agents.conversations.setCommands        channel_id,commands             unsupported
agents.conversations.setProperties      channel_id                      unsupported
agents.conversations.setView            channel_id                      unsupported
agents.sessions.rename                  channel_id,title                unsupported
agents.sessions.setStatus               channel_id,status               unsupported
api.test                                -                               state
apps.connections.open                   -                               unsupported
apps.event.authorizations.list          event_context                   {"authorizations": [], "response_metadata": {"next_cursor": ""}}
apps.manifest.create                    manifest                        unsupported
apps.manifest.delete                    app_id                          unsupported
apps.manifest.export                    app_id                          unsupported
apps.manifest.update                    app_id,manifest                 unsupported
apps.manifest.validate                  manifest                        unsupported
apps.uninstall                          client_id,client_secret         unsupported
apps.user.connection.bulkUpdate         -                               unsupported
apps.user.connection.requestAuth        primary_provider                unsupported
apps.user.connection.update             user_id,status                  unsupported
assistant.threads.setStatus             channel_id,thread_ts,status     unsupported
assistant.threads.setSuggestedPrompts   channel_id,prompts              unsupported
assistant.threads.setTitle              channel_id,thread_ts,title      unsupported
auth.revoke                             -                               state
auth.teams.list                         -                               state
auth.test                               -                               state
blocks.validate                         -                               unsupported
bookmarks.add                           channel_id,title,type           state
bookmarks.edit                          bookmark_id,channel_id          state
bookmarks.list                          channel_id                      state
bookmarks.remove                        bookmark_id,channel_id          state
bots.info                               -                               state
calls.add                               external_unique_id,join_url     unsupported
calls.end                               id                              unsupported
calls.info                              id                              unsupported
calls.participants.add                  id,users                        unsupported
calls.participants.remove               id,users                        unsupported
calls.update                            id                              unsupported
canvases.access.delete                  canvas_id                       unsupported
canvases.access.set                     canvas_id,access_level          unsupported
canvases.create                         -                               unsupported
canvases.delete                         canvas_id                       unsupported
canvases.edit                           canvas_id,changes               unsupported
canvases.getContent                     canvas_id                       unsupported
canvases.sections.lookup                canvas_id,criteria              unsupported
chat.appendStream                       channel,ts                      unsupported
chat.delete                             channel,ts                      state
chat.deleteScheduledMessage             channel,scheduled_message_id    state
chat.getPermalink                       channel,message_ts              state
chat.meMessage                          channel,text                    state
chat.postEphemeral                      channel,user                    state
chat.postMessage                        channel                         state
chat.scheduleMessage                    channel,post_at                 state
chat.scheduledMessages.list             -                               state
chat.startStream                        channel,thread_ts               unsupported
chat.stopStream                         channel,ts                      unsupported
chat.unfurl                             -                               state
chat.update                             channel,ts                      state
conversations.acceptSharedInvite        channel_name                    unsupported
conversations.approveSharedInvite       invite_id                       unsupported
conversations.archive                   channel                         state
conversations.canvases.create           channel_id                      unsupported
conversations.close                     channel                         state
conversations.create                    name                            state
conversations.declineSharedInvite       invite_id                       unsupported
conversations.externalInvitePermissions.set  action,channel,target_team unsupported
conversations.history                   channel                         state
conversations.info                      channel                         state
conversations.invite                    channel,users                   state
conversations.inviteShared              channel                         unsupported
conversations.join                      channel                         state
conversations.kick                      channel,user                    state
conversations.leave                     channel                         state
conversations.list                      -                               state
conversations.listConnectInvites        -                               {"invites": [], "arg": "", "response_metadata": {"next_cursor": ""}}
conversations.mark                      channel,ts                      state
conversations.members                   channel                         state
conversations.open                      -                               state
conversations.rename                    channel,name                    state
conversations.replies                   channel,ts                      state
conversations.requestSharedInvite.approve  invite_id                    unsupported
conversations.requestSharedInvite.deny  invite_id                       unsupported
conversations.requestSharedInvite.list  -                               {"invite_requests": [], "response_metadata": {"next_cursor": ""}}
conversations.setPurpose                channel,purpose                 state
conversations.setTopic                  channel,topic                   state
conversations.unarchive                 channel                         state
dialog.open                             dialog,trigger_id               unsupported
dnd.endDnd                              -                               state
dnd.endSnooze                           -                               state
dnd.info                                -                               state
dnd.setSnooze                           num_minutes                     state
dnd.teamInfo                            -                               state
emoji.list                              -                               state
entity.presentDetails                   -                               unsupported
files.comments.delete                   file,id                         state
files.completeUploadExternal            files                           state
files.delete                            file                            state
files.getUploadURLExternal              filename,length                 state
files.info                              file                            state
files.list                              -                               state
files.remote.info                       -                               unsupported
files.remote.list                       -                               {"files": [], "response_metadata": {"next_cursor": ""}}
files.remote.remove                     -                               unsupported
files.remote.share                      channels                        unsupported
files.revokePublicURL                   file                            state
files.sharedPublicURL                   file                            state
files.upload                            -                               retired
functions.completeError                 function_execution_id,error     unsupported
functions.completeSuccess               function_execution_id,outputs   unsupported
migration.exchange                      users                           state
oauth.access                            client_id,client_secret,code    unsupported
oauth.v2.access                         client_id,client_secret         unsupported
oauth.v2.exchange                       token,client_id,client_secret   unsupported
openid.connect.token                    -                               unsupported
openid.connect.userInfo                 -                               state
pins.add                                channel                         state
pins.list                               channel                         state
pins.remove                             channel                         state
reactions.add                           channel,name,timestamp          state
reactions.get                           -                               state
reactions.list                          -                               state
reactions.remove                        name                            state
reminders.add                           text,time                       state
reminders.complete                      reminder                        state
reminders.delete                        reminder                        state
reminders.info                          reminder                        state
reminders.list                          -                               state
rtm.connect                             -                               unsupported
rtm.start                               -                               retired
search.all                              query                           state
search.files                            query                           state
search.messages                         query                           state
slackLists.access.delete                list_id                         unsupported
slackLists.access.set                   list_id,access_level            unsupported
slackLists.create                       name                            unsupported
slackLists.download.get                 list_id,job_id                  unsupported
slackLists.download.start               list_id                         unsupported
slackLists.items.create                 list_id                         unsupported
slackLists.items.delete                 list_id,id                      unsupported
slackLists.items.deleteMultiple         list_id,ids                     unsupported
slackLists.items.info                   list_id,id                      unsupported
slackLists.items.list                   list_id                         unsupported
slackLists.items.update                 list_id,cells                   unsupported
slackLists.update                       id                              unsupported
slackbot.skills.create                  display_name                    unsupported
slackbot.skills.delete                  skill_id                        unsupported
slackbot.skills.info                    skill_id                        unsupported
slackbot.skills.library.add             skill_id                        unsupported
slackbot.skills.library.remove          skill_id                        unsupported
slackbot.skills.list                    -                               unsupported
slackbot.skills.update                  skill_id                        unsupported
stars.add                               -                               state
stars.list                              -                               state
stars.remove                            -                               state
team.accessLogs                         -                               {"logins": [], "paging": {"count": 100, "total": 0, "page": 1, "pages": 0}}
team.billableInfo                       -                               state
team.billing.info                       -                               {"plan": "free"}
team.externalTeams.disconnect           target_team                     unsupported
team.externalTeams.list                 -                               {"organizations": [], "total_count": 0, "response_metadata": {"next_cursor": ""}}
team.info                               -                               state
team.integrationLogs                    -                               {"logs": [], "paging": {"count": 100, "total": 0, "page": 1, "pages": 0}}
team.preferences.list                   -                               {"msg_edit_window_mins": -1, "allow_message_deletion": true, "display_real_names": false, "disable_file_uploads": "allow_all", "who_can_post_general": "everyone"}
team.profile.get                        -                               {"profile": {"fields": [], "sections": []}}
tooling.tokens.rotate                   refresh_token                   unsupported
usergroups.create                       name                            state
usergroups.disable                      usergroup                       state
usergroups.enable                       usergroup                       state
usergroups.list                         -                               state
usergroups.update                       usergroup                       state
usergroups.users.list                   usergroup                       state
usergroups.users.update                 usergroup,users                 state
users.conversations                     -                               state
users.deletePhoto                       -                               unsupported
users.discoverableContacts.lookup       email                           {"is_discoverable": false}
users.getPresence                       -                               state
users.identity                          -                               state
users.info                              user                            state
users.list                              -                               state
users.lookupByEmail                     email                           state
users.profile.get                       -                               state
users.profile.set                       -                               state
users.setPhoto                          image                           unsupported
users.setPresence                       presence                        state
views.open                              view                            unsupported
views.publish                           user_id,view                    unsupported
views.push                              view                            unsupported
views.update                            view                            unsupported
workflows.featured.add                  channel_id,trigger_ids          unsupported
workflows.featured.list                 channel_ids                     {"featured_workflows": []}
workflows.featured.remove               channel_id,trigger_ids          unsupported
workflows.featured.set                  channel_id,trigger_ids          unsupported
workflows.stepCompleted                 workflow_step_execute_id        unsupported
workflows.stepFailed                    workflow_step_execute_id,error  unsupported
workflows.updateStep                    workflow_step_edit_id           unsupported
"""

# Methods that take no token: they authenticate with client credentials, or with none at all.
NO_TOKEN = frozenset({"api.test", "oauth.access", "oauth.v2.access", "oauth.v2.exchange",
                      "openid.connect.token", "tooling.tokens.rotate"})

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
        name, required, answer = line.split(None, 2)
        args = () if required == "-" else tuple(required.split(","))
        if answer.startswith("{"):
            methods[name] = Method(name, args, "empty", json.loads(answer))
        else:
            assert answer in ("state", "unsupported", "retired"), line
            methods[name] = Method(name, args, answer)  # type: ignore[arg-type]
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
