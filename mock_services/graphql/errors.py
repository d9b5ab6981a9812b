"""What a resolver raises when the request is at fault: a message for people and a type the
pack's error formatter turns into its vendor's `extensions`."""

from __future__ import annotations


class ApiError(Exception):
    def __init__(self, message: str, type: str = "invalid input") -> None:
        super().__init__(message)
        self.type = type


def not_found(entity: str) -> ApiError:
    """Linear's words and type for an id that names nothing (@linear/sdk: InvalidInput)."""
    return ApiError(f"Entity not found - Could not find referenced {entity}.", type="invalid input")
