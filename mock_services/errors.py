"""Typed errors of the environment layer; each edge (HTTP, CLI) maps them once."""

from detour_core.errors import DetourError


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
