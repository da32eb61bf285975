"""Free Go: capture-N Go with suicide allowed (docs/games/freego.md)."""
