"""neml2.eager: Python bridge of the eager C++ runtime ``libneml2_eager.so``.

The C++ library embeds CPython: ``neml2::eager::Model`` drives one
``neml2.eager._bridge.EagerModel`` per model (raw tensors, canonical boundary checks, the model's
own chain rule). This package also tells C++ build systems where the library, headers and CMake
package live. Importing it refuses a torch release other than the one the library was built
against (and imports neml2.aoti, which checks its own).
"""

from neml2.aoti.torch_pin import check_torch as _check_torch
from neml2.eager.__about__ import __version__ as __version__
from neml2.eager._paths import (
    cmake_prefix_path as cmake_prefix_path,
    include_dir as include_dir,
    library_dir as library_dir,
)

_check_torch("neml2-eager-cpp")  # libneml2_eager.so is tied to the torch release of its build
del _check_torch
