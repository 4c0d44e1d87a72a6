"""PyInstaller entry for the command line: ``botmemory`` (``botmemory.core.faces.entry:main``: plain recall and
search lines without the full parser, everything else through ``botmemory.core.faces.cli``)."""
from botmemory.core.faces.entry import main

raise SystemExit(main())
