"""A PostgreSQL cluster of a test's own (initdb + pg_ctl in a temporary directory).

Tests that stop or restart PostgreSQL use this, never the machine's shared server: the cluster
listens on a free port of 127.0.0.1 with trust authentication for ``postgres`` and is removed
afterwards. As root, its commands run as the ``postgres`` user (PostgreSQL refuses root).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_serve import free_port


def _binary(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class PrivateCluster:
    """One cluster: ``start``, ``stop``, ``restart``; ``url(db)`` to reach a database."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.log = root / "postgres.log"
        initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            if os.environ.get("CI"):
                raise RuntimeError("CI needs PostgreSQL's initdb and pg_ctl")
            pytest.skip("PostgreSQL's initdb and pg_ctl are not installed")
        self.initdb, self.pg_ctl = initdb, pg_ctl

    def _run(self, *args: str) -> None:
        command = list(args)
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        """A new cluster owned by the user that will run it."""
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
        self._run(self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root}"
        self._run(
            self.pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start"
        )

    def stop(self) -> None:
        """Stop at once (``fast``: sessions are ended, as when the server is restarted)."""
        self._run(self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        """A URL for ``database`` on this cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"


@contextmanager
def private_cluster() -> Iterator[PrivateCluster]:
    """A started private cluster, stopped and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="basra-pg-"))
    cluster = PrivateCluster(root)
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
