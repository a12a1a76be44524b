r"""
Composing models and compiling them just in time
================================================

Small registered models compose into larger ones, and ``neml2.compile`` turns a composed model
into one fused graph with ``torch.compile`` (the py-jit route).

We take three rates, each a backward difference of one variable over the time step,

.. math::

   \dot a = \frac{a - a_n}{t - t_n}, \qquad
   \dot b = \frac{b - b_n}{t - t_n}, \qquad
   \dot c = \frac{c - c_n}{t - t_n},

written as three ``ScalarVariableRate`` models and one ``ComposedModel``. The subscript
:math:`n` is the previous step: in input files and in variable names it is the suffix ``~1``.
"""

# %%
# The composed model
# ------------------
# :func:`neml2.load_string` reads input-file text; :meth:`~neml2.factory.InputFile.get_model`
# builds the model. The composition works out its own inputs and outputs from its pieces.
import time
from collections.abc import Callable
from typing import Any

import matplotlib.pyplot as plt
import torch

import neml2
from neml2.tensors import Scalar

torch.set_default_dtype(torch.float64)
INPUT = """
[Models]
  [eq1]
    type = ScalarVariableRate
    variable = 'a'
  []
  [eq2]
    type = ScalarVariableRate
    variable = 'b'
  []
  [eq3]
    type = ScalarVariableRate
    variable = 'c'
  []
  [eq]
    type = ComposedModel
    models = 'eq1 eq2 eq3'
  []
[]
"""
model = neml2.load_string(INPUT).get_model("eq")
print(model)

# %%
# Evaluate it on a batch
# ----------------------
# Every input is a tensor of shape ``(*batch, *base)``; a ``Scalar`` has no base dimensions. We
# evaluate ten thousand material points at once and compare with the formula above.
batch = 10_000
gen = torch.Generator().manual_seed(0)
inputs = {
    name: Scalar(torch.rand(batch, generator=gen))
    for name in ("a", "b", "c", "a~1", "b~1", "c~1", "t~1")
}
inputs["t"] = Scalar(inputs["t~1"].data + 0.1 + torch.rand(batch, generator=gen))
eager = model.value(inputs)
dt = inputs["t"].data - inputs["t~1"].data
for v in "abc":
    expected = (inputs[v].data - inputs[f"{v}~1"].data) / dt
    torch.testing.assert_close(eager[f"{v}_rate"].data, expected)
print({name: tuple(value.data.shape) for name, value in eager.items()})

# %%
# Exact derivatives
# -----------------
# ``jacobian`` returns the outputs and every derivative block ``d output / d input``. For
# :math:`\dot a`: :math:`\partial \dot a / \partial a = 1 / (t - t_n)` and
# :math:`\partial \dot a / \partial t = -(a - a_n) / (t - t_n)^2`.
values, J = model.jacobian(inputs)
da_da = J["a_rate"]["a"].data.reshape(batch)
da_dt = J["a_rate"]["t"].data.reshape(batch)
torch.testing.assert_close(da_da, 1 / dt)
torch.testing.assert_close(da_dt, -(inputs["a"].data - inputs["a~1"].data) / dt**2)
print("derivative blocks of a_rate:", sorted(J["a_rate"]))

# %%
# Compile it: py-jit
# ------------------
# :func:`neml2.compile` compiles the model in place. The first call traces and lowers the graph
# (seconds); later calls run the compiled kernel. The results agree with the eager ones to
# rounding. The printed graph is what Inductor compiled: the time step
# :math:`t - t_n` is computed once and shared by the three rates.
neml2.compile(model)
start = time.perf_counter()
compiled = model.value(inputs)
first_call = time.perf_counter() - start
for name in eager:
    torch.testing.assert_close(compiled[name].data, eager[name].data)
print(f"first compiled call (trace + compile): {first_call:.1f} s")
print(neml2.compiled_graph(model))


# %%
# Time the two routes
# -------------------
# Median time of a call at growing batch sizes, eager against compiled, on one CPU thread. The
# absolute numbers depend on the machine that built this page.
def median_time(fn: Callable[[Any], object], arg: Any, repeat: int = 15) -> float:
    """Median wall time of ``repeat`` calls ``fn(arg)``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


torch.set_num_threads(1)
eager_model = neml2.load_string(INPUT).get_model("eq")
sizes = [10, 100, 1_000, 10_000, 100_000]
t_eager, t_jit = [], []
for n in sizes:
    x = {k: Scalar(v.data[:1].expand(n).clone()) for k, v in inputs.items()}
    t_eager.append(median_time(eager_model.value, x))
    t_jit.append(median_time(model.value, x))

fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
ax.loglog(sizes, [t * 1e6 for t in t_eager], "o-", label="py-eager")
ax.loglog(sizes, [t * 1e6 for t in t_jit], "s-", label="py-jit (neml2.compile)")
ax.set(xlabel="batch size", ylabel="time per call [µs]")
ax.legend()
ax.grid(alpha=0.3, which="both")
plt.show()
