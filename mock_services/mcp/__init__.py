"""The MCP engine: the vendors' hosted MCP servers over the packs' state (endpoint.py serves them)."""
