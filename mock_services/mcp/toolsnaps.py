"""The committed generator: a vendor's published MCP tool definitions -> a pack's tools table.

github/github-mcp-server keeps each tool's definition, as its server lists it, in a snapshot
file (`pkg/github/__toolsnaps__/NAME.snap`, JSON). This reads a checkout's snapshots and keeps,
per tool, what a client sees in `tools/list`: its name, title, description, input schema and
hints. It keeps none of the server's code.

    git clone https://github.com/github/github-mcp-server
    python -m mock_services.mcp.toolsnaps github-mcp-server/pkg/github/__toolsnaps__ \
        mock_services/github/spec/mcp_tools.json "github/github-mcp-server@COMMIT"
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KEPT = ("name", "title", "description", "inputSchema", "annotations")


def tool(snapshot: dict) -> dict:
    return {key: snapshot[key] for key in KEPT if key in snapshot}


def table(folder: Path, source: str) -> dict:
    tools = [tool(json.loads(path.read_text())) for path in sorted(folder.glob("*.snap"))]
    return {"source": source, "generated_by": "python -m mock_services.mcp.toolsnaps", "tools": tools}


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m mock_services.mcp.toolsnaps SNAPSHOT_FOLDER OUT.json SOURCE", file=sys.stderr)
        return 2
    folder, out, source = Path(argv[0]), Path(argv[1]), argv[2]
    if not folder.is_dir():
        print(f"no such folder: {folder}", file=sys.stderr)
        return 2
    out.write_text(json.dumps(table(folder, source), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
