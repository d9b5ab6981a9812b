"""Microsoft's official Python client for Graph (msgraph-sdk, with azure-identity's
EnvironmentCredential: client credentials from AZURE_TENANT_ID, AZURE_CLIENT_ID and
AZURE_CLIENT_SECRET against login.microsoftonline.com), run unmodified in a sandbox on the acme
world, reaches the four Microsoft 365 replicas generated from Graph's metadata (mock_services/
outlook_mail, outlook_calendar, teams, onedrive) through the proxy, one program per backend:

- Outlook mail: the Inbox's unread messages by well-known folder name, sendMail to John (it lands
  in his Inbox as its own row; the SDK sends SaveToSentItems false, so no Sent Items copy), a
  reply, a move to Archive, the folders' counts; a missing message is Outlook's ErrorItemNotFound.
- Outlook calendar: an event with an attendee, found in the attendee's calendar view, whose
  acceptance the organizer then reads; a PATCH by the organizer; findMeetingTimes (not served) is
  Graph's 501.
- Teams: the joined team's channels, a channel message and a reply, the one-on-one chat's
  messages and a new one; a chat the caller is not in is Teams' 404.
- OneDrive: the drive's root children, a file read by its path (`root:/Design/...:`), a file
  uploaded by path and read back; a missing item is OneDrive's itemNotFound.

The diff holds what the program made, as it ended."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ISOLATING

AGENT = r'''
import asyncio
import json

from azure.identity.aio import EnvironmentCredential
from kiota_abstractions.base_request_configuration import RequestConfiguration
from msgraph import GraphServiceClient
from msgraph.generated.models.attendee import Attendee
from msgraph.generated.models.attendee_type import AttendeeType
from msgraph.generated.models.body_type import BodyType
from msgraph.generated.models.chat_message import ChatMessage
from msgraph.generated.models.date_time_time_zone import DateTimeTimeZone
from msgraph.generated.models.email_address import EmailAddress
from msgraph.generated.models.event import Event
from msgraph.generated.models.item_body import ItemBody
from msgraph.generated.models.location import Location
from msgraph.generated.models.message import Message
from msgraph.generated.models.o_data_errors.o_data_error import ODataError
from msgraph.generated.models.recipient import Recipient
from msgraph.generated.users.item.calendar_view.calendar_view_request_builder import CalendarViewRequestBuilder
from msgraph.generated.users.item.events.item.accept.accept_post_request_body import AcceptPostRequestBody
from msgraph.generated.users.item.find_meeting_times.find_meeting_times_post_request_body import \
    FindMeetingTimesPostRequestBody
from msgraph.generated.users.item.messages.item.move.move_post_request_body import MovePostRequestBody
from msgraph.generated.users.item.messages.item.reply.reply_post_request_body import ReplyPostRequestBody
from msgraph.generated.users.item.send_mail.send_mail_post_request_body import SendMailPostRequestBody

ME, JOHN = "agent@example.com", "john@example.com"


async def refused(call):
    """[status, Graph's error code] of a call that must fail."""
    try:
        await call
    except ODataError as e:
        return [e.response_status_code, e.error.code]
    raise SystemExit("a refused call answered")


def window(start, end):
    query = CalendarViewRequestBuilder.CalendarViewRequestBuilderGetQueryParameters(
        start_date_time=start, end_date_time=end)
    return RequestConfiguration(query_parameters=query)


async def mail(client):
    me = client.users.by_user_id(ME)
    inbox = (await me.mail_folders.by_mail_folder_id("inbox").messages.get()).value
    await me.send_mail.post(SendMailPostRequestBody(message=Message(
        subject="Open launch risks", body=ItemBody(content_type=BodyType.Text, content="ENG-5 is still open."),
        to_recipients=[Recipient(email_address=EmailAddress(address=JOHN))])))
    johns = (await client.users.by_user_id(JOHN).mail_folders.by_mail_folder_id("inbox").messages.get()).value
    asked = next(m for m in inbox if m.subject.startswith("Customer"))
    await me.messages.by_message_id(asked.id).reply.post(ReplyPostRequestBody(comment="Robert owns ENG-5."))
    moved = await me.messages.by_message_id(asked.id).move.post(MovePostRequestBody(destination_id="archive"))
    folders = {f.display_name: [f.total_item_count, f.unread_item_count] for f in (await me.mail_folders.get()).value}
    return {"unread": sorted(m.subject for m in inbox if not m.is_read),
            "john": [m.subject for m in johns if m.subject == "Open launch risks"],
            "from": [m.from_.email_address.address for m in johns if m.subject == "Open launch risks"],
            "moved": moved.subject,
            "folders": {k: folders[k] for k in ("Inbox", "Sent Items", "Archive")},
            "missing": await refused(me.messages.by_message_id("AAMkNope").get())}


async def calendar(client):
    me = client.users.by_user_id(ME)
    made = await me.events.post(Event(
        subject="Launch review", start=DateTimeTimeZone(date_time="2026-01-14T09:00:00", time_zone="UTC"),
        end=DateTimeTimeZone(date_time="2026-01-14T09:30:00", time_zone="UTC"),
        attendees=[Attendee(email_address=EmailAddress(address=JOHN, name="John Doe"), type=AttendeeType.Required)]))
    theirs = (await client.users.by_user_id(JOHN).calendar_view.get(
        request_configuration=window("2026-01-14T00:00:00Z", "2026-01-15T00:00:00Z"))).value
    await client.users.by_user_id(JOHN).events.by_event_id(made.id).accept.post(
        AcceptPostRequestBody(comment="See you there", send_response=True))
    moved = await me.events.by_event_id(made.id).patch(Event(location=Location(display_name="Room Orion")))
    again = await me.events.by_event_id(made.id).get()
    mine = (await me.calendar_view.get(request_configuration=window("2026-01-12T00:00:00Z",
                                                                    "2026-01-13T00:00:00Z"))).value
    return {"theirs": [[e.subject, e.is_organizer] for e in theirs], "where": moved.location.display_name,
            "answers": [a.status.response.value for a in again.attendees],
            "monday": [[e.subject, e.response_status.response.value] for e in mine],
            "not_served": await refused(me.find_meeting_times.post(FindMeetingTimesPostRequestBody()))}


async def teams(client):
    team = (await client.users.by_user_id(ME).joined_teams.get()).value[0]
    channels = (await client.teams.by_team_id(team.id).channels.get()).value
    launch = next(c for c in channels if c.display_name == "Checkout v2")
    messages = client.teams.by_team_id(team.id).channels.by_channel_id(launch.id).messages
    said = [m.body.content for m in (await messages.get()).value]
    sent = await messages.post(ChatMessage(body=ItemBody(content="The open risks are in OneDrive.")))
    await messages.by_chat_message_id(sent.id).replies.post(ChatMessage(body=ItemBody(content="Design/risks.txt")))
    replies = (await messages.by_chat_message_id(sent.id).replies.get()).value
    chat = (await client.users.by_user_id(ME).chats.get()).value[0]
    asked = [m.body.content for m in (await client.chats.by_chat_id(chat.id).messages.get()).value]
    await client.chats.by_chat_id(chat.id).messages.post(ChatMessage(body=ItemBody(content="Sent you the risks.")))
    return {"team": team.display_name, "channels": sorted(c.display_name for c in channels), "said": said,
            "sent": [sent.from_.user.display_name, [r.body.content for r in replies]], "chat": asked,
            "missing": await refused(client.chats.by_chat_id("19:nope@thread.v2").messages.get())}


async def onedrive(client):
    drive = await client.users.by_user_id(ME).drive.get()
    items = client.drives.by_drive_id(drive.id).items
    root = await client.drives.by_drive_id(drive.id).root.get()
    names = [i.name for i in (await items.by_drive_item_id(root.id).children.get()).value]
    notes = await items.by_drive_item_id("root:/Design/checkout-v2-notes.txt:").content.get()
    made = await items.by_drive_item_id("root:/Design/risks.txt:").content.put(b"ENG-5: double charge, open")
    back = await items.by_drive_item_id(made.id).content.get()
    return {"root": names, "notes": notes.decode().splitlines()[0], "made": [made.name, made.size],
            "back": back.decode(), "missing": await refused(items.by_drive_item_id("01NOPE").get())}


async def main():
    credential = EnvironmentCredential()
    client = GraphServiceClient(credentials=credential, scopes=["https://graph.microsoft.com/.default"])
    print(json.dumps({check.__name__: await check(client) for check in (mail, calendar, teams, onedrive)}))
    await credential.close()


asyncio.run(main())
'''

EXPECTED = {
    "mail": {"unread": ["Checkout v2 launch: final go/no-go", "Customer asks about the checkout outage"],
             "john": ["Open launch risks"], "from": ["agent@example.com"],
             "moved": "Customer asks about the checkout outage",
             "folders": {"Inbox": [2, 1], "Sent Items": [1, 0], "Archive": [1, 1]},
             "missing": [404, "ErrorItemNotFound"]},
    "calendar": {"theirs": [["Launch review", False]], "where": "Room Orion", "answers": ["accepted"],
                 "monday": [["Checkout v2 go/no-go", "accepted"]], "not_served": [501, "NotImplemented"]},
    "teams": {"team": "Acme", "channels": ["Checkout v2", "General"],
              "said": ["Checkout v2 go/no-go is on Monday. Post blockers here."],
              "sent": ["AI Agent", ["Design/risks.txt"]],
              "chat": ["Can you send me the open launch risks before Monday?"],
              "missing": [404, "NotFound"]},
    "onedrive": {"root": ["Design"], "notes": "Checkout v2 design review (Sarah Smith, 2026-01-07)",
                 "made": ["risks.txt", 26], "back": "ENG-5: double charge, open", "missing": [404, "itemNotFound"]}}
# sendMail's copy is John's alone: msgraph-sdk sends SaveToSentItems false unless told otherwise,
# and Graph keeps no Sent Items copy then; the reply is kept in Sent Items and lands in Priya's Inbox.
INSERTED = ["onedrive.onedrive_items", "outlook_calendar.outlook_calendar_events", "outlook_mail.outlook_mail_messages",
            "outlook_mail.outlook_mail_messages", "outlook_mail.outlook_mail_messages", "teams.teams_channel_messages",
            "teams.teams_channel_messages", "teams.teams_chat_messages"]


@pytest.mark.parametrize("backend", ISOLATING)
def test_msgraph_sdk_through_the_proxy_on_the_four_microsoft_365_packs(live_stack, backend):
    result = live_stack.run(live_stack.env("acme"), AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == EXPECTED
    assert {r.host for r in result.requests} == {"graph.microsoft.com", "login.microsoftonline.com"}
    assert sorted(row["__table__"] for row in result.diff.inserts) == INSERTED
    event = next(r for r in result.diff.inserts if r["__table__"] == "outlook_calendar.outlook_calendar_events")
    assert [a["status"]["response"] for a in event["attendees"]] == ["accepted"]  # as it ended
