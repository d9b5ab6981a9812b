"""A cross-protocol model route's call (ModelRoutes marks it) goes to the translator
(proxy_addons/model_translation.py), a process this addon starts on the first such call and stops
with the proxy; a translator that died is started again on the next call. Until it answers, such
calls wait; a translator that cannot start is the agent's one error, in its vendor's shape.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys

from mitmproxy import http

from detour_core.model_routes import ModelRoute, vendor_error
from proxy_addons.model_routes import ROUTE_KEY, ModelRoutes
from proxy_addons.verdict import METADATA_KEY, json_response

TARGET_HEADER = "x-detour-model-target"  # the route's base URL, for the translator
KEY_HEADER = "x-detour-translator-key"  # proves a call comes from this proxy
KEY_VARIABLE = "DETOUR_TRANSLATOR_KEY"  # how the translator gets the key (not its argv: others may read that)
STARTUP_SECONDS = 120  # litellm's import: seconds on a loaded machine


class ModelTranslator:
    def __init__(self) -> None:
        self.key = secrets.token_urlsafe(32)
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self.starting = asyncio.Lock()

    async def requestheaders(self, flow: http.HTTPFlow) -> None:
        route: ModelRoute | None = flow.metadata.get(ROUTE_KEY)
        if flow.response or flow.error or not flow.live or route is None or not route.translated():
            return
        assert route.base_url is not None
        try:
            port = await self.started()
        except (OSError, ValueError, asyncio.TimeoutError) as failed:
            verdict = flow.metadata[METADATA_KEY]
            verdict.decision, verdict.reason = "denied", f"the model translator did not start: {failed}"
            status, body = vendor_error(route.host_protocol(), "upstream", f"detour: {verdict.reason}")
            flow.response = json_response(status, "denied", body)
            return
        ModelRoutes.rebase(flow, f"http://127.0.0.1:{port}", f"/{route.host_protocol()}{flow.request.path}")
        flow.request.headers[TARGET_HEADER] = route.base_url
        flow.request.headers[KEY_HEADER] = self.key

    async def started(self) -> int:
        """The translator's port, once it takes calls; started here if it is not running."""
        async with self.starting:
            if self.process is None or self.process.returncode is not None:
                self.process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "proxy_addons.model_translation", stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE, env=os.environ | {KEY_VARIABLE: self.key})
                assert self.process.stdout is not None
                try:
                    line = await asyncio.wait_for(self.process.stdout.readline(), STARTUP_SECONDS)
                    if not line.strip() or line.startswith(b"error: "):
                        said = line.decode(errors="replace").strip().removeprefix("error: ")
                        raise OSError(said or f"it exited with {await self.process.wait()}")
                    self.port = int(line)
                except BaseException:
                    self.done()
                    raise
            return self.port

    def done(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
