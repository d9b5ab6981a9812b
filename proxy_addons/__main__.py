"""The detour proxy: mitmdump with detour's addons built in.

    python -m proxy_addons [mitmdump's options]

The stack runs this rather than `mitmdump -s detour_proxy.py`: a script loads after
mitmproxy's listeners open, so for a moment a port would accept connections with no routing
and no upstream guard, and a script is reloaded whenever its file changes. Here the addons
are part of the master before anything listens, and stay as they were started.
"""

import sys

from mitmproxy.tools import cmdline, main
from mitmproxy.tools.dump import DumpMaster

from proxy_addons.detour_proxy import addons


class DetourMaster(DumpMaster):
    def __init__(self, options) -> None:
        super().__init__(options, with_dumper=False)
        self.addons.add(*addons)


if __name__ == "__main__":
    main.run(DetourMaster, cmdline.mitmdump, sys.argv[1:])
