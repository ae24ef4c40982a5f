"""pi-context: see and control what a coding agent sends to the model."""

__version__ = "0.1.0"
