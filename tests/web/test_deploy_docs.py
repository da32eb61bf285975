"""docs/deploy.md as written: its systemd unit's command (the database from the environment,
as its environment file gives it) run twice on one PostgreSQL, behind its nginx site over TLS
(Debian's nginx, with the test's ports and a certificate made here). What a host copies must
run as it is on the nginx Debian and Ubuntu ship."""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from webhelpers import ROOT, free_port

DOC = (ROOT / "docs" / "deploy.md").read_text()
PASSWORD = "Sekr3t-in-the-env"


def block(lang: str) -> str:
    match = re.search(rf"```{lang}\n(.*?)```", DOC, re.S)
    assert match, f"docs/deploy.md has no {lang} block"
    return match.group(1)


def unit_command(port: int) -> list[str]:
    """The unit's ExecStart, for instance ``port``, run with this checkout's Python."""
    text = block("ini").replace("\\\n", " ")
    line = next(x for x in text.splitlines() if x.startswith("ExecStart="))
    args = shlex.split(line.partition("=")[2].replace("%i", str(port)))
    assert args[0].endswith("/stonegarden") and "--db" not in args  # the DSN is in the env
    return [sys.executable, "-m", "stonegarden", *args[1:]]


def env_file_variable() -> str:
    """The variable the documented environment file sets (``NAME=postgresql://...``)."""
    match = re.search(r"one line: (\w+)=postgresql://", DOC)
    assert match, "docs/deploy.md does not say what the environment file holds"
    return match.group(1)


def site(ports: tuple[int, int], http_port: int, cert: Path, key: Path) -> str:
    """The documented nginx site with the test's ports (``{port}``: TLS) and certificate;
    IPv6 listeners are left out (the test machine may have no IPv6)."""
    text = block("nginx")
    text = text.replace("server 127.0.0.1:8001;", f"server 127.0.0.1:{ports[0]};")
    text = text.replace("server 127.0.0.1:8002;", f"server 127.0.0.1:{ports[1]};")
    text = re.sub(r"\n\s*listen \[::\][^\n]*", "", text)
    text = text.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    text = text.replace("listen 443 ssl", "listen 127.0.0.1:{port} ssl")
    text = re.sub(r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};", text)
    text = re.sub(r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};", text)
    return text


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for games.example.org signed by itself, and its key, in ``folder``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=games.example.org", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def https(port: int, method: str, path: str, body: bytes | None = None,
          ) -> tuple[int, dict[str, str], bytes]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test's own certificate
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        conn.close()


@pytest.mark.slow
def test_the_documented_unit_and_site_serve_two_processes_over_tls(tmp_path, pg_database,
                                                                     nginx_factory):
    cert, key = self_signed(tmp_path)
    ports = (free_port(), free_port())
    dsn = pg_database.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env[env_file_variable()] = dsn
    procs = []
    try:
        for port in ports:
            with (tmp_path / f"{port}.log").open("wb") as log:
                procs.append(subprocess.Popen(unit_command(port), env=env, cwd=tmp_path,
                                              stdout=subprocess.DEVNULL, stderr=log))
        for port in ports:
            wait_for(f"http://127.0.0.1:{port}/api/meta")
        for proc in procs:  # the password is in no process's arguments
            assert PASSWORD not in Path(f"/proc/{proc.pid}/cmdline").read_text()
        plain = free_port()
        proxy = nginx_factory(site(ports, plain, cert, key))
        conn = http.client.HTTPConnection("127.0.0.1", plain, timeout=30)
        conn.request("GET", "/stonegarden/", headers={"Host": "games.example.org"})
        answer = conn.getresponse()
        assert answer.status == 301  # plain HTTP is sent to HTTPS
        assert answer.getheader("Location") == "https://games.example.org/stonegarden/"
        conn.close()
        status, _, home = https(proxy.port, "GET", "/stonegarden/")
        assert status == 200 and b'data-base="/stonegarden"' in home
        status, _, text = https(proxy.port, "POST", "/stonegarden/api/games", json.dumps(
            {"game": "blooms", "params": {"size": 3}, "seats": ["human", "open"]}).encode())
        assert status == 201, text
        made = json.loads(text)
        assert made["links"]["1"].startswith("https://games.example.org/stonegarden/game/")
        # each request may go to either process: the game is read from the shared database
        for _ in range(4):
            status, _, text = https(proxy.port, "GET", f"/stonegarden/api/games/{made['id']}")
            assert status == 200 and json.loads(text)["open"] == 2
        status, headers, text = https(proxy.port, "POST", "/stonegarden/api/records",
                                      b"x" * (3 << 20))
        assert status == 413 and "error" in json.loads(text)  # nginx's answer, in JSON too
        assert headers.get("Strict-Transport-Security", "").startswith("max-age=")
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def wait_for(url: str, seconds: float = 120) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError, http.client.HTTPException):
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


def test_the_documented_backup_and_restore_work_as_written(postgres, tmp_path):
    """The PostgreSQL backup commands of docs/deploy.md, run from a directory of the admin's
    that the ``postgres`` user cannot read (a home directory on Debian 12 is private)."""
    import psycopg

    from stonegarden.store import NewGame, open_store

    text = DOC.split("**Backups**", 1)[1].split("A SQLite file", 1)[0]
    commands = [" ".join(c.split()) for c in re.findall(r"`(sudo -u postgres [^`]*)`", text)]
    assert [c.split()[3] for c in commands] == ["pg_dump", "createdb", "pg_restore"], commands
    as_postgres = "runuser -u postgres -- " if os.geteuid() == 0 else ""
    with psycopg.connect(postgres.dsn, autocommit=True) as con:
        if not con.execute("SELECT 1 FROM pg_roles WHERE rolname = 'stonegarden'").fetchone():
            con.execute("CREATE ROLE stonegarden LOGIN")
        for name in ("stonegarden", "stonegarden2"):
            con.execute(f"DROP DATABASE IF EXISTS {name}")
        con.execute("CREATE DATABASE stonegarden OWNER stonegarden")
    dsn = f"postgresql://stonegarden@127.0.0.1:{postgres.port}/"
    store = open_store(dsn + "stonegarden")
    store.create_game(NewGame("g1", "freego", {"size": 5}, ("human", "human"), ("k1", "k2"),
                              listed=False, names=("Ann", "Bo"), to_move=1))
    store.append_move("g1", 0, "C3", None, to_move=2)
    store.close()
    (tmp_path / "admin").mkdir(mode=0o700)
    env = {**os.environ, "PGHOST": "127.0.0.1", "PGPORT": str(postgres.port), "PGUSER": "postgres"}
    for command in commands:
        line = command.replace("sudo -u postgres ", as_postgres + str(postgres.bin) + "/")
        done = subprocess.run(line, shell=True, cwd=tmp_path / "admin", env=env, text=True,
                              capture_output=True, timeout=60)
        assert done.returncode == 0, (command, done.stderr)
    restored = open_store(dsn + "stonegarden2")
    try:
        assert restored.get("g1").moves == ("C3",)
        restored.append_move("g1", 1, "D4", None, to_move=1)  # its owner writes to it
    finally:
        restored.close()


def _package(root: Path, text: str, deps: tuple[str, ...] = ()) -> None:
    """A one-module package ``dum`` (``dum.X == text``), version 0.1.0 whatever its code, as
    stonegarden's is from one commit to the next, with a ``postgresql`` extra."""
    (root / "dum").mkdir(parents=True, exist_ok=True)
    (root / "dum" / "__init__.py").write_text(f"X = {text!r}\n")
    listed = ", ".join(f'"{d}"' for d in deps)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "dum"\nversion = "0.1.0"\ndependencies = [{listed}]\n'
        '[project.optional-dependencies]\npostgresql = []\n'
        '[tool.setuptools]\npackages = ["dum"]\n')


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_documented_upgrade_installs_the_new_code_and_its_new_dependency(tmp_path):
    """docs/deploy.md's upgrade lines, with a stand-in package served from a git URL whose
    version number does not change between commits (``pip install -U`` kept the old code)."""
    text = DOC.split("**Upgrading**", 1)[1].split("## 2.", 1)[0]
    steps = re.search(r"```\n(.*?)```", text, re.S)
    assert steps, "docs/deploy.md gives no upgrade commands"
    pips = [line for line in steps.group(1).splitlines() if "/venv/bin/pip " in line]
    assert len(pips) == 2, pips
    install = next(line for line in DOC.split("## 1. Install", 1)[1].splitlines()
                   if "/venv/bin/pip install" in line)
    venv = tmp_path / "venv"
    # this Python's pip and setuptools install and build the stand-in: nothing is fetched
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=120)
    repo, dep = tmp_path / "repo", tmp_path / "dumdep"
    _package(repo, "old")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "old"], check=True)
    (dep / "dumdep").mkdir(parents=True)
    (dep / "dumdep" / "__init__.py").write_text("")
    (dep / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "dumdep"\nversion = "1.0"\n[tool.setuptools]\npackages = ["dumdep"]\n')

    def run(line: str) -> None:
        line = line.replace("sudo -u stonegarden ", "").replace(
            "/srv/stonegarden/venv/bin/pip", f"{venv}/bin/python -m pip")
        line = line.replace("stonegarden", "dum").replace(
            "git+https://github.com/OWNER/dum", f"git+file://localhost{repo}")
        done = subprocess.run(f"{line} --no-build-isolation --no-index -q", shell=True,
                              text=True, capture_output=True, timeout=300)
        assert done.returncode == 0, (line, done.stderr)

    def installed() -> str:
        return subprocess.run([str(venv / "bin" / "python"), "-c",
                               "import dum; print(dum.X)"], capture_output=True, text=True,
                              cwd=tmp_path).stdout.strip()

    run(install)
    assert installed() == "old"
    _package(repo, "new", deps=(f"dumdep @ file://localhost{dep}",))
    subprocess.run([*git, "commit", "-qam", "new"], check=True)
    for line in pips:
        run(line)
    assert installed() == "new"
    found = subprocess.run([str(venv / "bin" / "python"), "-c", "import dumdep"],
                           capture_output=True, cwd=tmp_path)
    assert found.returncode == 0, found.stderr


def test_the_documented_sqlite_backup_and_restore_work_as_written(tmp_path):
    """docs/deploy.md's SQLite backup, then a change that a killed server left in the WAL
    journal, then its restore: the file holds what the backup held."""
    from stonegarden.store import NewGame, open_store

    text = DOC.split("A SQLite file is backed up", 1)[1].split("## 3.", 1)[0]
    backup, restore = (" ".join(c.split()) for c in re.findall(r"`(sqlite3 [^`]*)`", text))
    assert ".backup" in backup and ".restore" in restore
    db = tmp_path / "games.db"
    open_store(db).create_game(NewGame("g1", "freego", {"size": 5}, ("human", "human"),
                                       ("k1", "k2"), listed=False, names=("Ann", "Bo"),
                                       to_move=1))
    done = subprocess.run(backup, shell=True, cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    changed = ("import os, sqlite3\n"
               "con = sqlite3.connect('games.db', isolation_level=None)\n"
               "con.execute('PRAGMA wal_autocheckpoint=0')\n"
               "con.execute(\"UPDATE games SET name1 = 'Later' WHERE id = 'g1'\")\n"
               "os._exit(0)\n")  # killed: the change is in the journal only
    subprocess.run([sys.executable, "-c", changed], cwd=tmp_path, check=True, timeout=60)
    assert (tmp_path / "games.db-wal").stat().st_size > 0
    done = subprocess.run(restore, shell=True, cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    row = open_store(db).get("g1")
    assert row is not None and row.names == ("Ann", "Bo")


def test_the_documented_caddy_site_serves_the_prefix_and_live_updates(tmp_path,
                                                                        caddy_factory):
    """docs/deploy.md's Caddy site (Debian's caddy, plain HTTP on the test's port, one
    upstream): the public URL without its last ``/`` is sent to the home page (it was an
    empty page), and a page's stream hears a move at once."""
    from sse import Events
    from webhelpers import Server, first_legal

    text = DOC.split("A Caddy equivalent", 1)[1]
    site = re.search(r"```\n(.*?)```", text, re.S)
    assert site, "docs/deploy.md gives no Caddy site"
    app_port = free_port()
    site_text = site.group(1).replace("games.example.org {", "http://127.0.0.1:{port} {")
    site_text = site_text.replace("127.0.0.1:8001 127.0.0.1:8002", f"127.0.0.1:{app_port}")
    proxy = caddy_factory(site_text)
    base = f"{proxy.url}/stonegarden"
    server = Server(tmp_path / "games.db", app_port, "--public-url", base,
                    "--forwarded-allow-ips", "127.0.0.1").start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
        conn.request("GET", "/stonegarden")
        answer = conn.getresponse()
        answer.read()
        assert answer.status in (301, 308), answer.status
        assert answer.getheader("Location", "").endswith("/stonegarden/")
        conn.request("GET", "/stonegarden/")
        answer = conn.getresponse()
        assert answer.status == 200 and b'data-base="/stonegarden"' in answer.read()
        conn.close()
        small = {"size": 2, "target": 2}
        body = json.dumps({"game": "blooms", "params": small, "seats": ["human", "human"]})
        request = urllib.request.Request(base + "/api/games", body.encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as r:
            made = json.loads(r.read())
        assert made["links"]["1"].startswith(f"{base}/game/")
        events = Events(proxy.port, f"/stonegarden/api/games/{made['id']}/events")
        try:
            first = events.update()
            move = json.dumps({"secret": made["secrets"]["1"],
                               "move": first_legal("blooms", small, []), "ply": 0})
            request = urllib.request.Request(f"{base}/api/games/{made['id']}/move",
                                             move.encode(), {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as r:
                assert r.status == 200
            assert events.update(timeout=10) > first
        finally:
            events.close()
    finally:
        server.stop()


@pytest.mark.slow
def test_the_documented_site_bounds_one_address_requests(tmp_path, nginx_factory):
    """One address flooding the documented site is answered 429, in JSON with
    ``Retry-After``, by nginx (the server never sees those requests), and is served again a
    moment later."""
    from webhelpers import Server

    cert, key = self_signed(tmp_path)
    server = Server(tmp_path / "games.db", None, "--public-url",
                    "https://games.example.org/stonegarden").start()
    try:
        proxy = nginx_factory(site((server.port, server.port), free_port(), cert, key))
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection("127.0.0.1", proxy.port, timeout=30, context=context)
        answers = []
        for _ in range(400):  # one kept-alive connection: far faster than 20 a second
            conn.request("GET", "/stonegarden/static/favicon.svg")
            r = conn.getresponse()
            answers.append((r.status, r.getheader("Retry-After"), r.read()))
            # every answer over TLS says to keep to it (HSTS), nginx's own refusals too
            assert r.getheader("Strict-Transport-Security", "").startswith("max-age="), r.status
        statuses = [s for s, _, _ in answers]
        assert statuses[:200] == [200] * 200  # the burst a page's first load needs
        refused = [a for a in answers if a[0] == 429]
        assert len(refused) > 100 and set(statuses) == {200, 429}
        assert refused[0][1] == "1" and "too many requests" in json.loads(refused[0][2])["error"]
        time.sleep(0.5)
        conn.request("GET", "/stonegarden/api/meta")
        r = conn.getresponse()
        assert r.status == 200 and "games" in json.loads(r.read())
        conn.close()
    finally:
        server.stop()


class BrokenProcess:
    """A server process whose connection breaks under the proxy: it reads a request, then
    closes the connection without an answer, as a process that stops (closing its idle
    connections) or is killed does. ``after`` (a real server's URL): the request is first
    served there, as by a process killed after it stored the move and before it answered."""

    def __init__(self, after: str | None = None) -> None:
        import socket
        import threading

        self.after = after
        self.requests = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            with conn:
                head = b""
                while b"\r\n\r\n" not in head and (chunk := conn.recv(65536)):
                    head += chunk
                if not head:
                    continue  # a connection nginx opened and closed
                head, _, body = head.partition(b"\r\n\r\n")
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
                while len(body) < length:
                    body += conn.recv(65536)
                self.requests += 1
                if self.after:
                    path = head.split(b" ")[1].decode().removeprefix("/stonegarden")
                    request = urllib.request.Request(self.after + path, body,
                                                     {"Content-Type": "application/json"})
                    urllib.request.urlopen(request, timeout=30).read()

    def close(self) -> None:
        self.sock.close()


@pytest.mark.slow
@pytest.mark.parametrize("stored", [False, True], ids=["before-storing", "after-storing"])
def test_the_documented_site_plays_a_move_whose_process_broke_the_connection_once(
        tmp_path, nginx_factory, stored):
    """A move sent on a connection the process closes at that moment (one restarting closes
    its idle connections; one killed, its busy ones) was answered 502 by nginx, which sends
    no POST again: the player's page said it could not reach the server. The documented site
    sends a move on to the next process, which plays it, or, when the broken one had stored
    it, answers it as the first time (a move names its ply): played once, answered 200."""
    from webhelpers import Server, first_legal

    cert, key = self_signed(tmp_path)
    server = Server(tmp_path / "games.db", None, "--public-url",
                    "https://games.example.org/stonegarden").start()
    broken = BrokenProcess(server.url if stored else None)
    try:
        proxy = nginx_factory(site((broken.port, server.port), free_port(), cert, key))
        small = {"size": 2, "target": 2}
        status, made = server.request("POST", "/api/games", {
            "game": "blooms", "params": small, "seats": ["human", "human"]})
        assert status == 201, made
        line: list[str] = []
        for ply in range(2):  # nginx takes turns: one of them goes to the broken process first
            line.append(first_legal("blooms", small, line))
            status, _, text = https(proxy.port, "POST",
                                    f"/stonegarden/api/games/{made['id']}/move", json.dumps(
                                        {"secret": made["secrets"][str(ply + 1)],
                                         "move": line[-1], "ply": ply}).encode())
            assert status == 200, text
            assert [m["text"] for m in json.loads(text)["moves"]] == line
        assert broken.requests == 1
        status, snap = server.request("GET", f"/api/games/{made['id']}")
        assert [m["text"] for m in snap["moves"]] == line
    finally:
        broken.close()
        server.stop()
