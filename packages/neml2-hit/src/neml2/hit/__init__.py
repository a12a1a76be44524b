"""neml2.hit — a pure-Python reader/writer of HIT input files as NEML2 v3 reads them.

>>> root = parse_text("[Models]\\n  [m]\\n    E = 200e3\\n  []\\n[]\\n")
>>> root.find("Models/m").get_float("E")
200000.0
"""

from neml2.hit.__about__ import __version__ as __version__
from neml2.hit._api import apply_overrides as apply_overrides
from neml2.hit._api import format_text as format_text
from neml2.hit._api import parse_file as parse_file
from neml2.hit._api import parse_text as parse_text
from neml2.hit._error import HitError as HitError
from neml2.hit._getters import MISSING as MISSING
from neml2.hit._nodes import Blank as Blank
from neml2.hit._nodes import Comment as Comment
from neml2.hit._nodes import Field as Field
from neml2.hit._nodes import Include as Include
from neml2.hit._nodes import Node as Node
from neml2.hit._nodes import Section as Section
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
