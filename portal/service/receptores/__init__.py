"""The receptores area of the CFE service: the company's past receivers and a receiver as DGI knows it.

No tables of its own: past receivers are read from the company's issued receipts (cfe_emitido and its
receiver indexes), and DGI lookups go through portal.service.dgi."""
