"""`python -m detour.cli`: the full command line (the background stack starts `serve` this way)."""

from detour.cli import main

main()
