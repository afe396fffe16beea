"""Received CFEs (DGI's "intercambio", the receiver's side, CFE-URUGUAY.md section 12): the envelopes other
companies deliver to ours, checked as DGI describes, stored byte for byte, and answered with signed ACKSobre
and ACKCFE documents by the channel they came from."""
