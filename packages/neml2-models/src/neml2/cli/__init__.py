"""Command-line tools: ``neml2-run``, ``neml2-inspect`` and ``neml2-syntax``."""
