"""PyInstaller entry for the tray app: ``botmemory-tray`` (``botmemory.desktop.app:main``)."""
from botmemory.desktop.app import main

raise SystemExit(main())
