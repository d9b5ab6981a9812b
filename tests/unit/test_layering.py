"""The house's floors (tests/layering.py) hold for the tree, and the checker itself catches
what it is for: an import that climbs, a circle of files, a circle of packages."""

from pathlib import Path

from tests.layering import check

REPO = Path(__file__).resolve().parents[2]


def test_the_source_tree_keeps_its_floors():
    problems = check(REPO)
    assert problems == [], "\n".join(problems)


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


CLEAN = {
    "detour_core/__init__.py": "",
    "detour_core/errors.py": "class DetourError(Exception): ...\n",
    "sandbox/__init__.py": "",
    "sandbox/base.py": "from detour_core.errors import DetourError\n",
    "detour/__init__.py": "",
    "detour/cli.py": "from sandbox.base import DetourError\n",
}


def test_a_clean_planted_tree_passes(tmp_path):
    assert check(plant(tmp_path, CLEAN)) == []


def test_an_upward_import_is_named_with_its_file_and_line(tmp_path):
    tree = plant(tmp_path, CLEAN | {"sandbox/base.py": "import os\n\ndef late():\n    from detour.cli import x\n"})
    problems = check(tree)
    assert problems[0] == "sandbox/base.py:4: sandbox.base (parts) imports detour.cli (faces), a floor above"
    assert problems[1:] == [  # and, since detour.cli imports sandbox.base, two circles
        "circle: detour.cli, sandbox.base (detour/cli.py:1 imports sandbox.base; sandbox/base.py:4 imports detour.cli)",
        "circle: detour, sandbox (detour/cli.py:1 imports sandbox.base; sandbox/base.py:4 imports detour.cli)"]


def test_facts_may_not_import_a_part(tmp_path):
    tree = plant(tmp_path, CLEAN | {"detour_core/errors.py": "from sandbox import base\n"})
    problems = check(tree)
    assert "detour_core/errors.py:1: detour_core.errors (facts) imports sandbox.base (parts), a floor above" in problems


def test_a_circle_of_files_and_of_packages_is_found(tmp_path):
    tree = plant(tmp_path, CLEAN | {
        "sandbox/a.py": "from sandbox.b import y\n", "sandbox/b.py": "from .a import x\n",
        "certs/__init__.py": "", "certs/ca.py": "from sandbox.base import DetourError\n",
        "sandbox/uses_certs.py": "import certs.ca\n"})
    problems = check(tree)
    assert any(p.startswith("circle: sandbox.a, sandbox.b (sandbox/a.py:1 imports sandbox.b; "
                            "sandbox/b.py:1 imports sandbox.a)") for p in problems), problems
    assert any(p.startswith("circle: certs, sandbox") for p in problems), problems


def test_the_registry_names_count_as_imports(tmp_path):
    """A descriptor is facts; the registry's string list may not reach past the descriptors."""
    tree = plant(tmp_path, CLEAN | {
        "detour_core/registry.py": 'PACK_MODULES = ("mock_services.notes.pack", "mock_services.notes.router")\n',
        "mock_services/__init__.py": "", "mock_services/notes/__init__.py": "",
        "mock_services/notes/pack.py": "from detour_core.errors import DetourError\n",
        "mock_services/notes/router.py": "from detour_core.errors import DetourError\n"})
    assert check(tree)[0] == ("detour_core/registry.py:1: detour_core.registry (facts) imports "
                              "mock_services.notes.router (parts), a floor above")


def test_the_client_imports_nothing_of_the_stack(tmp_path):
    tree = plant(tmp_path, CLEAN | {"detour_client/__init__.py": "", "detour_client/http.py": "import httpx\n",
                                    "detour_client/ray.py": "from detour_client.http import x\n"})
    assert check(tree) == []
    tree = plant(tmp_path, {"detour_client/http.py": "import httpx\nfrom detour_core.errors import DetourError\n"})
    assert check(tree) == ["detour_client/http.py:2: detour_client.http (standalone) imports detour_core.errors"]
