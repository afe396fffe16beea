"""The Correo area: a receipt's PDF and signed XML sent by e-mail to its customer, in the background."""
