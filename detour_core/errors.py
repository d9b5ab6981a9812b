"""Errors a user can act on: the base, and the environment layer's typed ones. Each edge
(HTTP, CLI) maps them once."""


class DetourError(Exception):
    """The message says what went wrong and what to do."""


class UnknownTemplate(DetourError):
    pass


class InvalidTemplate(DetourError):
    pass


class NameNotFound(DetourError):
    """A thing the user named does not exist: the CLI leaves with 1, as a command that looked and
    found nothing (any other error with 2). A base, so the CLI can tell without importing every
    layer that raises one."""


class EnvironmentNotFound(NameNotFound):
    pass


class EnvironmentExists(DetourError):
    pass


class InvalidTtl(DetourError):
    pass


class InvalidFork(DetourError):
    pass
