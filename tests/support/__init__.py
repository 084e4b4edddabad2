"""Test support code shared by the test suites of all areas (fake model server, ...)."""
