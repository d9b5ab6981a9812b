"""The warm interpreter: a fork server run by the sandbox runtime's own Python (stdlib only here).

Started before any run, with an empty environment, it imports the runtime's common client
libraries once and then only accepts connections: for each it forks, and the fork alone reads
the request (so no run's variables, tokens or code ever enter the server). The fork joins the
run's PID namespace for its children and forks the agent's process, which joins the run's
cgroups, enters the sandbox's other namespaces (network, mount, IPC, UTS, cgroup: those of a
holder bwrap made for the run, sent as descriptors), takes the holder's stdio, drops to the
run's uid with no capabilities and no new privileges, and runs the program in place of the
interpreter's start. The fork waits for it and writes its exit code where the holder reads it.
Nothing of one run reaches the next: each starts from the server's untouched memory, in a
fresh sandbox. All runs of one server share its hash seed (docs/limits.md).

Protocol: one message per connection, a 4-byte length then JSON, its first bytes carrying the
descriptors (SCM_RIGHTS) in the order the request's `fds` names them.
"""

from __future__ import annotations

import atexit
import ctypes
import importlib
import json
import os
import resource
import select
import shutil
import signal
import socket
import struct
import sys
import threading
import types

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
NAMESPACES = ("cgroup", "ipc", "uts", "net", "mnt")  # the agent enters these; the mount namespace last
LIBC = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _prctl(option: int, arg: int = 0, arg3: int = 0) -> None:
    _check(LIBC.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(arg3), 0, 0), f"prctl {option}")


def _setns(fd: int) -> None:
    _check(LIBC.setns(fd, 0), "setns")


def _last_capability() -> int:
    with open("/proc/sys/kernel/cap_last_cap") as f:
        return int(f.read())


def drop_privileges(uid: int) -> None:
    """As setpriv --reuid --regid --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all."""
    for cap in range(_last_capability() + 1):
        _prctl(PR_CAPBSET_DROP, cap)
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    header = struct.pack("II", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    _check(LIBC.capset(header, bytes(24)), "capset")  # none effective, permitted or inheritable
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_DUMPABLE, 1)  # as an exec would leave it: its own /proc entries are its uid's


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    head, fds, _, _ = socket.recv_fds(conn, 4, 64)
    size = struct.unpack("!I", head)[0]
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise EOFError("the request ended early")
        body += chunk
    return json.loads(body), list(fds)


def _exit_code(error: SystemExit) -> int:
    """As the interpreter ends on SystemExit: None is 0, an int itself, anything else printed and 1."""
    if error.code is None or isinstance(error.code, int):
        return error.code or 0
    print(error.code, file=sys.stderr)
    return 1


def _program(argv: list[str]) -> tuple[str, str]:
    """(source, file name) for `python FILE`, `python -c CODE` or `python -` (stdin)."""
    if argv[1] == "-c":
        return argv[2], "<string>"
    if argv[1] == "-":
        return sys.stdin.read(), "<stdin>"
    with open(argv[1], encoding="utf-8") as f:
        return f.read(), argv[1]


def run_program(argv: list[str]) -> int:
    """Run the agent's program as `python ARGS` would, in this process; its exit code."""
    code = 0
    try:
        sys.argv = ["-c", *argv[3:]] if argv[1] == "-c" else argv[1:]
        folder = os.path.dirname(os.path.abspath(argv[1])) if argv[1] not in ("-c", "-") else ""
        sys.path[0] = folder
        sys.orig_argv = argv
        main = types.ModuleType("__main__")
        source, name = _program(argv)
        main.__dict__["__builtins__"] = __builtins__
        if not name.startswith("<"):
            main.__dict__["__file__"] = name = os.path.abspath(name)
        sys.modules["__main__"] = main
        exec(compile(source, name, "exec"), main.__dict__)
    except SystemExit as error:
        code = _exit_code(error)
    except BaseException as error:  # noqa: BLE001 - reported as the interpreter reports it
        tb = error.__traceback__
        sys.excepthook(type(error), error, tb.tb_next if tb else None)  # from the program's frame on
        code = 130 if isinstance(error, KeyboardInterrupt) else 1
    threading._shutdown()  # type: ignore[attr-defined] - joins non-daemon threads, as the interpreter does
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def agent(request: dict, fds: dict[str, int]) -> None:
    """In the run's PID namespace already: join its cgroups and namespaces, drop, run."""
    os.setsid()
    for procs in request["cgroups"]:
        with open(procs, "w") as f:
            f.write("0")
    for name in NAMESPACES:
        _setns(fds[name])
    for target, name in enumerate(("stdin", "stdout", "stderr")):
        os.dup2(fds[name], target)
    os.closerange(3, 1 << 20)  # the server's and this run's descriptors alike
    for name, value in request["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value[0], value[1]))
    os.chdir(request["cwd"])
    drop_privileges(request["uid"])
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.environ.clear()
    os.environ.update(request["env"])
    os._exit(run_program(request["argv"]))


def serve_one(conn: socket.socket) -> None:
    """In the fork of the server: read the request, start the agent in the run's PID namespace,
    and report its exit code to the holder."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    if uid != 0:
        return
    request, received = _receive(conn)
    fds = dict(zip(request["fds"], received, strict=True))
    try:
        _setns(fds["pid"])  # for the children only: the agent is the namespace's, this process is not
        child = os.fork()
    except OSError:
        os.write(fds["status"], b"cold\n")  # the holder runs the program itself
        raise
    if child == 0:
        conn.close()
        try:
            agent(request, fds)
        finally:
            os._exit(125)
    for fd in received:
        if fd != fds["status"]:
            os.close(fd)
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    os.write(fds["status"], f"{code if code >= 0 else 128 - code}\n".encode())


def _reap() -> None:
    """Wait for the forks that have ended (so their CPU is counted in the server's children's)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def main(path: str, modules: list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a library the runtime lacks is simply not warm
            continue
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)
    while True:
        readable = select.select([listener, sys.stdin], [], [], 1.0)[0]
        _reap()
        if sys.stdin in readable:  # stdin closed: the detour that started this server is gone
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)  # or the next detour to look has removed it
            return
        if not readable:
            continue
        conn, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            try:
                serve_one(conn)
            finally:
                os._exit(0)
        conn.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
