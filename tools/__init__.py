"""Development tools, run by hand from the repository (python -m tools.<name>); not part of the package."""
