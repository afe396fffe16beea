"""The portal's notification centre: the bell, the notices page and the home's view of the compliance watch."""
