"""Real services for the web server's tests: PostgreSQL, Redis and `quiltmaker serve` processes, on loopback ports.

Each starts the program itself (Debian's packages; scripts/system-deps.sh
installs them), waits until it answers, and stops it afterwards.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from sqlalchemy import create_engine
from web_helpers import TEST_LIMITS, free_port, start_server

BINARIES = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
REPOSITORY = Path(__file__).resolve().parents[2]


def _wait_until(check, seconds: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, httpx.HTTPError):
            pass
        time.sleep(0.1)
    raise TimeoutError("the process did not come up in time")


class RedisServer:
    """A real redis-server on a loopback port, which a test may stop and start again on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_until(lambda: self._answers())

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"redis-server exited with code {self.process.returncode} (port {self.port} taken?)")
        socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        return True

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class ServerGroup(list[str]):
    """The addresses (host:port) of running `quiltmaker serve` processes, which can be killed and restarted in place."""

    def __init__(self, data: Path, arguments: list[str]) -> None:
        super().__init__()
        self.data = data
        self.arguments = arguments
        self.processes: list[subprocess.Popen[bytes]] = []
        self.starts = 0

    def start(self, port: int = 0) -> str:
        self.starts += 1
        process, port = start_server(self.arguments, self.data / f"server-{self.starts - 1}.log", port=port)
        self.processes.append(process)
        return f"127.0.0.1:{port}"

    def kill(self, index: int) -> None:
        """SIGKILL process ``index`` and its AI workers (its own process group), as when a machine is lost."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.processes[index].pid, signal.SIGKILL)
        self.processes[index].wait()

    def restart(self, index: int) -> None:
        """Kill process ``index`` and start a new one on the same address (where a proxy expects it)."""
        self.kill(index)
        port = int(self[index].rsplit(":", 1)[1])
        process, _ = start_server(self.arguments, self.data / f"server-restarted-{index}.log", port=port)
        self.processes[index] = process

    def stop(self) -> None:
        for index in range(len(self.processes)):
            self.kill(index)


@contextlib.contextmanager
def servers(data: Path, redis_url: str, count: int = 2, database: str | None = None) -> Iterator[ServerGroup]:
    """``count`` `quiltmaker serve` processes on one database (SQLite in ``data`` unless ``database`` is a URL) and
    one Redis; their addresses (host:port). Each its own process group: killing it takes its AI workers too."""
    group = ServerGroup(data, ["--data", str(data), "--redis", redis_url, *TEST_LIMITS, *(["--database", database] if database else [])])
    try:
        for _ in range(count):
            group.append(group.start())
        yield group
    finally:
        group.stop()


def _as_server_user(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; as root, run it as the packaged 'postgres' user.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


class PostgresServer:
    """A throwaway PostgreSQL server on a loopback port (run as the ``postgres`` user when root), which a test may
    stop and start again on the same port and data, as an operator restarting it would."""

    def __init__(self) -> None:
        self.binaries = BINARIES[-1]
        self.folder = tempfile.mkdtemp(prefix="quiltmaker-pg-")
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self.data = os.path.join(self.folder, "data")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self.process: subprocess.Popen[bytes] | None = None
        subprocess.run(_as_server_user([f"{self.binaries}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust"]), check=True, capture_output=True)

    def start(self) -> None:
        self.process = subprocess.Popen(
            _as_server_user([
                f"{self.binaries}/postgres", "-D", self.data, "-p", str(self.port), "-k", self.folder,
                "-c", "listen_addresses=127.0.0.1", "-c", "fsync=on",
            ]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                engine = create_engine(self.url)
                try:
                    engine.connect().close()
                finally:
                    engine.dispose()
                return
            except Exception:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        """A fast shutdown, as an operator's restart does: every session is ended at once."""
        if self.process is not None:
            if self.process.poll() is None:  # (one that died already has nothing to stop, and its error is the news)
                subprocess.run(
                    _as_server_user([f"{self.binaries}/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"]), check=True, capture_output=True,
                )
            self.process.wait()
            self.process = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL server's URL, for the block's length."""
    server = PostgresServer()
    try:
        server.start()
        yield server.url
    finally:
        server.remove()


@contextlib.contextmanager
def nginx(folder: Path, upstreams: list[str], changes: dict[str, str] | None = None) -> Iterator[tuple[int, int]]:
    """deploy/nginx.conf in front of ``upstreams``; its HTTP and HTTPS ports.

    ``changes`` replaces lines of the file (each must be there, so a test
    fails when the setting it checks is gone), e.g. a timeout shortened.
    """
    http_port, https_port = free_port(), free_port()
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )
    config = (REPOSITORY / "deploy" / "nginx.conf").read_text()
    for name, value in {
        "__PREFIX__": str(folder),
        "__UPSTREAMS__": " ".join(f"server {u} max_fails=1 fail_timeout=30s;" for u in upstreams),
        "__HTTP_PORT__": str(http_port),
        "__HTTPS_PORT__": str(https_port),
        "__CERT__": str(folder / "cert.pem"),
        "__KEY__": str(folder / "key.pem"),
    }.items():
        config = config.replace(name, value)
    for line, changed in (changes or {}).items():
        assert line in config, f"deploy/nginx.conf has {line!r}"
        config = config.replace(line, changed)
    lines = [line for line in config.splitlines() if not line.lstrip().startswith("#")]
    assert not [line for line in lines if "__" in line], "every placeholder is filled"
    (folder / "nginx.conf").write_text(config)
    # As root, nginx's workers run as "nobody"; the folder must be theirs to write temporary files in.
    os.chmod(folder, 0o777)
    process = subprocess.Popen([NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-g", "daemon off;"], stderr=subprocess.PIPE)
    try:
        _wait_until(lambda: (process.poll() is not None and _fail(process)) or _answers(f"http://127.0.0.1:{http_port}"), 30)
        yield http_port, https_port
    finally:
        process.terminate()
        process.wait(timeout=10)


def _fail(process: subprocess.Popen[bytes]) -> bool:
    raise AssertionError(f"nginx exited: {process.stderr.read().decode() if process.stderr else ''}")


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/catalogue", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
