"""Leaf models of the ``common`` group (one module per model family; registered on import)."""
