"""The one exception a REST pack's code raises to answer in the vendor's error shape."""

from __future__ import annotations

from typing import Any


class RestError(Exception):
    """HTTP status, the vendor's reason (or code), a message, and what the vendor adds beside them
    (Box's `context_info`, for instance); each pack's `error_body` lays them out."""

    def __init__(self, status: int, reason: str, message: str, headers: dict[str, str] | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message
        self.headers, self.details = headers or {}, details
