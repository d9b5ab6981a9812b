"""The generic REST engine the REST packs share: an operation table generated from the
vendor's own description (spec.py, discovery.py), a FastAPI router that parses and checks
every operation's parameters from that table (router.py), partial responses (fields.py),
and the vendor's error shapes (errors.py). A pack adds state-backed handlers by operation id."""
