"""PyInstaller entry for the command line: ``botmemory`` (``botmemory.core.quick:main``: plain recall and
search lines without the full parser, everything else through ``botmemory.core.cli``)."""
from botmemory.core.quick import main

raise SystemExit(main())
