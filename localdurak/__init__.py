"""Local Durak: the card game Durak for friends on a local network."""

__version__ = "0.1.0"
