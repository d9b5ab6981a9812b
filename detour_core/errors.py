"""Errors a user can act on: the base, and the environment layer's typed ones. Each edge
(HTTP, CLI) maps them once."""


class DetourError(Exception):
    """The message says what went wrong and what to do."""


class UnknownTemplate(DetourError):
    pass


class InvalidTemplate(DetourError):
    pass


class EnvironmentNotFound(DetourError):
    pass


class EnvironmentExists(DetourError):
    pass


class InvalidTtl(DetourError):
    pass


class InvalidFork(DetourError):
    pass
