"""The one error a request can be refused with: which field, and why, in one message every door shows as it is."""

from __future__ import annotations


class InvalidRequestError(ValueError):
    """A request that cannot be answered as written. `field` is the offending field's wire name (dotted for nested
    ones: `position.line`); the message names it too, so a door can show the message alone. The language server
    answers it as JSON-RPC -32602, batch as `{"error": ...}`, the CLI on stderr (exit code 2), MCP as a tool error."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"'{field}' {problem}")


class UnavailableError(RuntimeError):
    """A well-formed request that cannot be answered now (no workspace folder is open). The language server answers
    it as JSON-RPC -32803 (RequestFailed); the other doors as they answer an InvalidRequestError."""
