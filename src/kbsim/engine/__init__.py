"""The engines: one package per family (``rows``, ``market``) behind the registry of ``families``.

Shared results and example expectations live in ``results`` and ``expect``.
"""
