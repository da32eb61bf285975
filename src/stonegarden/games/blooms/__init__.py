"""Blooms: both rule sets (``blooms``, ``blooms-territory``), and the reader of Abstract Play's
records of them (``ap_record``)."""

from . import ap_record as _ap_record  # noqa: F401  (registers the Abstract Play reader)
