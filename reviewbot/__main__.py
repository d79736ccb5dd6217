"""`python -m reviewbot` runs the command line."""

from reviewbot.cli import main

main()
