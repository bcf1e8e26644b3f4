"""`hotbench emulator serve --stream-memory SIZE --check-signatures`: the flags reach the
emulator (also as the process `up` starts, from EmulatorOptions.argv), and a bad value
is one message and exit 2."""

from __future__ import annotations

import os
import signal

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from console import exitcodes
from console.cli import build_parser, main
from console.commands.emulator import emulator_options
from console.targets.emulator_process import emulator_argv
from emulator.emulator_options import EmulatorOptions
from tests.conftest import serve_emulator


def test_what_argv_writes_serve_reads_back_the_same_options() -> None:
    """One definition: the flags EmulatorOptions.argv gives the emulator `up` starts are
    the ones `emulator serve` parses, to the same options."""
    parser = build_parser()
    for options in (
        EmulatorOptions(scale=1.0),  # serve's --scale has a default: argv always gives it
        EmulatorOptions(
            scale=0.5, create_delay_s=0, stream_bytes=64 * 1024**2, check_signatures=True
        ),
        EmulatorOptions(scale=1.0, store="keys", max_memory=3 * 1024**3, stream_bytes=1000),
    ):
        argv = emulator_argv(8123, options)
        assert emulator_options(parser.parse_args(argv[2:])) == options


def test_stream_memory_takes_a_size() -> None:
    parser = build_parser()
    served = emulator_options(parser.parse_args(["emulator", "serve", "--stream-memory", "64M"]))
    assert (served.stream_bytes, served.check_signatures) == (64 * 1024**2, False)
    default = emulator_options(parser.parse_args(["emulator", "serve"]))
    assert default.stream_bytes is None


@pytest.mark.parametrize("size", ["lots", "0", "-1G"])
def test_a_bad_stream_memory_is_one_message_and_exit_2(
    size: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["emulator", "serve", "--port", "0", f"--stream-memory={size}"])
    assert code == exitcodes.USAGE
    printed = capsys.readouterr().out
    assert f"--stream-memory {size!r} is not a size" in printed and "e.g. 2G" in printed
    assert "Traceback" not in printed


def test_check_signatures_takes_no_value(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["emulator", "serve", "--check-signatures=yes"])
    assert exited.value.code == exitcodes.USAGE
    assert "--check-signatures: ignored explicit argument 'yes'" in capsys.readouterr().err


def _client(url: str, secret: str) -> object:
    return boto3.client(
        "dynamodb",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key=secret,
        config=Config(retries={"total_max_attempts": 1}),
    )


def test_serve_with_both_flags_says_so_and_refuses_a_wrong_signature() -> None:
    env = dict(os.environ)
    env.pop("AWS_ACCESS_KEY_ID", None)  # the check's keys: x / x
    env.pop("AWS_SECRET_ACCESS_KEY", None)
    port, proc = serve_emulator("--check-signatures", "--stream-memory", "1M", env=env)
    try:
        assert proc.stdout is not None
        banner = [proc.stdout.readline() for _ in range(7)]
        (line,) = [b for b in banner if b.strip().startswith("streams:")]
        assert "records kept up to 1 MiB;" in line and "signatures: checked" in line
        url = f"http://127.0.0.1:{port}"
        assert _client(url, "x").list_tables()["TableNames"] == []  # type: ignore[attr-defined]
        with pytest.raises(ClientError) as refused:
            _client(url, "wrong").list_tables()  # type: ignore[attr-defined]
        assert refused.value.response["Error"]["Code"] == "InvalidSignatureException"
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "Traceback" not in rest
