"""Terminal front end: coloured diagrams (rich) and the interactive play loop."""
