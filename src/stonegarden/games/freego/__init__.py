"""Free Go: capture-N Go with suicide allowed (spec/freego.md)."""
