"""Helpers the original shipped for other projects (``phylanx.plugins.keras``)."""
