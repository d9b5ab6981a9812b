"""The proxy's event loop (proxy_addons/__main__.py): uvloop's, with mitmproxy's tasks started as
they were before Python 3.12 (uvloop's loop refuses eager ones on 3.13, detour's images' Python).
Run in a fresh interpreter: the loop policy is process-wide."""

import subprocess
import sys

PROBE = """
import asyncio, uvloop
from mitmproxy import master
from proxy_addons.__main__ import on_uvloop

async def probe():
    loop = asyncio.get_running_loop()
    with master.asyncio_utils.set_eager_task_factory():  # what mitmproxy's master runs within
        return isinstance(loop, uvloop.Loop), loop.get_task_factory()

on_uvloop()
print(asyncio.run(probe()))
"""


def test_the_proxy_runs_on_uvloop_without_eager_tasks():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(True, None)"
