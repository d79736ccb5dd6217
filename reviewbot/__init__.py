"""reviewbot: drafts the review replies kernel maintainers keep writing by hand."""

__version__ = "0.1.0"
