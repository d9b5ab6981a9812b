"""Gmail's search language as the replica reads it (mock_services/gmail/search.py), and the
subject and reference rules threading keys on (mock_services/gmail/mime.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage

import pytest

from mock_services.gmail import mime
from mock_services.gmail.search import Facts, InvalidQuery, matches, mentions_labels, parse

MAY_17 = datetime(2025, 5, 17, 10, 0, tzinfo=UTC).timestamp()


def mail(**given) -> Facts:
    base = dict(sender="john doe <john@example.com>", to="ai agent <agent@example.com>",
                cc="priya patel <priya@example.com>", subject="q3 planning numbers",
                label_ids={"INBOX", "UNREAD", "Label_1"}, label_names={"Label_1": "Projects/Board deck"},
                filenames=["q3_numbers.csv"], seconds=MAY_17, size=2048, rfc822_id="<abc@mail.gmail.com>",
                body=lambda: "Could you summarize the growth per region for the board deck by Friday?",
                now=MAY_17 + 3 * 86400, me="agent@example.com")
    return Facts(**(base | given))


@pytest.mark.parametrize("query, expected", [
    ("", True),
    ("from:john", True), ("from:john@example.com", True), ("from:sarah", False), ("from:me", False),
    ("to:me", True), ("to:priya", True), ("cc:priya", True), ("bcc:priya", False),
    ("subject:planning", True), ("subject:plan", False), ('subject:"planning numbers"', True),
    ("subject:(q3 numbers)", True), ("subject:(q3 budget)", False),
    ("label:inbox", True), ("label:projects-board-deck", True), ('label:"projects/board deck"', True),
    ("in:inbox", True), ("in:sent", False), ("in:anywhere", True),
    ("is:unread", True), ("is:read", False), ("is:starred", False), ("-is:starred", True),
    ("has:attachment", True), ("has:userlabels", True), ("filename:csv", True), ("filename:pdf", False),
    ("after:2025/05/01", True), ("after:2025/05/18", False), ("before:2025-05-18", True), ("older:2025/05/17", False),
    (f"after:{int(MAY_17) - 1}", True), ("newer_than:7d", True), ("newer_than:2d", False), ("older_than:1d", True),
    ("larger:1k", True), ("larger:1M", False), ("smaller:10K", True), ("rfc822msgid:abc@mail.gmail.com", True),
    ("growth", True), ("Growth", True), ("grow", False), ('"board deck"', True), ('"deck board"', False),
    ("growth from:john", True), ("growth from:sarah", False),
    ("from:sarah OR from:john", True), ("from:sarah | from:yuki", False), ("{from:sarah from:john}", True),
    ("from:(sarah OR john)", True), ("from:{sarah yuki}", False),
    ("(from:sarah OR subject:q3) is:unread", True), ("from:sarah OR subject:q3 is:starred", False),
    ("-from:john", False), ("-{from:sarah from:yuki}", True), ("-(from:john subject:q3)", False),
    ("q3 AND numbers", True), ("category:updates", False),
])
def test_queries_select_as_gmail_does(query, expected):
    assert matches(parse(query), mail()) is expected, parse(query)


def test_the_body_is_read_only_when_a_word_needs_it():
    read = []
    facts = mail(body=lambda: read.append(1) or "text")
    assert matches(parse("from:john has:attachment is:unread"), facts) and read == []
    assert matches(parse("text"), facts) and read == [1]


def test_bad_values_are_refused_by_name_and_spam_trash_mentions_are_seen():
    for query in ("after:yesterday", "newer_than:3w", "larger:big"):
        with pytest.raises(InvalidQuery):
            matches(parse(query), mail())
    assert mentions_labels(parse("in:trash from:john"), {"TRASH", "SPAM"})
    assert mentions_labels(parse("from:john OR in:anywhere"), {"TRASH", "SPAM"})
    assert not mentions_labels(parse("from:john is:unread"), {"TRASH", "SPAM"})


def test_a_reply_and_its_original_share_a_subject_and_name_each_other():
    assert mime.normalized_subject("Re: RE: Fwd:  Q3 planning numbers ") == "q3 planning numbers"
    assert mime.normalized_subject("AW: Re[2]: Sv: Budget") == "budget"
    assert mime.normalized_subject("Review: design") == "review: design"
    reply = EmailMessage()
    reply["Subject"] = "Re: Q3"
    reply["In-Reply-To"] = "<b@x>"
    reply["References"] = "<a@x> <b@x>"
    assert mime.references(reply) == ["<a@x>", "<b@x>", "<b@x>"]


def test_a_message_is_walked_into_gmails_parts():
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "a@example.com", "b@example.com", "Files"
    message.set_content("Hello <there> & 'you'")
    message.add_alternative("<p>Hello</p>", subtype="html")
    message.add_attachment(b"1,2\n", maintype="text", subtype="csv", filename="n.csv")
    raw = mime.serialize(message)
    parsed = mime.parse(raw)
    payload = mime.part_json(parsed, "m1")
    assert payload["mimeType"] == "multipart/mixed" and payload["partId"] == ""
    assert [p["partId"] for p in payload["parts"]] == ["0", "1"]
    assert [p["partId"] for p in payload["parts"][0]["parts"]] == ["0.0", "0.1"]
    csv = payload["parts"][1]
    assert csv["filename"] == "n.csv" and csv["body"] == {"size": 4, "attachmentId": mime.attachment_id("m1", "1")}
    assert mime.find_attachment(parsed, "m1", csv["body"]["attachmentId"]).data == b"1,2\n"
    assert mime.snippet(parsed) == "Hello &lt;there&gt; &amp; &#39;you&#39;"
    assert mime.decode_raw(mime.encode(raw).rstrip("=")) == raw
