"""The portal's apikeys area."""
