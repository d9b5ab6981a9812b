"""The events engine: state changes turned into the vendor's events, and delivered.

A pack declares its events as data (`ServicePack.events` names an `Events` table): which
change to which of its tables emits which event, how the row renders into the event's payload,
who may receive it, and the pack's delivery (Slack's Socket Mode envelopes, a webhook's POST).
The store calls `emit` inside the transaction that makes the change, so an event exists only
if its change is committed, and a rolled-back call emits nothing. Deliveries wait in an outbox
kept in the environment's state (outbox.py), so any process of a stack may send them, and
retries follow the vendor's schedule on the environment's clock. A timeline
(mock_services/timelines) sees each event too: its people may answer the agent's.
"""
