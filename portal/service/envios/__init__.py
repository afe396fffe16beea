"""Sending receipts to DGI: envelopes, DGI's answers, the daily report, voided numbers."""
