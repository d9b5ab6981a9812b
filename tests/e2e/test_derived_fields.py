"""Counts, `latest`, completion and the like are computed when read, never stored: through the
proxy, each pack's official client makes writes whose answers change a derived field, reads the
field back, and the diff holds only the rows the API itself changed."""

from __future__ import annotations

import json

BOX = r'''
import json
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth
from box_sdk_gen.managers.comments import CreateCommentItem, CreateCommentItemTypeField
from box_sdk_gen.managers.tasks import CreateTaskItem, CreateTaskItemTypeField
from box_sdk_gen.managers.task_assignments import (CreateTaskAssignmentTask, CreateTaskAssignmentAssignTo,
                                                   UpdateTaskAssignmentByIdResolutionState)
client = BoxClient(auth=BoxDeveloperTokenAuth(token="developer-token"))
before = client.files.get_file_by_id("1701916585", fields=["comment_count"]).comment_count
client.comments.create_comment("Checked the totals", CreateCommentItem(id="1701916585", type=CreateCommentItemTypeField.FILE))
task = client.tasks.create_task(CreateTaskItem(id="1701916585", type=CreateTaskItemTypeField.FILE), message="Sign off")
me = client.users.get_user_me().id
mine = client.task_assignments.create_task_assignment(CreateTaskAssignmentTask(id=task.id),
                                                      CreateTaskAssignmentAssignTo(id=me))
client.task_assignments.update_task_assignment_by_id(mine.id,
                                                     resolution_state=UpdateTaskAssignmentByIdResolutionState.APPROVED)
print(json.dumps([before, client.files.get_file_by_id("1701916585", fields=["comment_count"]).comment_count,
                  client.tasks.get_task_by_id(task.id).is_completed]))
'''

LINEAR = r'''
import { LinearClient } from "@linear/sdk";
const linear = new LinearClient({ apiKey: "lin_api_agent" });
const eng = await linear.team("ENG");
const before = eng.issueCount;
const created = await (await linear.createIssue({ teamId: eng.id, title: "Counted, not stored" })).issue;
console.log(JSON.stringify([before, (await linear.team("ENG")).issueCount, created.identifier]));
'''

SLACK = r'''
import json
from slack_sdk import WebClient
client = WebClient(token="xoxb-1")
general = next(c for c in client.conversations_list()["channels"] if c["name"] == "general")
root = client.chat_postMessage(channel=general["id"], text="root")
client.chat_postMessage(channel=general["id"], text="reply", thread_ts=root["ts"])
replies = client.conversations_replies(channel=general["id"], ts=root["ts"])["messages"]
info = client.conversations_info(channel=general["id"], include_num_members=True)["channel"]
print(json.dumps([replies[0]["reply_count"], info["num_members"] > 0]))
'''

CALENDAR = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
cal = build("calendar", "v3", credentials=Credentials("token"))
made = cal.events().insert(calendarId="primary", body={"summary": "Counted",
    "start": {"dateTime": "2018-06-01T10:00:00-07:00"}, "end": {"dateTime": "2018-06-01T11:00:00-07:00"}}).execute()
cal.calendarList().get(calendarId="primary").execute()
print(json.dumps([cal.events().get(calendarId="primary", eventId=made["id"]).execute()["summary"]]))
'''


def _run(live_stack, template: str, code: str, suffix: str):
    result = live_stack.run(live_stack.env(template), code, suffix)
    assert result.exit_code == 0, result.stderr[-2000:]
    return json.loads(result.stdout), result.diff


def test_box_comment_count_and_task_completion_are_read_not_written(live_stack):
    out, diff = _run(live_stack, "box_default", BOX, ".py")
    assert out == [2, 3, True]
    assert {r["__table__"] for r in diff.inserts} == {"box_comments", "box_tasks", "box_task_assignments"}
    assert [r["__table__"] for r in diff.updates] == []  # made and resolved in the run: inserts only
    assert diff.deletes == []


def test_linear_issue_count_is_read_not_written(live_stack):
    out, diff = _run(live_stack, "linear_default", LINEAR, ".mjs")
    assert out == [4, 5, "ENG-5"]
    assert {r["__table__"] for r in diff.updates} == set()
    assert "teams" not in {r["__table__"] for r in diff.inserts}


def test_slack_reply_count_and_num_members_are_read_not_written(live_stack):
    out, diff = _run(live_stack, "slack_default", SLACK, ".py")
    assert out == [1, True]
    assert {r["__table__"] for r in diff.inserts} == {"messages"}
    assert diff.updates == [] and diff.deletes == []


def test_calendar_writes_change_only_the_event(live_stack):
    out, diff = _run(live_stack, "calendar_default", CALENDAR, ".py")
    assert out == ["Counted"]
    assert {r["__table__"] for r in diff.inserts} == {"calendar_events"}
    assert diff.updates == [] and diff.deletes == []
