"""neml2: PyTorch-native constitutive models for computational mechanics.

This ``__init__`` is owned by the ``neml2-models`` distribution. It keeps the
``neml2`` namespace open so that the sibling distributions (``neml2-tensors``,
``neml2-hit``, ``neml2-aoti``, ``neml2-eager-cpp``) contribute their
sub-packages from other directories (editable installs included).
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
