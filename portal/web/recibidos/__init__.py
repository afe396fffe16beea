"""Comprobantes recibidos: the CFEs the company's suppliers sent it, and what the company does with them."""
