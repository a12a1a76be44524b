"""Entry point of ``python -m bench.suite``."""

import sys

from bench.suite._cli import main

sys.exit(main())
