"""The web app (``stonegarden serve``): see docs/web.md and ``web.app.create_app``."""
