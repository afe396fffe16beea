"""A real IMAP server for the exchange mailbox tests: Debian's dovecot (dovecot-imapd, in the Makefile's
TEST_DEBS), started in the foreground with a throwaway configuration (its own folders, one user, plain login on
127.0.0.1 and a free port) and stopped after the test; messages arrive by IMAP APPEND, as a delivery agent
would put them."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.processes import free_port

DOVECOT = shutil.which("dovecot") or "/usr/sbin/dovecot"
USER, PASSWORD = "intercambio", "clave-de-prueba"

_CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
info_log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 0
first_valid_gid = 0
mail_location = maildir:{mail}/%u
passdb {{
  driver = passwd-file
  args = {root}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={mail}/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service auth {{
  user = root
}}
service auth-worker {{
  user = root
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0600
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
"""


class Dovecot:
    def __init__(self, root: Path):
        self.root = root
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.mail: Path | None = None

    @property
    def url(self) -> str:
        return f"imap://{USER}:{PASSWORD}@127.0.0.1:{self.port}/INBOX"

    def start(self) -> Dovecot:
        for folder in ("run", "state"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        (self.root / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
        # Dovecot never stores mail as root: as root, the mail belongs to its own unprivileged user, in a folder
        # of /tmp that user can reach (the test's tmp_path is root's alone).
        uid, gid = os.getuid(), os.getgid()
        self.mail = Path(tempfile.mkdtemp(prefix="cfe-imap-"))
        if uid == 0:
            account = pwd.getpwnam("dovecot")
            uid, gid = account.pw_uid, account.pw_gid
            os.chown(self.mail, uid, gid)
        config = self.root / "dovecot.conf"
        config.write_text(_CONFIG.format(root=self.root, mail=self.mail, port=self.port, uid=uid, gid=gid))
        self.process = subprocess.Popen(  # noqa: S603
            [DOVECOT, "-F", "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as probe:
                    if probe.recv(100).startswith(b"* OK"):
                        return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        log = (self.root / "dovecot.log").read_text() if (self.root / "dovecot.log").exists() else ""
        self.stop()
        raise RuntimeError(f"dovecot did not start: {log[-2000:]}")

    def append(self, message: bytes, folder: str = "INBOX") -> None:
        from imapclient import IMAPClient

        with IMAPClient("127.0.0.1", port=self.port, ssl=False, timeout=10) as client:
            client.login(USER, PASSWORD)
            client.append(folder, message)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.mail is not None:
            shutil.rmtree(self.mail, ignore_errors=True)
