"""The committed generator: stripe/agent-toolkit's tool definitions -> the Stripe pack's tools table.

The toolkit's Python package keeps, per tool, its method name, title, description (prompts.py)
and arguments (pydantic models in schema.py), listed in tools.py. This loads those three files
from a checkout (they need only pydantic) and keeps what a client sees in `tools/list`: name,
title, description and the arguments' JSON Schema. It keeps none of the toolkit's code.

    git clone https://github.com/stripe/agent-toolkit
    python -m mock_services.mcp.stripe_toolkit agent-toolkit/tools/python/stripe_agent_toolkit \
        mock_services/stripe/spec/mcp_tools.json "stripe/agent-toolkit@COMMIT"
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from pathlib import Path

PACKAGE = "stripe_agent_toolkit"


def definitions(folder: Path) -> list[dict]:
    """tools.py's list, its modules loaded from `folder` as a package of their own (its
    __init__, which wants the stripe client, is not run)."""
    package = types.ModuleType(PACKAGE)
    package.__path__ = [str(folder)]
    sys.modules[PACKAGE] = package
    return importlib.import_module(f"{PACKAGE}.tools").tools


def tool(definition: dict) -> dict:
    schema = definition["args_schema"].model_json_schema()
    schema.pop("title", None)
    return {"name": definition["method"], "title": definition["name"],
            "description": definition["description"].strip(), "inputSchema": schema}


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m mock_services.mcp.stripe_toolkit TOOLKIT_PACKAGE_FOLDER OUT.json SOURCE",
              file=sys.stderr)
        return 2
    folder, out, source = Path(argv[0]), Path(argv[1]), argv[2]
    if not (folder / "tools.py").is_file():
        print(f"no tools.py in {folder}", file=sys.stderr)
        return 2
    table = {"source": source, "generated_by": "python -m mock_services.mcp.stripe_toolkit",
             "tools": [tool(d) for d in definitions(folder)]}
    out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
