"""The generated schema extension is in sync with its generator, and @linear/sdk's documents validate."""

import json

from graphql import parse, validate

from mock_services.linear.router import schema
from mock_services.linear.sdk_compat.generate import BASE, HERE, OUTPUT, Collector


def test_generated_extension_is_up_to_date():
    collector = Collector(BASE.read_text(), json.loads((HERE / "documents.json").read_text()))
    collector.run()
    assert collector.missing_args == set()
    assert OUTPUT.read_text() == collector.sdl(), "run: python -m mock_services.linear.sdk_compat.generate"


def test_every_sdk_document_validates():
    for document in json.loads((HERE / "documents.json").read_text()):
        assert validate(schema(), parse(document)) == []
