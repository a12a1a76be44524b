"""Runtime tests of neml2-aoti (a package only so its module names stay unique for mypy)."""
