"""Chaos soak (#50): ROLLOUTS rollouts through the rollouts API of a real `detour serve`, AT_ONCE
at a time, while a chaos loop every one to four seconds kills a proxy worker (SIGKILL; the stack
starts it again), kills a live sandbox's agent (SIGKILL), or hangs up on a rollout under way (the
caller's socket closed). Printed, never asserted:
- rollouts answered with an outcome, refused with one clear line, hung up on by the loop, and
  lost (no answer and not hung up on: goal 0);
- leftovers once all have ended (goal 0): agent processes, and for every sandbox the replica
  server made, its netns, veth, nft table, cgroup, owner record and temporary folders; the
  environments left in the store;
- audit chains verified (goal: all of the environments the rollouts made);
- the memory and open files of `detour serve` and its replica server after a warm-up and at the end.
Namespace sandboxes (the auto backend here); the docker backend is not in the loop.
`DETOUR_CHAOS_ROLLOUTS` sets how many (default 1,000)."""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

from bench.common import MB
from detour.stack import free_port
from detour_core.audit import AuditLog
from detour_core.audit_verify import verify
from detour_core.credentials import api_key
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from sandbox.namespace import run_folders
from sandbox.netns import known_sandboxes, owner

ROLLOUTS = int(os.environ.get("DETOUR_CHAOS_ROLLOUTS") or 1000)
AT_ONCE = 8
CHAOS_EVERY_S = (1.0, 4.0)
MARKER = "chaos_agent.py"
AGENT = """
import os, time
from slack_sdk import WebClient
slack = WebClient(token=os.environ["SLACK_TOKEN"])
for n in range(5):
    slack.chat_postMessage(channel="general", text=f"step {n}")
    time.sleep(0.2)
"""
SUITE = {"name": "chaos", "tests": [{"id": "five", "name": "five posts", "prompt": "post", "seed_template":
         "slack_default", "assertions": [{"diff_type": "added", "entity": "messages", "expected_count": 5}]}]}


class Soak:
    """The stack, the rollouts under way (their connections, which the loop may close), the tally."""

    def __init__(self, home: Path) -> None:
        self.state = StatePaths(home).ensure()
        self.agent = home.parent / MARKER
        self.agent.write_text(AGENT)
        ports: set[int] = set()
        self.serve = subprocess.Popen([str(Path(sys.executable).parent / "detour"), "serve", "--proxy-port",
                                       str(free_port("127.0.0.1", ports)), "--replica-port",
                                       str(free_port("127.0.0.1", ports))],
                                      env=os.environ | {"DETOUR_HOME": str(home)}, stderr=subprocess.DEVNULL)
        while not self.state.stack_file.exists():
            if self.serve.poll() is not None:
                raise RuntimeError(f"detour serve exited with {self.serve.returncode}")
            time.sleep(0.1)
        stack = json.loads(self.state.stack_file.read_text())
        self.port, self.key = stack["replica_port"], api_key(self.state)
        self.replicas = next(p for p in psutil.Process(self.serve.pid).children() if "uvicorn" in p.cmdline())
        self.live: dict[int, http.client.HTTPConnection] = {}
        self.hung_up: set[int] = set()
        self.tally = {"answered": 0, "passed": 0, "refused": 0, "hung up": 0, "lost": 0}
        self.kills = {"proxy worker": 0, "sandbox": 0, "hang-up": 0}
        self.env_ids: set[str] = set()
        self.sids: set[str] = set()
        self.lock = threading.Lock()

    def rollout(self, number: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        with self.lock:
            self.live[number] = conn
        body = {"suite": SUITE, "test": "five", "agent": ["python3", str(self.agent)], "rollout": number}
        try:
            conn.request("POST", "/api/platform/rollouts", json.dumps(body),
                         {"Content-Type": "application/json", "X-API-Key": self.key})
            answer = conn.getresponse()
            data = answer.read()
            kind = self._kind(answer.status, data)
        except (OSError, http.client.HTTPException):
            kind = "hung up" if number in self.hung_up else "lost"
        finally:
            with self.lock:
                self.live.pop(number, None)
            conn.close()
        with self.lock:
            self.tally[kind] += 1

    def _kind(self, status: int, data: bytes) -> str:
        if status != 200:
            detail = json.loads(data).get("detail", "")
            return "refused" if isinstance(detail, str) and "\n" not in detail else "lost"
        outcome = json.loads(data)
        with self.lock:
            self.env_ids.add(outcome["env_id"])
            self.tally["passed"] += outcome["passed"]
        return "answered"

    def chaos(self, done: threading.Event) -> None:
        """Every one to four seconds, one of the three, at random; notes the sandboxes seen."""
        while not done.wait(random.uniform(*CHAOS_EVERY_S)):
            self.sids |= {sid for sid in known_sandboxes() if owner(sid) == self.replicas.pid}
            kind = random.choice(list(self.kills))
            if kind == "proxy worker":
                victims = [p for p in psutil.Process(self.serve.pid).children() if "proxy_addons" in p.cmdline()]
            elif kind == "sandbox":
                victims = agents()
            else:
                victims = list(self.live.items())
            if not victims:
                continue
            victim = random.choice(victims)
            try:
                if kind == "hang-up":
                    self.hung_up.add(victim[0])
                    victim[1].sock and victim[1].sock.shutdown(2)
                else:
                    victim.send_signal(signal.SIGKILL)
            except (OSError, psutil.Error):
                continue  # it ended meanwhile
            self.kills[kind] += 1

    def footprint(self) -> tuple[int, int]:
        """Resident memory and open files of the stack's processes that live through the soak
        (`detour serve` and its replica server, which plays every rollout; the proxy workers are
        killed and started anew)."""
        parts = [psutil.Process(self.serve.pid), self.replicas]
        return sum(p.memory_info().rss for p in parts), sum(p.num_fds() for p in parts)

    def stop(self) -> None:
        self.serve.send_signal(signal.SIGTERM)
        self.serve.wait(60)


def agents() -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["name", "cmdline"])
            if p.info["name"] not in ("bwrap", "setpriv") and any(w.endswith(MARKER) for w in p.info["cmdline"] or ())]


def leftovers(soak: Soak, store: EnvironmentStore, before: set[str]) -> dict[str, int]:
    """What is left of the rollouts once all have ended (the last sandboxes' removal runs in the
    background: looked at until nothing is left, or for 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        sids = soak.sids | {sid for sid in known_sandboxes() if owner(sid) == soak.replicas.pid}
        known = known_sandboxes()
        left = {"agent processes": len(agents()),
                "sandboxes (netns, nft table, cgroup or record)": len(sids & known),
                "veths": sum(Path(f"/sys/class/net/dt{sid}h").exists() for sid in sids),
                "temporary folders": sum(len(run_folders(sid)) for sid in sids),
                "environments in the store": len({e.env_id for e in store.list()} - before)}
        if not any(left.values()) or time.monotonic() > deadline:
            return left
        time.sleep(1)


def bench_chaos(rollouts: int = ROLLOUTS) -> None:
    with tempfile.TemporaryDirectory(prefix="detour-chaos-") as tmp:
        soak = Soak(Path(tmp) / "home")
        try:
            store = EnvironmentStore(soak.state)
            before = {e.env_id for e in store.list()}
            warm = min(20, rollouts)
            with ThreadPoolExecutor(AT_ONCE) as callers:
                list(callers.map(soak.rollout, range(warm)))
                start_rss, start_files = soak.footprint()
                done = threading.Event()
                loop = threading.Thread(target=soak.chaos, args=(done,))
                loop.start()
                started = time.monotonic()
                list(callers.map(soak.rollout, range(warm, rollouts)))
                elapsed = time.monotonic() - started
                done.set()
                loop.join()
            left = leftovers(soak, store, before)
            end_rss, end_files = soak.footprint()
            audit = AuditLog(soak.state.audit_dir)
            chains = [verify(audit, env_id) for env_id in soak.env_ids]
            intact = (sum(chain.intact for chain in chains), sum(chain.records for chain in chains))
        finally:
            soak.stop()
    report(rollouts, elapsed, soak, left, intact, (start_rss, end_rss), (start_files, end_files))


def report(rollouts: int, elapsed: float, soak: Soak, left: dict[str, int], intact: tuple[int, int],
           rss: tuple[int, int], files: tuple[int, int]) -> None:
    t, k = soak.tally, soak.kills
    print(f"  {rollouts} rollouts, {AT_ONCE} at once, in {elapsed:.0f} s; chaos: {k['proxy worker']} proxy workers "
          f"killed, {k['sandbox']} sandboxes' agents killed, {k['hang-up']} callers hung up")
    print(f"  answered with an outcome {t['answered']} ({t['passed']} passed), refused in one line {t['refused']}, "
          f"hung up on {t['hung up']}, lost {t['lost']} (goal 0)")
    print("  left over (goal 0): " + ", ".join(f"{name} {count}" for name, count in left.items()))
    print(f"  audit chains intact: {intact[0]} of {len(soak.env_ids)} ({intact[1]} records)")
    print(f"  detour serve and its replica server: memory {rss[0] / MB:.0f} -> {rss[1] / MB:.0f} MB, open files "
          f"{files[0]} -> {files[1]} (after {min(20, rollouts)} warm-up rollouts -> at the end)")


if __name__ == "__main__":
    bench_chaos(int(sys.argv[1]) if len(sys.argv) > 1 else ROLLOUTS)
