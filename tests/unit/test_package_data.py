"""Every data file a package reads ships in detour's wheel (the images install the wheel):
a template, a spec or a page left out of package-data works from a checkout and nowhere else."""

import fnmatch
import subprocess
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("detour", "detour_core", "mock_services", "proxy_addons", "certs", "sandbox")


def test_every_data_file_of_the_packages_is_package_data():
    globs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    tracked = subprocess.run(["git", "ls-files", *PACKAGES], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split()
    missing = []
    for name in tracked:
        if name.endswith(".py"):
            continue
        package, _, inner = name.partition("/")
        if not any(fnmatch.fnmatch(inner, pattern) for pattern in globs.get(package, [])):
            missing.append(name)
    assert missing == [], f"add to [tool.setuptools.package-data]: {missing}"
