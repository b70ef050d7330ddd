"""Real loopback mail and calendar servers for the mail tests: Dovecot, aiosmtpd, Radicale.

Dovecot (Debian's ``dovecot-imapd``, installed by scripts/bootstrap.sh) runs
unprivileged on a free high port with one passwd-file user; as root it is
started through ``setpriv`` as the user ``dovetest`` (created when missing),
because Dovecot will not serve mail for uid 0 and ``setpriv`` execs, so
SIGTERM reaches the master (``runuser`` left it running). aiosmtpd runs in
this process and delivers each message into that mailbox by IMAP APPEND, so a
sent mail can be read back. Radicale (GPL, tests only) runs as a child
process. Every server is stopped by its pid. See shared/LIBRARIES.md §3.

A wrong password is answered at once (Dovecot's ``auth_failure_delay = 0``,
Radicale's ``--auth-delay 0``): the tests check refusals, not the back-off,
and the default delays cost seconds per failed login. Nothing here is shared
between processes but the ``dovetest`` user, so each pytest-xdist worker
starts its own servers on ports of its own.
"""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

USER = "alice@example.test"
PASSWORD = "s3cret"
USER2 = "bob@example.test"  # a second account on the same servers (tests that choose the account)
PASSWORD2 = "b0b-s3cret"
USERS = {USER: PASSWORD, USER2: PASSWORD2}
RUN_USER = "dovetest"
DOVECOT = "/usr/sbin/dovecot"

DOVECOT_CONF = """\
base_dir = {dir}/run
state_dir = {dir}/state
log_path = {dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {dir}/users
}}
userdb {{
  driver = static
  args = uid={user} gid={group} home={dir}/home/%u
}}
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  mailbox Sent {{
    special_use = \\Sent
    auto = subscribe
  }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, deadline_s: float = 15.0) -> None:
    """Poll until a real external process listens on ``port`` (allowed: it is a process starting)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listened on port {port} within {deadline_s} s")


def stop(proc: subprocess.Popen, port: int | None = None) -> None:
    """SIGTERM by pid, then wait for it (and for the port to close: imap-login lingers ~1 s)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    if port is not None:
        end = time.monotonic() + 5
        while time.monotonic() < end:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    pass
            except OSError:
                return
            time.sleep(0.05)


def dovecot_unavailable() -> str | None:
    """Why Dovecot cannot run here, or None (as root it drops to RUN_USER; otherwise it runs as us)."""
    if not os.path.exists(DOVECOT):
        return "Dovecot is not installed (scripts/bootstrap.sh test installs dovecot-imapd)"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "running as root without setpriv to drop to an unprivileged user for Dovecot"
    return None


@dataclass
class Dovecot:
    """Dovecot on 127.0.0.1:port with the users USER / PASSWORD and USER2 / PASSWORD2."""

    dir: Path
    port: int
    proc: subprocess.Popen

    def imap(self, user: str = USER) -> imaplib.IMAP4:
        conn = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        conn.login(user, USERS[user])
        return conn

    def count(self, folder: str, message_id: str | None = None, user: str = USER) -> int:
        """How many messages ``folder`` of ``user``'s mailbox holds (with that Message-ID, when given)."""
        conn = self.imap(user)
        try:
            conn.select(folder, readonly=True)
            if message_id is None:
                _, data = conn.uid("SEARCH", "ALL")
            else:
                _, data = conn.uid("SEARCH", "HEADER", "Message-ID", f'"{message_id}"')
            return len((data[0] or b"").split())
        finally:
            conn.logout()

    def append(self, folder: str, raw: bytes) -> None:
        conn = self.imap()
        try:
            conn.append(folder, None, None, raw)
        finally:
            conn.logout()


def start_dovecot() -> Dovecot:
    as_root = os.geteuid() == 0
    if as_root:
        try:
            pwd.getpwnam(RUN_USER)
        except KeyError:  # another xdist worker may create it at the same moment: exit 9 is "exists"
            made = subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", RUN_USER], check=False)
            if made.returncode not in (0, 9):
                raise RuntimeError(f"useradd {RUN_USER} failed with {made.returncode}")
        user = group = RUN_USER
    else:
        user = pwd.getpwuid(os.getuid()).pw_name
        group = user
    base = Path(tempfile.mkdtemp(prefix="agentdesk-dovecot-"))
    port = free_port()
    for sub in ("run", "state", "home"):
        (base / sub).mkdir()
    (base / "users").write_text("".join(f"{u}:{{PLAIN}}{p}\n" for u, p in USERS.items()))
    (base / "dovecot.conf").write_text(DOVECOT_CONF.format(dir=base, user=user, group=group, port=port))
    if as_root:
        shutil.chown(base, RUN_USER, RUN_USER)
        for path in base.rglob("*"):
            shutil.chown(path, RUN_USER, RUN_USER)
        cmd = ["setpriv", f"--reuid={RUN_USER}", f"--regid={RUN_USER}", "--clear-groups",
               DOVECOT, "-F", "-c", str(base / "dovecot.conf")]
    else:
        cmd = [DOVECOT, "-F", "-c", str(base / "dovecot.conf")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, proc)
    return Dovecot(base, port, proc)


def stop_dovecot(server: Dovecot) -> None:
    stop(server.proc, server.port)
    shutil.rmtree(server.dir, ignore_errors=True)


@dataclass
class Smtp:
    """aiosmtpd in this process; ``cut`` decides, per message, to drop the connection
    ("before": at RCPT, nothing delivered; "after": delivered, then dropped before the 250);
    ``refuse`` answers RCPT for the recipients it names with the text it gives."""

    port: int
    controller: object
    received: list[bytes] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)  # consumed one per attempt, "" = behave
    refuse: dict[str, str] = field(default_factory=dict)  # recipient -> the server's refusal ("550 ...")
    auth_fails: bool = False


def start_smtp(dovecot: Dovecot) -> Smtp:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    port = free_port()
    smtp = Smtp(port, None)

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
            if smtp.cut and smtp.cut[0] == "before":
                smtp.cut.pop(0)
                server.transport.close()
                return "421 cut"
            if address in smtp.refuse:
                return smtp.refuse[address]
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):  # noqa: N802
            raw = envelope.original_content or envelope.content
            smtp.received.append(raw)
            dovecot.append("INBOX", raw)
            if smtp.cut and smtp.cut[0] == "after":
                smtp.cut.pop(0)
                server.transport.close()
            return "250 OK queued"

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (not smtp.auth_fails and USERS.get(auth_data.login.decode()) == auth_data.password.decode())
        return AuthResult(success=ok, handled=False)  # handled=False: aiosmtpd itself answers 535

    controller = Controller(Handler(), hostname="127.0.0.1", port=port, authenticator=authenticate,
                            auth_require_tls=False, auth_required=True)
    controller.start()
    smtp.controller = controller
    return smtp


def stop_smtp(smtp: Smtp) -> None:
    smtp.controller.stop()  # type: ignore[attr-defined]


@dataclass
class Radicale:
    dir: Path
    port: int
    proc: subprocess.Popen

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


def start_radicale() -> Radicale:
    base = Path(tempfile.mkdtemp(prefix="agentdesk-radicale-"))
    (base / "users").write_text("".join(f"{u}:{p}\n" for u, p in USERS.items()))
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "radicale", "--server-hosts", f"127.0.0.1:{port}",
         "--storage-filesystem-folder", str(base / "collections"), "--auth-type", "htpasswd",
         "--auth-htpasswd-filename", str(base / "users"), "--auth-htpasswd-encryption", "plain",
         "--auth-delay", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port, proc)
    return Radicale(base, port, proc)


def stop_radicale(server: Radicale) -> None:
    stop(server.proc)
    shutil.rmtree(server.dir, ignore_errors=True)

