"""The fidelity suite's own checker, so that a clean score means the answers agree and not that
the checker sees nothing: declarations parsed, and wrong types, unknown fields and missing ones
found."""

from tests.fidelity.slack_reference import parse, reference, verdict

DECLARATION = """import type { WebAPICallResult } from '../../WebClient';
export type ThingsGetResponse = WebAPICallResult & {
    ok?: boolean;
    thing?: Thing;
    counts?: {
        [key: string]: number;
    };
    tags?: string[];
};
export interface Thing {
    id?: string;
    'odd-name'?: number;
    kind?: Kind;
    parts?: Thing[];
}
export declare enum Kind {
    Big = "big"
}
"""


def test_a_declaration_file_is_read_whole():
    found = parse(DECLARATION)
    assert found.root == {"ok": "boolean", "thing": "Thing", "counts": "map<number>", "tags": "string[]"}
    assert found.types == {"Thing": {"id": "string", "odd-name": "number", "kind": "Kind", "parts": "Thing[]"}}
    assert found.enums == {"Kind"}


def test_wrong_types_unknown_and_missing_fields_are_found_at_any_depth():
    answer = {"ok": True, "channel": {"id": 5, "name": "x", "invented": 1, "topic": {"value": 3}}, "extra": []}
    found = verdict("conversations.create", answer)
    assert found["type"] == ["channel.id: int, not string", "channel.topic.value: int, not string"]
    assert found["unknown"] == ["channel.invented", "extra"]
    assert "channel.name" in found["ok"] and found["covered"] == ["channel"]
    assert verdict("no.such.method", {}) is None


def test_the_installed_reference_covers_the_methods_the_suite_calls():
    assert reference("chat.postMessage").root["message"] == "ChatPostMessageResponseMessage"
    assert reference("openid.connect.userInfo") is not None, "found whatever the file's capitals"
