"""Route plug-ins, in table order. A new route is one module with a :class:`Route` subclass."""

from bench.suite.routes._route import Context as Context, Route as Route
from bench.suite.routes.cpp_aoti import CppAoti
from bench.suite.routes.cpp_dispatch import CppDispatch
from bench.suite.routes.cpp_eager import CppEager
from bench.suite.routes.py_aoti import PyAoti
from bench.suite.routes.py_eager import PyEager
from bench.suite.routes.py_jit import PyJit

ROUTES: tuple[Route, ...] = (PyEager(), PyJit(), PyAoti(), CppAoti(), CppDispatch(), CppEager())
