"""Real server processes for the tests that need them: gunicorn as `make serve` runs it, and redis-server."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import requests

from portal import paths

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(check, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, requests.RequestException):
            pass
        time.sleep(0.1)
    raise AssertionError(f"{what} did not answer within {timeout:.0f} s")


class Gunicorn:
    """One gunicorn server (master and workers in a process group of their own) with deploy/'s settings."""

    def __init__(
        self,
        app: str,
        env: dict[str, str],
        log: Path,
        *,
        config: str = "gunicorn.conf.py",
        workers: int = 1,
        threads: int = 4,
    ):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._command = [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            str(paths.PROJECT_ROOT / "deploy" / config),
            "-b",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            app,
        ]
        self.env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}  # may be completed before start()
        self._log = log
        self.process: subprocess.Popen | None = None

    def start(self, health: str = "/healthz") -> Gunicorn:
        return self.launch().wait_ready(health)

    def launch(self) -> Gunicorn:
        """Start the process without waiting for it to answer: several servers then boot side by side."""
        with self._log.open("a") as log:
            self.process = subprocess.Popen(
                self._command,
                cwd=paths.PROJECT_ROOT,
                env=self.env,  # noqa: S603
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        return self

    def wait_ready(self, health: str = "/healthz") -> Gunicorn:
        wait_until(lambda: requests.get(self.url + health, timeout=1).status_code == 200, f"gunicorn at {self.url}")
        return self

    def kill(self) -> None:
        """SIGKILL to the master and every worker at once: no cleanup, no graceful shutdown."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGKILL to the whole group, at once. What a request committed is on disk either way, and no test
        looks at how gunicorn shuts down: its quick shutdown (SIGINT) took 2 to 3 s per server here (the master
        waits for the worker's interpreter to exit, and gunicorn 27's gthread worker now and then ignored it
        until the graceful timeout), on every teardown of every test that starts one."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def log_text(self) -> str:
        return self._log.read_text(errors="replace") if self._log.exists() else ""


@contextlib.contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A throwaway redis-server on a free port (no persistence); yields its URL."""
    if not Path(REDIS_SERVER).exists():
        raise AssertionError(
            "redis-server is not installed: run `make test` (it installs it) or `sudo apt-get install redis-server`."
        )
    import redis

    port = free_port()
    with (directory / "redis.log").open("w") as log:
        process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",  # noqa: S603
                "--appendonly",
                "no",
                "--dir",
                str(directory),
            ],
            stdout=log,
            stderr=log,
        )
        try:
            wait_until(lambda: redis.Redis(port=port, socket_timeout=0.5).ping(), "redis-server")
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(timeout=10)
