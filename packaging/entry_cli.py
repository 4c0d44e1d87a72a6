"""PyInstaller entry for the command line: ``botmemory`` (``botmemory.core.cli:main``)."""
from botmemory.core.cli import main

raise SystemExit(main())
