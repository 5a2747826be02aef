"""Maguyva LSP: intent-routed code search over semantic, text, structural and graph retrievers."""

__version__ = "0.1.0"
