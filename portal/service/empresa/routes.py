"""HTTP endpoints of the Empresa group: the company's fiscal settings, branches, logo, signing certificates,
CAE ranges and the audit of every change; the company's people in member_routes.py.

Bearer JWT (the branch list also takes an API key), always within the caller's company. Admins change;
every member reads the settings, branches, certificates and CAE ranges (issuing needs them); admins and
`soporte` read the audit.
"""

from __future__ import annotations

from flask import Response, request

from portal.domain.empresa import CAE_MAX_BYTES, CERTIFICATE_MAX_BYTES, LOGO_MAX_BYTES
from portal.domain.roles import ADMINS, ALL, READERS
from portal.service.cfe.xmlchars import text_pattern
from portal.service.empresa import audit, branches, cae_ranges, certificates, contingency, settings, summary
from portal.service.empresa import member_routes as _member_routes  # noqa: F401 - adds the people's endpoints to bp
from portal.service.empresa.blueprint import AUTH, TAG, bp
from portal.service.empresa.schemas import (
    AnularLibretaIn,
    AuditList,
    BranchIn,
    BranchList,
    BranchOut,
    CaeBajaIn,
    CaeBajaOut,
    CaeList,
    CaeOut,
    CertificateList,
    CertificateOut,
    LibretaAnulacionOut,
    LibretaIn,
    LibretaList,
    LibretaOut,
    LogoOut,
    SettingsIn,
    SettingsOut,
    SummaryOut,
)
from portal.service.platform.api import operation
from portal.service.platform.auth import API_KEY, JWT, Principal
from portal.service.platform.errors import ApiError, NotFound
from portal.service.platform.i18n import _
from portal.service.platform.paging import PageQuery

__all__ = ["bp"]


def _unsupported(expected: str) -> ApiError:
    return ApiError(_("El cuerpo debe ser {expected}.", expected=expected), code="unsupported_media_type", status=415)


@operation(
    bp,
    "GET",
    "/configuracion",
    tag=TAG,
    summary="Ver los datos fiscales de la empresa",
    auth=AUTH,
    roles=ALL,
    responses={200: SettingsOut},
)
def get_settings(principal: Principal):
    """Régimen, norma de exoneración, resolución o fecha de ingreso, IVA al día, URL de verificación de
    e-Tickets, formato de papel y el logo cargado (solo sus datos; la imagen está en `/logo`)."""
    return settings.read(principal)


@operation(
    bp,
    "PUT",
    "/configuracion",
    tag=TAG,
    summary="Cambiar los datos fiscales de la empresa",
    auth=AUTH,
    roles=ADMINS,
    body=SettingsIn,
    responses={200: SettingsOut},
)
def put_settings(principal: Principal, body: SettingsIn):
    """Reemplaza los datos fiscales (los que no se envían vuelven a su valor por defecto). Valen para los
    comprobantes que se emitan desde ahora. Cada cambio queda en la auditoría con su valor anterior."""
    return settings.update(principal, body)


@operation(
    bp,
    "GET",
    "/sucursales",
    tag=TAG,
    summary="Listar las sucursales",
    auth=(JWT, API_KEY),
    roles=ALL,
    responses={200: BranchList},
)
def list_branches(principal: Principal):
    """Las sucursales registradas en DGI, por código. Un comprobante se emite desde la predeterminada, o
    desde la que indique su campo `cdgDGISucur`. También con una clave de API, para que el sistema que
    emite sepa qué códigos puede usar."""
    return branches.list_branches(principal)


@operation(
    bp,
    "POST",
    "/sucursales",
    tag=TAG,
    summary="Agregar una sucursal",
    auth=AUTH,
    roles=ADMINS,
    body=BranchIn,
    responses={201: BranchOut},
)
def create_branch(principal: Principal, body: BranchIn):
    """Agrega una sucursal con su código de DGI (0-9999, único en la empresa). La primera queda como
    predeterminada; marcar otra como predeterminada desmarca la anterior."""
    return branches.create(principal, body), 201


@operation(
    bp,
    "PUT",
    "/sucursales/<int:branch_id>",
    tag=TAG,
    summary="Cambiar una sucursal",
    auth=AUTH,
    roles=ADMINS,
    body=BranchIn,
    responses={200: BranchOut, 404: "No existe esa sucursal en la empresa."},
    path_params={"branch_id": "Identificador de la sucursal, como lo da la lista."},
)
def update_branch(principal: Principal, body: BranchIn, branch_id: int):
    """Reemplaza los datos de una sucursal. Para dejar de usar una como predeterminada, marcá otra."""
    return branches.update(principal, branch_id, body)


@operation(
    bp,
    "POST",
    "/sucursales/<int:branch_id>/baja",
    tag=TAG,
    summary="Dar de baja una sucursal",
    auth=AUTH,
    roles=ADMINS,
    responses={
        200: BranchOut,
        404: "No existe esa sucursal en la empresa.",
        409: "Es la predeterminada: marcá otra antes.",
    },
    path_params={"branch_id": "Identificador de la sucursal, como lo da la lista."},
)
def retire_branch(principal: Principal, branch_id: int):
    """Da de baja una sucursal (queda registrado en la auditoría): no se emite más desde ella, y los
    comprobantes emitidos desde ella la conservan. La predeterminada no se puede dar de baja."""
    return branches.retire(principal, branch_id)


_IMAGE = {"schema": {"type": "string", "contentMediaType": "image/png"}}


@operation(
    bp,
    "GET",
    "/logo",
    tag=TAG,
    summary="Descargar el logo",
    auth=AUTH,
    roles=ALL,
    responses={
        200: {"description": "La imagen, PNG o JPEG.", "content": {"image/png": _IMAGE, "image/jpeg": _IMAGE}},
        404: "La empresa no cargó un logo.",
    },
)
def get_logo(principal: Principal):
    """El logo tal como se cargó."""
    found = settings.logo_image(principal)
    if found is None:
        raise NotFound(_("La empresa no cargó un logo."), code="sin_logo")
    response = Response(found[0], mimetype=found[1])
    response.headers["Cache-Control"] = "private, no-cache"
    return response


@operation(
    bp,
    "PUT",
    "/logo",
    tag=TAG,
    summary="Cargar el logo",
    auth=AUTH,
    roles=ADMINS,
    raw_body={"image/png": _IMAGE, "image/jpeg": {"schema": {"type": "string", "contentMediaType": "image/jpeg"}}},
    responses={
        200: LogoOut,
        413: f"La imagen supera los {LOGO_MAX_BYTES // 1024} KB.",
        415: "No es image/png ni image/jpeg.",
    },
)
def put_logo(principal: Principal):
    """Carga (o reemplaza) el logo que se imprime en los comprobantes, a lo sumo en 1/5 de la página. PNG
    o JPEG, hasta 512 KB y entre 16 y 4000 píxeles por lado; la imagen se decodifica entera al cargarla,
    así que un archivo dañado se rechaza ahora y no al imprimir."""
    if request.mimetype not in ("image/png", "image/jpeg"):
        raise _unsupported(_("una imagen PNG o JPEG (Content-Type: image/png o image/jpeg)"))
    return settings.put_logo(principal, request.get_data()).logo


@operation(bp, "DELETE", "/logo", tag=TAG, summary="Quitar el logo", auth=AUTH, roles=ADMINS, responses={204: None})
def delete_logo(principal: Principal):
    """Los comprobantes se imprimen sin logo desde ahora. Quitar un logo que no hay no cambia nada."""
    settings.delete_logo(principal)
    return Response(status=204)


@operation(
    bp,
    "GET",
    "/certificados",
    tag=TAG,
    summary="Listar los certificados de firma",
    auth=AUTH,
    roles=ALL,
    responses={200: CertificateList},
)
def list_certificates(principal: Principal):
    """Sujeto, número de serie, vigencia y días que le quedan a cada certificado; `estado` es `por_vencer`
    cuando vence dentro de 30 días. Firma el vigente que vence último."""
    return certificates.list_certificates(principal)


@operation(
    bp,
    "POST",
    "/certificados/<int:certificate_id>/baja",
    tag=TAG,
    summary="Dar de baja un certificado de firma",
    auth=AUTH,
    roles=ADMINS,
    responses={
        200: CertificateOut,
        404: "No existe ese certificado en la empresa.",
        409: "Es el único vigente: cargá otro antes.",
    },
    path_params={"certificate_id": "Identificador del certificado, como lo da la lista."},
)
def retire_certificate(principal: Principal, certificate_id: int):
    """Da de baja un certificado (por ejemplo, si su clave se vio comprometida): no firma más, y queda en la
    auditoría. El único certificado vigente no se puede dar de baja: cargá antes el que lo reemplaza."""
    return certificates.retire(principal, certificate_id)


_P12_FORM = {
    "multipart/form-data": {
        "schema": {
            "type": "object",
            "required": ["archivo"],
            "properties": {
                "archivo": {
                    "type": "string",
                    "format": "binary",
                    "description": f"El archivo .p12 o .pfx, hasta {CERTIFICATE_MAX_BYTES // 1024} KB.",
                },
                "password": {
                    "type": "string",
                    "format": "password",
                    "maxLength": 200,
                    "description": "La contraseña del archivo (vacía si no tiene).",
                },
                "nombre": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 120,
                    "pattern": text_pattern(line_breaks=False),  # certificates._one_line_name's rule
                    "description": "Para reconocerlo; por defecto, su sujeto.",
                },
            },
        },
        "encoding": {"archivo": {"contentType": "application/octet-stream"}},
    }
}


@operation(
    bp,
    "POST",
    "/certificados",
    tag=TAG,
    summary="Cargar un certificado de firma",
    auth=AUTH,
    roles=ADMINS,
    raw_body=_P12_FORM,
    responses={
        201: CertificateOut,
        409: "Ese certificado ya está cargado.",
        413: f"El archivo supera los {CERTIFICATE_MAX_BYTES // 1024} KB.",
        415: "El cuerpo no es multipart/form-data.",
    },
)
def upload_certificate(principal: Principal):
    """Carga el certificado de firma de la empresa (PKCS#12 con su contraseña). Se rechaza (422) si la
    contraseña no lo abre, si el archivo pide más de 1.000.000 de iteraciones para abrirse (`archivo_costoso`: se
    rechaza sin abrirlo), si su SERIALNUMBER no es el RUT de la empresa o si ya venció. La clave privada
    se guarda cifrada; la contraseña no se guarda. Desde ese momento firma el vigente que vence último."""
    if request.mimetype != "multipart/form-data":
        raise _unsupported(_("multipart/form-data, con el archivo en «archivo» y la contraseña en «password»"))
    upload = request.files.get("archivo")
    password = request.form.get("password", "")
    data = upload.read(CERTIFICATE_MAX_BYTES + 1) if upload else None
    return certificates.upload(principal, data, password, request.form.get("nombre")), 201


@operation(
    bp, "GET", "/cae", tag=TAG, summary="Listar los rangos de CAE", auth=AUTH, roles=ALL, responses={200: CaeList}
)
def list_cae(principal: Principal):
    """Cada CAE con su tipo de CFE, serie, números (desde, hasta, próximo), cuántos quedan, vencimiento y
    `estado`: `por_vencer` dentro de 30 días, `vencido`, `agotado`, `no_vigente` (autorizado desde un día que
    todavía no llegó)."""
    return cae_ranges.list_ranges(principal)


@operation(
    bp,
    "POST",
    "/cae",
    tag=TAG,
    summary="Cargar un archivo de CAE de DGI",
    auth=AUTH,
    roles=ADMINS,
    raw_body={
        "application/xml": {
            "schema": {
                "type": "string",
                "maxLength": CAE_MAX_BYTES,
                "description": "El XML de CAE tal como lo entrega DGI.",
            }
        }
    },
    responses={
        201: CaeOut,
        200: {
            "description": "Ese CAE ya estaba cargado; se devuelve como está.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CaeOut"}}},
        },
        409: "`cae_distinto`: ya hay un CAE cargado con ese número y otros datos.",
        413: f"El archivo supera los {CAE_MAX_BYTES // 1024} KB.",
        415: "El cuerpo no es XML.",
    },
)
def upload_cae(principal: Principal):
    """Carga el archivo de CAE que DGI entrega (un rango de números para un tipo de CFE y una serie). Se
    valida contra CAE.xsd 1.44.2 y su firma tiene que valer (`firma_invalida`: el archivo se editó después de
    firmado; `cae_formato_anterior`: un archivo del formato de DGI anterior a 2013, sin TA, que ya no vale) y, si
    el servicio tiene configuradas las autoridades certificadoras acreditadas, venir de un certificado que una de
    ellas emitió (`firmante_no_acreditado`); se rechaza (422) si es de otro RUT, si ya venció o si sus números se
    superponen con otro CAE del mismo tipo y serie."""
    if request.mimetype not in ("application/xml", "text/xml"):
        raise _unsupported(_("XML (Content-Type: application/xml)"))
    result, created = cae_ranges.upload(principal, request.get_data())
    return result, 201 if created else 200


@operation(
    bp,
    "POST",
    "/cae/<int:cae_range_id>/baja",
    tag=TAG,
    summary="Dar de baja un rango de CAE",
    auth=AUTH,
    roles=ADMINS,
    body=CaeBajaIn,
    responses={
        200: CaeBajaOut,
        404: "No existe ese rango de CAE en la empresa.",
        409: "`cae_sin_numeros`: el rango no tiene números sin usar; `cantidad_distinta`: le quedan otros tantos "
        "(el mensaje dice cuántos) y no se anuló nada.",
    },
    path_params={"cae_range_id": "Identificador del rango (`id`), como lo da la lista de CAE."},
)
def retire_cae(principal: Principal, cae_range_id: int, body: CaeBajaIn):
    """Anula de una vez todos los números sin usar del rango: no numera más, los números anulados se informan
    en el reporte diario de hoy (como cualquier anulación) y la baja queda en la auditoría. `cantidad` debe ser
    la de números que le quedan (`restantes` en la lista): la confirmación de lo que se anula."""
    return cae_ranges.retire(principal, cae_range_id, body)


@operation(
    bp,
    "GET",
    "/resumen",
    tag=TAG,
    summary="Ver el día de la empresa de un vistazo",
    auth=(JWT, API_KEY),
    roles=ALL,
    responses={200: SummaryOut},
)
def get_summary(principal: Principal):
    """Los comprobantes con fecha de hoy (hora de Montevideo) por tipo y moneda, con lo facturado neto por
    moneda; cuántos comprobantes hay en cada estado ante DGI, cuántos esperan respuesta y los últimos
    rechazados; los rangos de CAE que todavía numeran, con aviso cuando queda menos del 10 % o vencen
    dentro de 30 días; y los certificados de firma con los días que les quedan. También con una clave de
    API, para mostrarlo en otro sistema."""
    return summary.day_summary(principal)


@operation(
    bp,
    "GET",
    "/auditoria",
    tag=TAG,
    summary="Ver la auditoría de la configuración",
    auth=AUTH,
    roles=READERS,
    query=PageQuery,
    responses={200: AuditList},
)
def list_audit(principal: Principal, query: PageQuery):
    """Cada cambio de datos fiscales, sucursales, logo, certificados y CAE: quién, cuándo, qué y los valores
    antes y después. Nunca contraseñas ni claves."""
    return audit.list_events(principal, query)


@operation(
    bp,
    "GET",
    "/contingencia",
    tag=TAG,
    summary="Listar las libretas de contingencia",
    auth=AUTH,
    roles=ALL,
    responses={200: LibretaList},
)
def list_contingency_books(principal: Principal):
    """Las libretas de comprobantes de contingencia (CFC, tipos 2xx) impresas con autorización de DGI, con su
    tipo, serie, números y fechas. Se usan solo cuando la empresa no puede emitir electrónicamente."""
    return contingency.list_books(principal)


@operation(
    bp,
    "POST",
    "/contingencia",
    tag=TAG,
    summary="Registrar una libreta de contingencia",
    auth=AUTH,
    roles=ADMINS,
    body=LibretaIn,
    responses={
        201: LibretaOut,
        409: "`libreta_superpuesta`: sus números se superponen con otra libreta del mismo tipo y serie; "
        "`libreta_autorizacion_repetida`: ese número de autorización ya está registrado para otra libreta (de otro "
        "tipo, serie o fechas) o para un CAE electrónico de la empresa.",
    },
)
def register_contingency_book(principal: Principal, body: LibretaIn):
    """Registra la libreta tal como figura en la autorización de DGI (CAE de tipo F: hasta 999.999 números, por 24
    meses como máximo). Queda en la auditoría, como los rangos de CAE."""
    return contingency.register(principal, body), 201


@operation(
    bp,
    "DELETE",
    "/contingencia/<int:book_id>",
    tag=TAG,
    summary="Borrar una libreta de contingencia registrada por error",
    auth=AUTH,
    roles=ADMINS,
    path_params={"book_id": "Identificador de la libreta, como lo da la lista."},
    responses={
        204: None,
        404: "`libreta_no_encontrada`: no existe esa libreta en la empresa.",
        409: "`libreta_en_uso`: ya tiene papeles ingresados o números anulados.",
    },
)
def remove_contingency_book(principal: Principal, book_id: int):
    """Borra una libreta registrada con un error (un número, una fecha) para registrarla de nuevo como la autorizó
    DGI. Solo una libreta sin papeles ingresados ni números anulados; queda en la auditoría."""
    contingency.remove(principal, book_id)
    return Response(status=204)


@operation(
    bp,
    "POST",
    "/contingencia/<int:book_id>/anulaciones",
    tag=TAG,
    summary="Anular números sin usar de una libreta de contingencia",
    auth=AUTH,
    roles=ADMINS,
    body=AnularLibretaIn,
    path_params={"book_id": "Identificador de la libreta, como lo da la lista."},
    responses={
        201: LibretaAnulacionOut,
        404: "`libreta_no_encontrada`: no existe esa libreta en la empresa.",
        409: "`cfc_numero_usado`: alguno de esos números ya fue ingresado o anulado.",
        422: "Datos no válidos; `anulacion_fuera_de_libreta`: números fuera de la libreta.",
    },
)
def void_contingency_numbers(principal: Principal, book_id: int, body: AnularLibretaIn):
    """Anula papeles de la libreta que no se usarán (como los números sin usar de un CAE): quedan en la auditoría
    y en las anulaciones del día, y ya no se pueden ingresar. El reporte diario de DGI no informa CFC anulados
    (ReporteDiarioCFE.xsd: "No corresponde informar los CFC anulados")."""
    return contingency.void_paper(principal, book_id, body), 201
