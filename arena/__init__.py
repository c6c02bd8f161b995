"""The Uptown arena: rules engine, bots, referee, records and tournaments for Uptown / Blockers!."""

__version__ = "0.1.0"
