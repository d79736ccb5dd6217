"""reviewbot: drafts the review replies kernel maintainers keep writing by hand."""

# The one place the version is written: pyproject.toml reads it from here (dynamic version).
__version__ = "0.1.0"
