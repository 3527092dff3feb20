"""A real PostgreSQL server for the tests: Debian's binaries, a throw-away cluster in a temporary folder,
listening on a free local port, one new database per test.

PostgreSQL refuses to run as root, and CI runs as root: then the cluster belongs to the `postgres` system
user (the Debian package creates it) and the server is started through `runuser`.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "team-secret"  # the test cluster's own; reaches the app through the environment only
USER = "screenlab"


def binaries() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "initdb").is_file():
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).resolve().parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    def __init__(self):
        self.bin = binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (Debian: apt-get install postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="screenlab-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        self._names = itertools.count(1)

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = list(args)
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, cwd=self.root)

    def start(self) -> PgServer:
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD)
        if self.as_root:
            shutil.chown(pwfile, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "-A", "scram-sha-256",
                  f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C.UTF-8")
        self.resume()
        return self

    def pause(self) -> None:
        """Stop the server (dropping every connection), keep its data: a server that went away."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        # durability is not under test here; speed is (fsync off is for this throw-away cluster only)
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"), "-o", opts,
                  "-w", "-t", "60", "start")

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres", password: bool = True) -> str:
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql+psycopg://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; returns its URL (password included, as a test needs it)."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(host="127.0.0.1", port=self.port, user=USER, password=PASSWORD,
                             dbname="postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while self._run(str(self.bin / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port),
                        check=False).returncode != 0:
            if time.monotonic() > deadline:
                raise RuntimeError((self.root / "log").read_text(errors="replace")[-2000:])
            time.sleep(0.2)


class PgBouncer:
    """Debian's pgbouncer in session mode in front of a PgServer, as a lab of 50 would run it: people log in
    to it with their own logins and passwords (SCRAM), and it looks their verifiers up on the server
    (auth_query, as the server's superuser), then reaches the server as them."""

    def __init__(self, server: PgServer):
        self.server = server
        self.root = Path(tempfile.mkdtemp(prefix="screenlab-pgbouncer-"))
        self.port = _free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> PgBouncer:
        binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        if not Path(binary).exists():
            raise RuntimeError("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
        (self.root / "userlist.txt").write_text(f'"{USER}" "{PASSWORD}"\n')
        (self.root / "pgbouncer.ini").write_text(f"""[databases]
* = host=127.0.0.1 port={self.server.port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = {self.root / 'userlist.txt'}
auth_user = {USER}
auth_query = SELECT usename, passwd FROM pg_shadow WHERE usename = $1
pool_mode = session
max_client_conn = 500
default_pool_size = 100
logfile = {self.root / 'pgbouncer.log'}
""")
        cmd = [binary, str(self.root / "pgbouncer.ini")]
        if self.server.as_root:
            shutil.chown(self.root, "postgres", "postgres")
            for path in self.root.iterdir():
                shutil.chown(path, "postgres", "postgres")
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = (self.root / "pgbouncer.log")
                raise RuntimeError(f"pgbouncer did not start: {self.process.stderr.read().decode(errors='replace')}"
                                   f"{log.read_text(errors='replace') if log.exists() else ''}")
            time.sleep(0.1)

    def url(self, database: str, user: str, password: str) -> str:
        return f"postgresql+psycopg://{user}:{password}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.root, ignore_errors=True)
