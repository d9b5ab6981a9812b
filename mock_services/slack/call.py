"""What a Slack method handler receives: the caller, its arguments and the state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from mock_services.slack.errors import SlackError
from mock_services.store import EnvState, Row

Args = TypeVar("Args", bound=BaseModel)


def id_list(value: object) -> list[str]:
    """Slack's lists of ids: a comma-separated string or, in a JSON body, an array."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
    if items is None or not all(isinstance(i, str) for i in items):
        raise SlackError("invalid_arguments", response_metadata={"messages": ["[ERROR] expected a list of ids"]})
    return [i.strip() for i in items if i.strip()]


@dataclass
class SlackCall:
    state: EnvState
    user_id: str
    params: dict[str, object]
    token: str | None = None

    def args(self, model: type[Args]) -> Args:
        """Validate the raw parameters against the method's argument model."""
        try:
            return model.model_validate(self.params)
        except ValidationError as e:
            missing = [str(err["loc"][0]) for err in e.errors() if err["type"] == "missing"]
            if missing:
                raise SlackError("invalid_arguments", response_metadata={
                    "messages": [f"[ERROR] missing required field: {m}" for m in missing]}) from None
            raise SlackError("invalid_arguments", response_metadata={
                "messages": [f"[ERROR] {err['loc'][0]}: {err['msg']}" for err in e.errors()]}) from None

    @property
    def user(self) -> Row:
        user = self.state.first("users", user_id=self.user_id)
        if user is None:
            raise SlackError("invalid_auth")
        return user

    def channel(self, ref: str) -> Row:
        """Slack accepts a channel id, a name, or #name."""
        found = self.state.first("channels", channel_id=ref) or self.state.first(
            "channels", channel_name=ref.removeprefix("#"))
        if found is None:
            raise SlackError("channel_not_found")
        return found

    def is_member(self, channel: Row, user_id: str | None = None) -> bool:
        return self.state.first("channel_members", channel_id=channel["channel_id"],
                                user_id=user_id or self.user_id) is not None

    def member_channel(self, ref: str) -> Row:
        """A channel the caller belongs to (Slack hides private ones from others)."""
        channel = self.channel(ref)
        if not self.is_member(channel):
            private = channel.get("is_private") or channel.get("is_dm")
            raise SlackError("channel_not_found" if private else "not_in_channel")
        return channel

    def writable_channel(self, ref: str) -> Row:
        channel = self.member_channel(ref)
        if channel.get("is_archived"):
            raise SlackError("is_archived")
        return channel

    def other_user(self, user_id: str) -> Row:
        user = self.state.first("users", user_id=user_id)
        if user is None:
            raise SlackError("user_not_found")
        return user

    def message(self, channel: Row, ts: str) -> Row:
        found = self.state.first("messages", message_id=ts, channel_id=channel["channel_id"])
        if found is None:
            raise SlackError("message_not_found")
        return found
