"""The portal's dgi area."""
