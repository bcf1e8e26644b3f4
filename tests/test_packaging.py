"""Packaging: an SPDX license string and a pinned build backend.

setuptools deprecated the table form of `project.license` (removal announced for
2027-02-18) and prints a warning on every install while it is there; the SPDX string
needs setuptools >= 77 (PEP 639), so the build backend's range must start there. A fresh
`pip install -e .` was checked once by hand (README, "Set up and run"); this keeps the
file in the shape that installs without the warning.
"""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import ROOT


def test_license_is_an_spdx_string_and_the_backend_is_pinned() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    requires = [Requirement(r) for r in project["build-system"]["requires"]]
    setuptools = next(r for r in requires if r.name == "setuptools")
    assert not setuptools.specifier.contains(Version("76.1.0"))  # no PEP 639 support
    assert setuptools.specifier.contains(Version("77.0.3"))
    assert not setuptools.specifier.contains(Version("999.0"))  # an upper bound
    assert project["build-system"]["build-backend"] == "setuptools.build_meta"
