"""The notes pack's descriptor."""

from pathlib import Path

from detour_core.pack import ServicePack

PACK = ServicePack(
    name="notes",
    hosts=("notes.example.test",),
    router="tests.packs.notes.router:builds.router",
    templates=Path(__file__).parent / "templates",
    signature_tables=("notes",),
    spec="written by hand for the test",
)
