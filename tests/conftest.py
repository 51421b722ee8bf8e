"""Test-suite wide settings. Helpers for tests live in `karplint.testing` (importable from any test directory)."""
