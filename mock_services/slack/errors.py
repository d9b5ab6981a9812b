"""Slack's error contract: HTTP 200 (mostly) with `{"ok": false, "error": code}`."""

from __future__ import annotations


class SlackError(Exception):
    def __init__(self, code: str, status: int = 200, headers: dict[str, str] | None = None,
                 **extra: object) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.headers = headers
        self.extra = extra

    def body(self) -> dict:
        return {"ok": False, "error": self.code, **self.extra}
