"""Python-host check of libneml2_eager.so (run by ctest with the built ``python_host_ext``).

The host is this Python process: the C++ model must reuse its interpreter
(``started_interpreter()`` stays false), agree with py-eager, report errors through the neml2
taxonomy, and serve two Python threads (one calling with the GIL held, one without) correctly.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import python_host_ext as ext  # type: ignore[import-not-found]
import torch

import neml2
from neml2.tensors import SR2

#: the shared scenario inputs (``scenarios/``: CMakeLists.txt sets the variable)
SCENARIOS = Path(os.environ["NEML2_SCENARIOS"])


def main() -> int:
    path = str(SCENARIOS / "elasticity.i")
    model = ext.Model(path, "model")
    assert not ext.started_interpreter(), "a Python host's interpreter must be reused"
    assert model.input_names() == ["strain"]
    strain = 1e-3 * torch.randn(4, 6, dtype=torch.float64)
    want = neml2.load_model(path, "model")(SR2(strain)).data
    torch.testing.assert_close(
        model.forward({"strain": strain})["stress"], want, rtol=1e-12, atol=0
    )
    message = ext.recoverable_message(model, {"strain": strain[:, :1]})
    assert message.startswith(
        "fatal: neml2::eager::Model::forward: FatalError: input 'strain': non-canonical shape"
    ), message

    failures: list[str] = []

    def worker(k: int) -> None:
        x = strain * (k + 1)
        for _ in range(20):
            call = model.forward_nogil if k else model.forward
            y = call({"strain": x})["stress"]
            if not torch.allclose(y, want * (k + 1), rtol=1e-12, atol=0):
                failures.append(f"thread {k}: wrong result")
                return

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    print("python host: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
