"""The base of every error a user can act on; each edge (HTTP, CLI) maps it once."""


class DetourError(Exception):
    """The message says what went wrong and what to do."""
