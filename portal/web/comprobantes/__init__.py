"""The portal's comprobantes area."""
