"""Company-to-company exchange (DGI's "intercambio", CFE-URUGUAY.md section 12): the issuer's side.

Who owns what (the receiver's side is the `recibidos` area):
- `directory`: who is an electronic receiver and where to deliver (DGI's ws_consultas directory).
- `transport`: delivering an exchange document to another company (its exchange web service or e-mail).
- `answers`: what a receiver answered to our envelopes (ACKSobre, ACKCFE), recorded per receipt.
"""
