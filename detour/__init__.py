"""detour: run agent code whose only way out is mitmproxy, routed to per-environment replicas."""
