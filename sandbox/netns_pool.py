"""Namespace sandbox networks made ahead, so a run does not wait for its netns, veth pair and
nftables table (~35-70 ms here, and as long again to remove them afterwards).

A network's rules name only the stack's ports and the mode, not whose run it is: the pool
keeps `size` of them per stack and mode, built in the background (sandbox/docker_pool.py's
refilling), and a run takes one, registers its environment for the network's address, and
removes it afterwards in the background (every process of the run is gone by then). None is
ever given a second run.
Each is recorded under its owner's pid as it is built, so `detour doctor` finds those of a
process killed before it could remove them.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading

from sandbox.base import Mode, ProxyAccess
from sandbox.docker_pool import ContainerPool
from sandbox.netns import SandboxNetwork, teardown

POOL_VARIABLE = "DETOUR_NAMESPACE_POOL"  # networks kept made ahead per stack and mode (default: none)


class NetworkPools:
    def __init__(self, size: int | None = None) -> None:
        self.size = size if size is not None else int(os.environ.get(POOL_VARIABLE) or 0)
        self.pools: dict[tuple, ContainerPool] = {}
        self.lock = threading.Lock()
        self.used: queue.Queue[str | None] = queue.Queue()
        self.reaper: threading.Thread | None = None

    def release(self, network: SandboxNetwork) -> None:
        """A network whose run has ended, every process of it gone: with a pool, removed in the
        background (`ip netns del` waits out the kernel's grace period), else at once."""
        if self.size <= 0:
            teardown(network.sid)
            return
        with self.lock:
            if self.reaper is None:
                self.reaper = threading.Thread(target=self._reap, name="detour netns reaper", daemon=True)
                self.reaper.start()
        self.used.put(network.sid)

    def _reap(self) -> None:
        while (sid := self.used.get()) is not None:
            teardown(sid)

    def take(self, proxy: ProxyAccess, mode: Mode) -> SandboxNetwork | None:
        """A network for this stack and mode, never used before, or None (none ready, or no pool)."""
        if self.size <= 0:
            return None
        return self.pool(proxy, mode).take()

    def pool(self, proxy: ProxyAccess, mode: Mode) -> ContainerPool:
        # Built from the stack's address alone: no run's environment or secret is kept here.
        neutral = proxy.model_copy(update={"env_id": "", "secret": ""})
        key = (neutral.model_dump_json(), mode)
        with self.lock:
            if key not in self.pools:
                if not self.pools and self.reaper is None:
                    atexit.register(self.close)
                self.pools[key] = ContainerPool(lambda: SandboxNetwork.create(neutral, mode), self.size,
                                                lambda network: teardown(network.sid))
            return self.pools[key]

    def close(self) -> None:
        """Stop refilling; remove the networks waiting and those still being removed."""
        with self.lock:
            pools, self.pools = list(self.pools.values()), {}
            reaper, self.reaper = self.reaper, None
        for pool in pools:
            pool.close()
        if reaper is not None:
            self.used.put(None)
            reaper.join()
