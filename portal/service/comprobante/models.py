"""Tables of the comprobante area (none yet)."""
