"""`UserApi`: every endpoint of the service, one method each, grouped by area in their own modules."""

from __future__ import annotations

from portal.client.apikeys import ApiKeysApi
from portal.client.clientes import ClientesApi
from portal.client.comprobantes import ComprobantesApi
from portal.client.correo import CorreoApi
from portal.client.cotizaciones import CotizacionesApi
from portal.client.dgi import DgiApi
from portal.client.empresa import EmpresaApi
from portal.client.envios import EnviosApi
from portal.client.informes import InformesApi
from portal.client.inteligente import InteligenteApi
from portal.client.intercambio import IntercambioApi
from portal.client.members import MembersApi
from portal.client.models import UserInfo
from portal.client.productos import ProductosApi
from portal.client.receptores import ReceptoresApi
from portal.client.recibidos import RecibidosApi
from portal.client.salud import SaludApi
from portal.client.transport import Transport
from portal.client.webhooks import WebhooksApi


class UserApi(
    ComprobantesApi,
    ApiKeysApi,
    DgiApi,
    InteligenteApi,
    EmpresaApi,
    MembersApi,
    EnviosApi,
    CorreoApi,
    ReceptoresApi,
    InformesApi,
    CotizacionesApi,
    ClientesApi,
    ProductosApi,
    WebhooksApi,
    SaludApi,
    RecibidosApi,
    IntercambioApi,
    Transport,
):
    """The service as one caller sees it."""

    def userinfo(self) -> UserInfo:
        """Who the token's user is, with their companies, roles and certificates."""
        return UserInfo.from_json(self._json("GET", "/oauth/userinfo"))

    def set_language(self, language: str) -> None:
        """Keep `language` ("es" or "en") as the user's own: the one the service writes to them in (the e-mails
        to a company's admins) until they change it or sign in in another."""
        self._request("PUT", "/api/v1/usuario/idioma", json={"idioma": language})
