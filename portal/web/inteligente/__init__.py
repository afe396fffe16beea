"""The portal's inteligente area."""
