"""The Python runner inspection half (comes with the runner)."""
