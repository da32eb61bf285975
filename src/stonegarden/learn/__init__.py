"""Learned knowledge: move models fitted on our own self-play (``stonegarden train``) that
the search reads as move priors."""
