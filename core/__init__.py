"""botmemory core: every rule of the memory spec, no Qt."""
