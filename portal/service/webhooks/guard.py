"""Which URLs a webhook may point at: http(s) only, and, unless `WEBHOOKS_ALLOW_PRIVATE` is on (development
and tests), never an address inside the service's own networks (private, loopback, link-local, multicast,
reserved), so that a company cannot use the service to reach what sits behind its firewall.

The host is resolved when the endpoint is registered and again before every delivery (a name may move). The
delivery resolves it once (`addresses`), checks every address it got and connects only to those: a name that a
hostile DNS server answers differently to the check and to the connection (DNS rebinding) cannot lead the
connection inside.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from portal.service.platform.i18n import Text, _

SCHEME_MESSAGE = _("La URL debe empezar con https:// (o http://).")


class UnsafeUrl(Exception):
    """A URL the service will not call. `code` is the API's field error code."""

    def __init__(self, code: str, message: Text):
        super().__init__(message)
        self.code, self.message = code, message


def _refused(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # An IPv6 address that carries an IPv4 one (mapped ::ffff:a.b.c.d, 6to4 2002:a.b.c.d::) is judged by it.
    if isinstance(address, ipaddress.IPv6Address):
        address = address.ipv4_mapped or address.sixtofour or address
    # `is_global` as well as `is_private`: the shared address space 100.64.0.0/10 (carrier-grade NAT, and cloud
    # metadata such as 100.100.100.200) is neither private nor public.
    return (
        not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def check_syntax(url: str) -> tuple[str, int]:
    """The URL's host and port; UnsafeUrl if it is not an absolute http(s) URL without credentials."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unclosed [IPv6 literal
        raise UnsafeUrl("host", _("El servidor de la URL no es válido.")) from exc
    if parts.scheme not in ("http", "https"):
        raise UnsafeUrl("scheme", SCHEME_MESSAGE)
    if not parts.hostname:
        raise UnsafeUrl("host", _("La URL no tiene servidor."))
    try:  # what resolving (and the HTTP library) would do to the name: an empty or over-long label fails here
        parts.hostname.encode("idna")
    except UnicodeError as exc:
        raise UnsafeUrl("host", _("El servidor de la URL no es válido.")) from exc
    if parts.username or parts.password:
        raise UnsafeUrl("credentials", _("La URL no puede llevar usuario ni clave."))
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeUrl("port", _("El puerto de la URL no es válido.")) from exc
    return parts.hostname, port


def addresses(url: str, *, allow_private: bool) -> tuple[str, ...]:
    """The addresses the URL's host resolves to, resolved once, in the resolver's order: the ones to connect to.
    UnsafeUrl if the URL is not http(s), the name does not resolve or, with `allow_private` off, any of its
    addresses is internal."""
    host, port = check_syntax(url)
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        raise UnsafeUrl("unresolved", _("No se encontró el servidor {host}.", host=host)) from exc
    found: list[str] = []
    for *_info, sockaddr in infos:
        host_address = sockaddr[0]
        assert isinstance(host_address, str)  # an IPv4 or IPv6 sockaddr: the int is AF_UNIX's, never resolved here
        address = ipaddress.ip_address(host_address.split("%", 1)[0])
        if not allow_private and _refused(address):
            raise UnsafeUrl(
                "private_address",
                _(
                    "{host} es una dirección interna ({address}): solo se admiten direcciones públicas.",
                    host=host,
                    address=address,
                ),
            )
        if host_address not in found:
            found.append(host_address)
    return tuple(found)


def check(url: str, *, allow_private: bool) -> None:
    """UnsafeUrl unless the URL is http(s) and, with `allow_private` off, every address it resolves to is
    public."""
    check_syntax(url)
    if not allow_private:
        addresses(url, allow_private=False)
