"""The portal's Correo area: send a receipt by e-mail from its page, and the development mailbox."""
