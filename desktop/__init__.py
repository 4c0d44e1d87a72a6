"""botmemory desktop: the PySide6 tray app. Presents and asks; the core does the work."""
