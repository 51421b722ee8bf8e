"""karplint: a static linter for Karpenter configuration."""

__version__ = "0.1.0"
