"""The inteligente area of the CFE service. Endpoints in routes.py, tables in models.py."""
