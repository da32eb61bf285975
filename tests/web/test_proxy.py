"""The server behind a real nginx (Debian's package, started and stopped here), configured as
docs/deploy.md describes: pages, the API and live updates through the proxy under a path
prefix, with ``--public-url`` links, whether nginx passes the prefix on or strips it; and the
client address from ``X-Forwarded-For`` believed only from ``--forwarded-allow-ips``."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from sse import Events
from webhelpers import Server, first_legal, free_port

SMALL = {"size": 2, "target": 2}

#: the location block of docs/deploy.md, with the test's ports; ``{upstream}`` is
#: ``http://127.0.0.1:PORT`` (prefix passed on) or ``http://127.0.0.1:PORT/`` (stripped)
LOCATION = """
server {{
    listen 127.0.0.1:{{port}};
    location /sg/ {{
        proxy_pass {upstream};
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header Connection "";
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_read_timeout 1h;
        client_max_body_size 2m;
    }}
}}
"""


@pytest.fixture(params=["passed", "stripped"])
def deployed(request, tmp_path: Path, nginx_factory) -> Iterator[tuple[Server, object]]:
    """A server behind nginx at /sg/, whose public URL is nginx's."""
    from services import Nginx

    # nginx's port must be known before the server starts (it is in the public URL)
    app_port = free_port()
    upstream = f"http://127.0.0.1:{app_port}" + ("/" if request.param == "stripped" else "")
    body = LOCATION.format(upstream=upstream)
    proxy: Nginx = nginx_factory(body)
    server = Server(tmp_path / "games.db", app_port,
                    "--public-url", f"{proxy.url}/sg", "--forwarded-allow-ips", "127.0.0.1")
    server.start()
    yield server, proxy
    server.stop()


def fetch(url: str, body: object = None, source: str = "127.0.0.1") -> tuple[int, str]:
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30,
                                      source_address=(source, 0))
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request("GET" if body is None else "POST",
                     parts.path + (f"?{parts.query}" if parts.query else ""), body=data,
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def test_pages_api_and_live_updates_through_nginx_under_a_prefix(deployed):
    _server, proxy = deployed
    base = f"{proxy.url}/sg"
    status, home = fetch(base + "/")
    assert status == 200 and 'src="/sg/static/home.js"' in home and 'data-base="/sg"' in home
    for path in ("/static/common.js", "/static/style.css", "/lobby", "/my-games", "/rules"):
        assert fetch(base + path)[0] == 200, path
    status, text = fetch(base + "/api/games", {"game": "blooms", "params": SMALL,
                                                "seats": ["human", "open"], "public": True,
                                                "name": "Ana"})
    assert status == 201, text
    made = json.loads(text)
    gid = made["id"]
    assert made["links"]["1"].startswith(f"{base}/game/{gid}#key=")
    lobby = json.loads(fetch(base + "/api/lobby")[1])["games"]
    assert lobby[0]["link"] == f"{base}/game/{gid}" and lobby[0]["creator"] == "Ana"
    # the link a friend is sent opens through the proxy
    assert fetch(made["links"]["spectator"])[0] == 200
    # live: a page's stream through nginx hears a join and a move at once (no buffering)
    events = Events(proxy.port, f"/sg/api/games/{gid}/events")
    try:
        first = events.update()
        status, text = fetch(f"{base}/api/games/{gid}/join", {"name": "Bo"})
        assert status == 201, text
        joined = json.loads(text)
        assert joined["link"].startswith(f"{base}/game/{gid}#key=")
        assert events.update(timeout=10) > first
        move = first_legal("blooms", SMALL, [])
        status, text = fetch(f"{base}/api/games/{gid}/move",
                             {"secret": made["secrets"]["1"], "move": move, "ply": 0})
        assert status == 200, text
        events.update(timeout=10)
    finally:
        events.close()
    snap = json.loads(fetch(f"{base}/api/games/{gid}")[1])
    assert [m["text"] for m in snap["moves"]] == [move]
    # the lobby's own stream through the proxy too
    lobby_events = Events(proxy.port, "/sg/api/lobby/events")
    try:
        lobby_events.update()
        fetch(base + "/api/games", {"game": "blooms", "params": SMALL,
                                    "seats": ["open", "human"], "public": True})
        lobby_events.update(timeout=10)
    finally:
        lobby_events.close()


def test_the_client_address_comes_from_the_trusted_proxy_only(deployed):
    server, proxy = deployed
    # through nginx from 127.0.0.5: nginx (127.0.0.1, trusted) says who the client is
    meta = json.loads(fetch(f"{proxy.url}/sg/api/meta", source="127.0.0.5")[1])
    assert meta["client"] == "127.0.0.5"
    # a client cannot pass itself off as another by sending the header through the proxy
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", proxy.port, source_address=("127.0.0.6", 0))
    conn.request("GET", "/sg/api/meta", headers={"X-Forwarded-For": "203.0.113.9"})
    assert json.loads(conn.getresponse().read())["client"] == "127.0.0.6"
    conn.close()
    # straight to the server from an untrusted address: its header is ignored
    conn = http.client.HTTPConnection("127.0.0.1", server.port, source_address=("127.0.0.7", 0))
    conn.request("GET", "/api/meta", headers={"X-Forwarded-For": "203.0.113.9"})
    assert json.loads(conn.getresponse().read())["client"] == "127.0.0.7"
    conn.close()


def test_a_loopback_server_refuses_a_host_it_is_not_published_as(deployed):
    server, _ = deployed
    req = urllib.request.Request(f"{server.url}/api/meta", headers={"Host": "evil.example"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400


def test_a_connection_a_proxy_keeps_idle_is_not_closed_under_it(server):
    """nginx keeps an idle connection to the server for 60 s (its upstream
    ``keepalive_timeout``) and sends the next request on it. Had the server closed it at 5 s
    (uvicorn's default), a request nginx sent as it closed failed: a move (a POST, which nginx
    does not send again) was answered 502."""
    import http.client
    import time

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for pause in (0.0, 6.0):
            time.sleep(pause)
            conn.request("GET", "/api/meta")
            answer = conn.getresponse()
            assert answer.status == 200 and answer.getheader("Connection") != "close"
            answer.read()
            assert conn.sock is not None  # the same connection, not a new one
    finally:
        conn.close()


def test_a_request_giving_its_length_twice_is_refused_and_its_connection_closed(server):
    """``Transfer-Encoding: chunked`` with a ``Content-Length``: the server read the body as
    chunked and answered what followed it on the connection as a request of its own, which a
    proxy going by the ``Content-Length`` took for the body (a request smuggled past it)."""
    import socket

    smuggled = b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    head = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {5 + len(smuggled)}\r\nTransfer-Encoding: chunked\r\n\r\n")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head.encode() + b"0\r\n\r\n" + smuggled)
        answer = b""
        while chunk := sock.recv(65536):  # to the end: the server closes the connection
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 ") and answer.count(b"HTTP/1.1 ") == 1
    assert b"Transfer-Encoding and Content-Length together are refused" in answer
