"""Facts every floor of detour shares: errors, state paths, credentials, the service registry
and host map, the audit record and its decision model, network policy, redaction.

The bottom floor: it imports nothing else of the project but the service packs' descriptors,
which are facts themselves (see services.py), so any part can import it without a circle.
"""
