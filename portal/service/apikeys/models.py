"""Tables of the apikeys area (none yet)."""
