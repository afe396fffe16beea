"""Informes: the accountant's books and period reports, read from what was signed (never typed again)."""
