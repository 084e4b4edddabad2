"""Game generator (placeholder; the generator code lands here)."""
