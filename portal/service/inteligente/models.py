"""Tables of the inteligente area (none yet)."""
