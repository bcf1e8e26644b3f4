"""The error of a playbook that cannot be used, apart from the playbook's models.

The CLI catches it around every command, so it must be importable without the models:
building them (pydantic) is a fifth of a `hotbench` process's start, and `hotbench
emulator serve`, started for every local run, never reads a playbook.
"""

from __future__ import annotations


class PlaybookError(ValueError):
    """A playbook that cannot be used; the message says where and how to fix it."""
