"""Pure facts of Uruguay's CFE regime that both the portal and the service need. No I/O here."""
