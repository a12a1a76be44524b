"""``[Tensors]`` block types: ``Python`` expressions and ``CSVScalar/CSVSR2/CSVVec/CSVWR2``."""

from neml2.tensor_sources.csv import CSVTensor as CSVTensor
from neml2.tensor_sources.python import PythonTensor as PythonTensor

__all__ = ["CSVTensor", "PythonTensor"]
