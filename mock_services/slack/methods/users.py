"""users.*"""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.pagination import paginate
from mock_services.slack.serializers import user_json


class ListArgs(BaseModel):
    limit: int = 0
    cursor: str | None = None


def list_users(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    page, next_cursor = paginate(call.state.rows("users"), args.cursor, args.limit or 1000)
    return {"members": [user_json(u) for u in page],
            "response_metadata": {"next_cursor": next_cursor}}


METHODS = {"users.list": list_users}
