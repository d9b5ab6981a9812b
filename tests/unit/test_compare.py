from detour.compare import normalized_state
from mock_services.store import StateDiff


def message(ts: str, text: str, parent: str | None = None) -> dict:
    return {"__table__": "messages", "message_id": ts, "ts": ts, "message_text": text, "parent_id": parent,
            "created_at": f"2026-01-01T00:00:{ts[-2:]}"}


def test_generated_values_do_not_matter_but_content_and_references_do():
    first = StateDiff(inserts=[message("1.000001", "a"), message("1.000002", "b"),
                               {"__table__": "message_reactions", "message_id": "1.000002", "reaction_type": "x"}],
                      updates=[], deletes=[])
    # the same actions, other clock, other order
    second = StateDiff(inserts=[message("9.000007", "b"), message("9.000008", "a"),
                                {"__table__": "message_reactions", "message_id": "9.000007", "reaction_type": "x"}],
                       updates=[], deletes=[])
    assert normalized_state(first) == normalized_state(second)
    # the reaction on the other message is a different state
    moved = StateDiff(inserts=[*second.inserts[:2],
                               {"__table__": "message_reactions", "message_id": "9.000008", "reaction_type": "x"}],
                      updates=[], deletes=[])
    assert normalized_state(first) != normalized_state(moved)
    assert normalized_state(first) != normalized_state(StateDiff(inserts=first.inserts[:2], updates=[], deletes=[]))
