"""One run: agent code in a sandbox, pointed at a stack and an environment.

The runner joins what the backend does not know about: the environment's credentials,
the audit lines the run produced, and the environment's diff afterwards.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from detour_core.audit import AuditLog, AuditRecord
from detour_core.credentials import secret_for
from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from detour_core.secrets import SecretStore
from detour.stack import StackInfo, deaths_since
from mock_services.clock import Clock
from mock_services.store import EnvironmentStore, StateDiff
from pydantic import computed_field
from sandbox.base import Execution, Limits, Mode, RunControl, Sandbox, SandboxSpec

if TYPE_CHECKING:
    from certs.authority import CertificateAuthority


# mitmproxy's certificates for each host are valid from 2 days before they are made (a day kept
# in hand here) for 199 days (180 kept): the sandbox's clock must read a time inside that.
LEAF_BACKDATE_S = 86_400
LEAF_VALIDITY_S = 180 * 86_400


class PrivatePath(DetourError):
    pass


def named_files(state: StatePaths, argv: list[str], program: Path | None) -> list[Path]:
    """Host files a command names, which a sandbox shows read-only at their own path; never
    anything of detour's state (its CA key, other environments' databases)."""
    files = sorted({Path(word) for word in argv if Path(word).is_absolute() and Path(word).is_file()})
    home = state.home.resolve()
    for file in [*files, *([program] if program else [])]:
        if file.resolve().is_relative_to(home):
            raise PrivatePath(f"{file} is inside detour's state ({state.home}), which sandboxes never see: "
                              "copy it elsewhere first")
    return files


def trust_warnings(requests: list[AuditRecord]) -> list[str]:
    """A line for each host whose TLS handshake a client in the sandbox broke off because it
    did not trust detour's CA: what it means and how to fix it (the record alone says less)."""
    hosts = sorted({r.host for r in requests if (r.reason or "").startswith("TLS:") and "trust" in r.reason})
    return [f"detour: a client in the sandbox did not trust detour's CA for {host}: it reads a trust store of its "
            "own (a pinned bundle, certifi, a keystore); point it at $SSL_CERT_FILE (the system store plus "
            "detour's CA), or run it on the namespace or docker backend, whose system store holds the CA"
            for host in hosts if host]


def proxy_hints(backend: str, stderr: str) -> list[str]:
    """What a failure on the process backend (where only variables lead to the proxy) means when
    a client ignored them: httplib2 reads proxy variables only with PySocks installed."""
    if backend == "process" and "httplib2" in stderr and "ServerNotFoundError" in stderr:
        return ["detour: httplib2 (google-api-python-client's transport) went for the host itself instead of "
                "the proxy: it reads proxy variables only with PySocks installed (pip install PySocks in the "
                "program's Python); the namespace and docker backends capture it either way"]
    return []


def stack_warnings(state: StatePaths, since: float) -> list[str]:
    """One line if a process of the stack died while the program ran: requests it carried then
    failed (the program saw a reset or a refused connection), whatever the program made of it."""
    deaths = deaths_since(state, since)
    if not deaths:
        return []
    return [f"detour: the stack lost {', '.join(d.text() for d in deaths)} during the run and started "
            f"{'it' if len(deaths) == 1 else 'them'} again: requests under way there failed"]


def sandbox_clock(ca: CertificateAuthority, clock: Clock) -> tuple[float | None, list[str]]:
    """The time the sandbox's clock should read (None: the real one), and what to tell the user.
    TLS clients check certificates against that clock, so a time before detour's certificates
    are valid (or after they expire) stays out of the sandbox."""
    if clock.mode == "real":
        return None, []
    at, wall = clock.now(), time.time()
    valid_from = max(ca.certificate().not_valid_before_utc.timestamp(), wall - LEAF_BACKDATE_S)
    if valid_from <= at <= wall + LEAF_VALIDITY_S:
        return at, []
    return None, [f"detour: the sandbox keeps the real time: the environment's time ({clock_text(at)}) is outside "
                  f"the time detour's certificates are valid in ({clock_text(valid_from)} to "
                  f"{clock_text(wall + LEAF_VALIDITY_S)}), where TLS clients would refuse them; its replicas "
                  "keep the environment's time"]


def clock_text(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


class RunResult(Execution):
    env_id: str
    backend: str
    mode: Mode
    requests: list[AuditRecord]
    diff: StateDiff

    @computed_field(description="The run's own model calls (its policy's model routes): model, tokens, time to "
                                "first token, and the prompts and answers where bodies were captured.")
    @property
    def model_calls(self) -> list[AuditRecord]:
        return [r for r in self.requests if r.model_call is not None]


def run_in_environment(state: StatePaths, stack: StackInfo, env_id: str, sandbox: Sandbox,
                       argv: list[str], program: Path | None = None,
                       limits: Limits | None = None, stdin: bytes = b"", mode: Mode = "proxy",
                       task: dict[str, str] | None = None, workspace: Path | None = None,
                       stdio: bool = False, control: RunControl | None = None) -> RunResult:
    """`argv` may name host files (an agent script): their folders become visible read-only.
    A `workspace` is the run's work directory, kept after it (an executor's). `stdio`: the program
    talks over this process's stdin and stdout as it runs (SandboxSpec.stdio). `control`: its
    output as it comes, and a stop after which it ends as "interrupted", reported like any run."""
    store = EnvironmentStore(state)
    info = store.get(env_id)  # fails before anything runs if the environment is missing
    files = named_files(state, argv, program)
    if workspace and workspace.resolve().is_relative_to(state.home.resolve()):
        raise PrivatePath(f"a workspace inside detour's state ({state.home}) would show it to sandboxes")
    from certs.authority import CertificateAuthority  # cryptography: a run's, not every importer's (the CLI's)

    authority = CertificateAuthority(state)
    trust = authority.ensure().trust_files()
    clock_at, clock_warnings = sandbox_clock(authority, info.clock)
    proxy = stack.access(env_id, secret_for(state, env_id))
    audit = AuditLog(state.audit_dir)
    start = audit.end(env_id)
    placeholders = SecretStore(state.secrets_dir).placeholders(env_id)
    credentials = store.credentials(env_id).variables
    began = time.time()
    execution = sandbox.run(SandboxSpec(argv=argv, proxy=proxy, mode=mode, trust=trust,
                                        limits=limits or Limits(), program=program, stdin=stdin,
                                        task=task or {}, files=files, workspace=workspace,
                                        credentials=credentials, placeholders=placeholders, clock_at=clock_at,
                                        stdio=stdio, control=control))
    requests, _ = audit.read(env_id, start)
    warnings = [*execution.warnings, *clock_warnings, *trust_warnings(requests),
                *proxy_hints(sandbox.name, execution.stderr), *stack_warnings(state, began)]
    return RunResult(**(execution.model_dump() | {"warnings": warnings}),
                     env_id=env_id, backend=sandbox.name, mode=mode, requests=requests, diff=store.diff(env_id))
