"""neml2.hit — a pure-Python reader/writer of HIT input files as NEML2 v3 reads them.

>>> root = parse_text("[Models]\\n  [m]\\n    E = 200e3\\n  []\\n[]\\n")
>>> root.find("Models/m").get_float("E")
200000.0
"""

from neml2.hit.__about__ import __version__ as __version__
from neml2.hit._api import (
    apply_overrides as apply_overrides,
    format_text as format_text,
    parse_file as parse_file,
    parse_text as parse_text,
)
from neml2.hit._error import HitError as HitError
from neml2.hit._getters import MISSING as MISSING
from neml2.hit._nodes import (
    Blank as Blank,
    Comment as Comment,
    Field as Field,
    Include as Include,
    Node as Node,
    Section as Section,
)
from neml2.hit._writer import write as write

__all__ = [
    "MISSING",
    "Blank",
    "Comment",
    "Field",
    "HitError",
    "Include",
    "Node",
    "Section",
    "__version__",
    "apply_overrides",
    "format_text",
    "parse_file",
    "parse_text",
    "write",
]
