"""Typed errors of the environment layer; each edge (HTTP, CLI) maps them once."""


class DetourError(Exception):
    """Base for errors a user can act on; the message says what to do."""


class UnknownTemplate(DetourError):
    pass


class InvalidTemplate(DetourError):
    pass


class EnvironmentNotFound(DetourError):
    pass


class EnvironmentExists(DetourError):
    pass
