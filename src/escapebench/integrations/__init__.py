"""Integrations with other evaluation frameworks (optional extras).

* :mod:`.inspect`: the Inspect AI task ``escapebench/escapebench`` (extra ``inspect``).
"""
