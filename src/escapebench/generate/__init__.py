"""Game generator (placeholder; the generator code lands here)."""

__all__: list[str] = []
