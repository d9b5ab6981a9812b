"""One run: agent code in a sandbox, pointed at a stack and an environment.

The runner joins what the backend does not know about: the environment's credentials,
the audit lines the run produced, and the environment's diff afterwards.
"""

from __future__ import annotations

from pathlib import Path

from certs.authority import CertificateAuthority
from detour_core.audit import AuditLog, AuditRecord
from detour_core.credentials import secret_for
from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from detour_core.secrets import SecretStore
from detour.stack import StackInfo
from mock_services.store import EnvironmentStore, StateDiff
from sandbox.base import Execution, Limits, Mode, Sandbox, SandboxSpec


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


class RunResult(Execution):
    env_id: str
    backend: str
    mode: Mode
    requests: list[AuditRecord]
    diff: StateDiff


def run_in_environment(state: StatePaths, stack: StackInfo, env_id: str, sandbox: Sandbox,
                       argv: list[str], program: Path | None = None,
                       limits: Limits | None = None, stdin: bytes = b"", mode: Mode = "proxy",
                       task: dict[str, str] | None = None, workspace: Path | None = None) -> RunResult:
    """`argv` may name host files (an agent script): their folders become visible read-only.
    A `workspace` is the run's work directory, kept after it (an executor's)."""
    store = EnvironmentStore(state)
    store.get(env_id)  # fail before running anything if the environment is missing
    files = named_files(state, argv, program)
    if workspace and workspace.resolve().is_relative_to(state.home.resolve()):
        raise PrivatePath(f"a workspace inside detour's state ({state.home}) would show it to sandboxes")
    trust = CertificateAuthority(state).ensure().trust_files()
    proxy = stack.access(env_id, secret_for(state, env_id))
    audit = AuditLog(state.audit_dir)
    start = audit.end(env_id)
    placeholders = SecretStore(state.secrets_dir).placeholders(env_id)
    credentials = store.credentials(env_id).variables
    execution = sandbox.run(SandboxSpec(argv=argv, proxy=proxy, mode=mode, trust=trust,
                                        limits=limits or Limits(), program=program, stdin=stdin,
                                        task=task or {}, files=files, workspace=workspace,
                                        credentials=credentials, placeholders=placeholders))
    requests, _ = audit.read(env_id, start)
    return RunResult(**(execution.model_dump() | {"warnings": [*execution.warnings, *trust_warnings(requests)]}),
                     env_id=env_id, backend=sandbox.name, mode=mode, requests=requests, diff=store.diff(env_id))
