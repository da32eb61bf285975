"""The web app (``stonegarden serve``): see docs/web.md and :func:`stonegarden.web.app.create_app`."""
