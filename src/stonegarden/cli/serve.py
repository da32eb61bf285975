"""``stonegarden serve``: the local web app (docs/web.md)."""

from __future__ import annotations

import threading
import webbrowser

import click


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to listen on (127.0.0.1 keeps it to this machine)")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite file of stored games [default: ~/.local/share/stonegarden/games.db]")
@click.option("--open", "open_browser", is_flag=True, help="open the home page in a browser")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64),
              help="worker processes the agents think in")
@click.option("--ai-timeout", default=120.0, show_default=True, type=click.FloatRange(0.1),
              help="seconds an agent may think before it is paused")
@click.option("--hint-agent", default=None, help="agent spec for hints [default: strongest]")
def serve(host: str, port: int, db_path: str | None, open_browser: bool, workers: int,
          ai_timeout: float, hint_agent: str | None) -> None:
    """Start the web app: play, study and review games in the browser."""
    import uvicorn

    from ..web.app import create_app
    from ..web.storage import default_db_path

    path = db_path or str(default_db_path())
    # bound to loopback, only loopback names may reach it (no DNS-rebinding from web pages)
    loopback = host in ("127.0.0.1", "localhost", "::1")
    hosts = ["127.0.0.1", "localhost", "[::1]", "::1"] if loopback else None
    app = create_app(path, workers=workers, ai_timeout=ai_timeout, hint_spec=hint_agent,
                     allowed_hosts=hosts)
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    click.echo(f"stonegarden: serving {url} (games stored in {path}); Ctrl-C stops")
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
