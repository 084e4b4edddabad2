"""escapebench.bench: the benchmark harness.

* :mod:`.hints`: the hint system of the paper (:class:`~.hints.HintPolicy`), shared with
  human play;
* :mod:`.metrics`: per-episode metrics (:class:`~.metrics.EpisodeResult`), Table-3
  aggregation and the CSV / Markdown result files;
* :mod:`.episode`: one episode with its crash-safe step log and exact resume;
* :mod:`.runner`: a suite of episodes played concurrently into a result folder;
* :mod:`.display`: the live progress display;
* :mod:`.command_run`, :mod:`.command_merge`: ``escapebench run`` and ``escapebench merge``.

Submodules are imported where used, so that importing one does not load the others.
"""
