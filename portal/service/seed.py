"""Demo data for development: two companies, the three demo users, the portal's OIDC client, a signing
certificate and whatever each area adds (CAE ranges, ...). Running it twice changes nothing.

The demo passwords are public (README): never run this against a production database.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from portal import devsecrets
from portal.service.identity.passwords import hash_password
from portal.service.platform import db
from portal.service.platform.areas import area_modules
from portal.service.platform.certificates import generate_self_signed
from portal.service.platform.keystore import store_certificate
from portal.service.platform.models import Certificate, Company, Membership, OAuthClient, Role, User

DEMO_PASSWORD = "demo-password"  # noqa: S105 - documented development-only credential

DEMO_COMPANIES = [
    {
        "rut": "219999830019",
        "razon_social": "Demo S.A.",
        "nombre_comercial": "Demo",
        "giro": "Comercio minorista",
        "telefono": "29001234",
        "correo": "facturacion@demo.uy",
        "sucursal": "Casa central",
        "cdg_dgi_sucursal": 1,
        "domicilio_fiscal": "Av. 18 de Julio 1234",
        "ciudad": "Montevideo",
        "departamento": "Montevideo",
        "verification_url": "https://demo.uy/cfe",
    },
    {
        "rut": "211003420017",
        "razon_social": "Comercial del Norte S.R.L.",
        "nombre_comercial": "Del Norte",
        "giro": "Venta al por mayor",
        "telefono": "47321234",
        "correo": "admin@delnorte.uy",
        "sucursal": "Salto",
        "cdg_dgi_sucursal": 1,
        "domicilio_fiscal": "Uruguay 456",
        "ciudad": "Salto",
        "departamento": "Salto",
        "verification_url": None,
    },
]

# (email, name, {company RUT: role})
DEMO_USERS = [
    ("admin@demo.uy", "Ana Administradora", {"219999830019": Role.ADMIN, "211003420017": Role.ADMIN}),
    ("soporte@demo.uy", "Sergio Soporte", {"219999830019": Role.SOPORTE}),
    ("usuario@demo.uy", "Úrsula Usuaria", {"219999830019": Role.USUARIO}),
]


def _company(session: Session, data: dict) -> tuple[Company, bool]:
    company = session.scalar(select(Company).where(Company.rut == data["rut"]))
    if company:
        return company, False
    company = Company(**data)
    session.add(company)
    session.flush()
    return company, True


def sync_portal_client(session: Session) -> tuple[OAuthClient, bool]:
    """Register (or update) the portal as an OIDC client from the configuration."""
    config = current_app.config
    client = session.scalar(select(OAuthClient).where(OAuthClient.client_id == config["PORTAL_CLIENT_ID"]))
    created = client is None
    if client is None:
        client = OAuthClient(client_id=config["PORTAL_CLIENT_ID"], client_id_issued_at=int(time.time()))
        session.add(client)
    client.client_secret = config["PORTAL_CLIENT_SECRET"]
    # Keep the registered redirect URIs in step with the configuration (ports can be overridden).
    client.set_client_metadata(
        {
            "client_name": "Portal CFE",
            "redirect_uris": config["PORTAL_REDIRECT_URIS"],
            "post_logout_redirect_uris": config["PORTAL_POST_LOGOUT_URIS"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "scope": "openid profile email cfe",
            "token_endpoint_auth_method": "client_secret_basic",
        }
    )
    return client, created


def _demo_certificate(session: Session, company: Company) -> bool:
    if session.scalar(select(Certificate.id).where(Certificate.company_id == company.id)):
        return False

    key_name, cert_name = f"demo-{company.rut}-key.pem", f"demo-{company.rut}-cert.pem"
    key_pem, cert_pem = devsecrets.read_secret(key_name), devsecrets.read_secret(cert_name)
    if not (key_pem and cert_pem):
        key, cert = generate_self_signed(company.rut, f"{company.razon_social} (demo)")
        devsecrets.write_secret(key_name, key.decode())
        devsecrets.write_secret(cert_name, cert.decode())
        key_pem, cert_pem = key.decode(), cert.decode()
    store_certificate(session, company, "Certificado de prueba (autofirmado)", key_pem.encode(), cert_pem.encode())
    return True


def seed_demo() -> Iterator[str]:
    """Create what is missing and say what was done, line by line."""
    session = db.session()
    companies = {}
    for data in DEMO_COMPANIES:
        company, created = _company(session, data)
        companies[company.rut] = company
        if created:
            yield f"company {company.razon_social} (RUT {company.rut}) created"
    for email, name, roles in DEMO_USERS:
        user = session.scalar(select(User).where(User.email == email))
        if user is None:
            user = User(email=email, name=name, password_hash=hash_password(DEMO_PASSWORD))
            session.add(user)
            session.flush()
            yield f"user {email} created"
        for rut, role in roles.items():
            exists = session.scalar(
                select(Membership).where(Membership.user_id == user.id, Membership.company_id == companies[rut].id)
            )
            if exists is None:
                session.add(Membership(user_id=user.id, company_id=companies[rut].id, role=role.value))
    _, created = sync_portal_client(session)
    if created:
        yield "OIDC client for the portal registered"
    for company in companies.values():
        if _demo_certificate(session, company):
            yield f"demo signing certificate for {company.razon_social} created"
    session.commit()
    for area_seed in area_modules("seed"):
        yield from area_seed.seed_demo(session, list(companies.values()))
        session.commit()
    yield "demo data ready"
