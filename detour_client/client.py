"""The client a trainer holds: one stack's API, and rollouts on that stack or over a Ray cluster."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from detour_client.http import StackClient
from detour_client.rollouts import Outcome, agent_argv, plan, read_suite


class Client(StackClient):
    """A `StackClient` whose `rollouts` may also spread over a Ray cluster's nodes, a stack on each."""

    def rollouts(self, suite: str | os.PathLike | dict[str, Any], agent: list[str], n: int = 1, workers: int = 4,
                 test: str | None = None, ray_address: str | None = None, **options: Any) -> Iterator[Outcome]:
        """With `ray_address` (`auto`, or the head's HOST:PORT), `workers` rollouts at once on each
        node, and `stack_command=` says how a node runs detour (default `detour`); without it,
        on this client's stack."""
        if ray_address is None:
            return super().rollouts(suite, agent, n, workers, test, **options)
        from detour_client.ray import ray_rollouts  # Ray only for those who ask for it
        data = read_suite(suite)
        return ray_rollouts(ray_address, data, plan(data, n, test), agent_argv(agent), workers_per_node=workers,
                            **options)
