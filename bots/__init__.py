"""The bundled bots; each runs as ``python -m bots.NAME``."""
