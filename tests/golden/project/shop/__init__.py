"""A small shop backend used by the golden ranking tests."""
