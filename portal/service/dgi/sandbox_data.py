"""The sandbox's taxpayers: DGI's published test RUTs, a few named fixtures and 200 seeded, generated ones.

Deterministic: a `random.Random(SEED)` draws everything in a fixed order from the tables in
`sandbox_catalog`, so every process (and every test run) sees the same registry. Check digits are computed
with python-stdnum (RUT) and portal.domain.identifiers (CI, NIE).

Dates never rot: start dates are in the past, and a CVA is stored as a yearly renewal day plus whether the
taxpayer renewed, and turned into dates relative to the `today` it is asked about (`cva_status`): a current
certificate was issued on the last renewal day and runs a year; an expired one is the year before it.

Fixtures tests may rely on (each RUT has a valid check digit):

    DEMO_RUT          219999830019  DGI RUC PRUEBA NO CEDE: active, electronic issuer, current CVA
    DGI_CEDE_RUT      219000090011  DGI RUC PRUEBA CEDE: the data of DGI's real sample answer (Lavalleja)
    DGI_RUT           214844360018  DIRECCION GENERAL IMPOSITIVA
    NORTE_RUT         211003420017  COMERCIAL DEL NORTE S.R.L. (Salto): the demo's second company, electronic issuer
    INACTIVE_RUT      215550010018  closed (EstadoActividad CL), expired CVA, not an electronic issuer
    EXPIRED_CVA_RUT   215550020013  active electronic issuer whose CVA expired
    NOT_EMISOR_RUT    215550030019  active, current CVA, not an electronic issuer
    NO_CVA_RUT        215550040014  active electronic issuer that never had a CVA
    INDIVIDUAL_RUT    215550060015  unipersonal of INDIVIDUAL_CI 12345672 (1.234.567-2), current CVA
    SUSPENDED_RUT     215550070010  suspended (EstadoActividad SU)
    PERSON_CI         13353214      a person without RUT (the receptor of DGI's sample e-Ticket)
    PERSON_NIE        934020101     a foreigner without RUT
    UNKNOWN_RUT       215550080016  valid check digit, not registered
    UNKNOWN_CI        45678905      valid check digit, not registered
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import cache

from stdnum.uy.rut import calc_check_digit

from portal.domain.identifiers import DocType, ci_check_digit

from . import sandbox_catalog as cat
from .models import ACTIVITY_STATES, Activity, Address, Contact, CvaStatus, Entity

SEED = 20261122
GENERATED_COUNT = 200

DEMO_RUT, DGI_CEDE_RUT, DGI_RUT = "219999830019", "219000090011", "214844360018"
NORTE_RUT = "211003420017"  # one of DGI's example RUTs, and the demo's Comercial del Norte S.R.L.
OTHER_DGI_TEST_RUTS = ("219999820013", NORTE_RUT, "215080550011", "216753930012", "217628780017")
INACTIVE_RUT, EXPIRED_CVA_RUT, NOT_EMISOR_RUT = "215550010018", "215550020013", "215550030019"
NO_CVA_RUT, INDIVIDUAL_RUT, SUSPENDED_RUT = "215550040014", "215550060015", "215550070010"
INDIVIDUAL_CI, PERSON_CI, PERSON_NIE = "12345672", "13353214", "934020101"
UNKNOWN_RUT, UNKNOWN_CI = "215550080016", "45678905"

_PERSON_TRADES = (
    "10710",
    "43210",
    "45200",
    "47190",
    "56301",
    "69200",
    "69100",
    "86201",
    "86202",
    "96020",
    "49230",
    "01410",
    "62010",
)
_PROFESSIONAL_TRADES = ("69200", "69100", "71100", "86201", "70200")
_ACTIVITY = {code: (name, stems) for code, name, stems in cat.ACTIVITIES}
_ACTIVITY_NAMES = {code: name for code, name, _ in cat.ACTIVITIES} | dict([cat.PUBLIC_ADMINISTRATION])


@dataclass(frozen=True)
class CvaPlan:
    """A taxpayer's CVA as a yearly renewal day (month, day <= 28) and whether it renewed this year."""

    renewed: bool
    month: int
    day: int


@dataclass(frozen=True)
class SandboxTaxpayer:
    entity: Entity
    cva: CvaPlan | None
    titular: tuple[DocType, str] | None = None  # the person behind a unipersonal
    titular_nombre: str | None = None


def cva_status(taxpayer: SandboxTaxpayer, today: date) -> CvaStatus:
    """The taxpayer's CVA as seen on `today`."""
    entity, plan = taxpayer.entity, taxpayer.cva
    if plan is None:
        return CvaStatus(entity.rut, entity.denominacion, False, None, None, None)
    last = date(today.year, plan.month, plan.day)
    if last > today:
        last = last.replace(year=today.year - 1)
    issued = last if plan.renewed else last.replace(year=last.year - 1)
    expires = issued.replace(year=issued.year + 1) - timedelta(days=1)
    return CvaStatus(
        entity.rut, entity.denominacion, today <= expires, f"{issued.year}{entity.rut[2:8]}", issued, expires
    )


def _rut(prefix: str, seq: int) -> str | None:
    body = f"{prefix}{seq:06d}001"
    digit = calc_check_digit(body)
    return body + digit if len(digit) == 1 else None  # a remainder of 10 has no valid RUT


def _ci(body: int) -> str:
    return f"{body}{ci_check_digit(str(body))}"


def _day(rng: random.Random, start: date, end: date) -> date:
    return start + timedelta(days=rng.randint(0, (end - start).days))


def _slug(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())[:18] or "EMPRESA"


def _address(rng: random.Random, dept: int, email: str) -> Address:
    dpto_id, dpto_nom, cities = cat.DEPARTMENTS[dept]
    city, postal = rng.choice(cities)
    street = rng.choice(cat.MONTEVIDEO_STREETS if dpto_id == 10 else cat.STREETS)
    apto = f"{rng.randint(1, 12)}0{rng.randint(1, 4)}" if rng.random() < 0.25 else None
    # Landlines: 8 digits, starting with 2 in Montevideo and with 4 elsewhere.
    phone = ("2" if dpto_id == 10 else "4") + f"{rng.randint(0, 9999999):07d}"
    contacts = [Contact(cat.CONTACT_TYPES[1], email), Contact(cat.CONTACT_TYPES[5], phone)]
    if rng.random() < 0.4:
        contacts.append(Contact(cat.CONTACT_TYPES[6], f"09{rng.randint(1000000, 9999999)}"))
    number = str(rng.randint(100, 4999))
    return Address(street, number, apto, city, dpto_id, dpto_nom, postal, tuple(contacts))


def _activities(rng: random.Random, primary: str, start: date) -> tuple[Activity, ...]:
    codes = [primary] + rng.sample([c for c, _, _ in cat.ACTIVITIES if c != primary], rng.randint(0, 2))
    return tuple(
        Activity(code, _ACTIVITY[code][0], start if code == primary else _day(rng, start, date(2025, 12, 31)))
        for code in codes
    )


def _person(rng: random.Random) -> str:
    """A name the way the registry lists it: surnames first, then given names."""
    s1, s2 = rng.sample(cat.SURNAMES, 2)
    given = " ".join(rng.sample(cat.FIRST_NAMES, rng.choice((1, 2))))
    return f"{s1} {s2} {given}"


def _generate_one(rng: random.Random, rut: str, dept: int, kind: str, ci: str | None) -> SandboxTaxpayer:
    tipo, suffix = cat.KINDS[kind]
    word = rng.choice(cat.NAME_WORDS)
    titular = titular_nombre = None
    if kind == "cooperativa":
        prefix, trades = rng.choice(cat.COOPERATIVE_KINDS)
        primary, denominacion, fantasia = rng.choice(trades), f"{prefix} {word}", None
    elif kind == "unipersonal":
        if ci is None:
            raise ValueError("Una empresa unipersonal se genera con la cédula de su titular.")
        primary = rng.choice(_PERSON_TRADES)
        denominacion = titular_nombre = _person(rng)
        titular = (DocType.NIE, "9" + ci) if rng.random() < 0.1 else (DocType.CI, ci)
        fantasia = f"{rng.choice(_ACTIVITY[primary][1])} {word}" if rng.random() < 0.7 else None
    elif kind in ("civil", "colectiva"):
        primary = rng.choice(_PROFESSIONAL_TRADES if kind == "civil" else _PERSON_TRADES)
        s1, s2 = rng.sample(cat.SURNAMES, 2)
        denominacion = (
            f"{rng.choice(_ACTIVITY[primary][1])} {s1} {s2} Y ASOCIADOS" if kind == "civil" else f"{s1}, {s2} {suffix}"
        )
        fantasia = f"{rng.choice(_ACTIVITY[primary][1])} {s1}" if rng.random() < 0.5 else None
    else:
        primary = rng.choice(cat.ACTIVITIES)[0]
        trade = rng.choice(_ACTIVITY[primary][1])
        denominacion = f"{trade} {word} {suffix}"
        fantasia = rng.choice((f"{trade} {word}", word, None))
    earliest = date(2019, 11, 1) if kind == "sas" else date(1975, 1, 1)  # SAS exist since law 19.820 (2019)
    start = _day(rng, earliest, date(2025, 6, 30))
    roll = rng.random()
    state = "AA" if roll < 0.86 else ("CL" if roll < 0.95 else "SU")
    emisor = rng.random() < (0.65 if state == "AA" else 0.2)
    since = _day(rng, max(start, date(2012, 1, 2)), date(2026, 6, 30)) if emisor else None
    roll = rng.random()
    if state == "AA":
        cva = CvaPlan(roll < 0.8, rng.randint(1, 12), rng.randint(1, 28)) if roll < 0.95 else None
    else:
        cva = CvaPlan(False, rng.randint(1, 12), rng.randint(1, 28)) if roll < 0.7 else None
    email_user = "ADMINISTRACION" if kind != "unipersonal" else _slug(denominacion.split()[-1])
    address = _address(rng, dept, f"{email_user}@{_slug(fantasia or denominacion)}.COM.UY")
    entity = Entity(
        rut,
        denominacion,
        fantasia,
        tipo,
        cat.ENTITY_TYPES[tipo],
        state,
        ACTIVITY_STATES[state],
        start,
        emisor,
        since,
        address,
        _activities(rng, primary, start),
    )
    return SandboxTaxpayer(entity, cva, titular, titular_nombre)


def _fixtures() -> list[SandboxTaxpayer]:
    def entity(rut, name, fantasia, tipo, state, start, since, address, acts):
        activities = tuple(Activity(code, _ACTIVITY_NAMES[code], day) for code, day in acts)
        return Entity(
            rut,
            name,
            fantasia,
            tipo,
            cat.ENTITY_TYPES[tipo],
            state,
            ACTIVITY_STATES[state],
            start,
            since is not None,
            since,
            address,
            activities,
        )

    def addr(calle, numero, localidad, dept_id, postal, email, phone, apto=None):
        dpto = next(d for d in cat.DEPARTMENTS if d[0] == dept_id)[1]
        return Address(
            calle,
            numero,
            apto,
            localidad,
            dept_id,
            dpto,
            postal,
            (Contact("CORREO ELECTRONICO", email), Contact("TELEFONO FIJO", phone)),
        )

    dgi_address = addr("AV. DANIEL FERNANDEZ CRESPO", "1534", "MONTEVIDEO", 10, "11200", "CONSULTAS@DGI.GUB.UY", "1344")
    cede = entity(
        DGI_CEDE_RUT,
        "DGI RUC PRUEBA CEDE",
        "PRUEBA NUEVOS SERVICIOS  -",
        "27",
        "AA",
        date(2006, 9, 27),
        date(2012, 5, 11),
        addr("12 METROS", "6855", "CASUPA", 8, None, "PLANPROD@DGI.GUB.UY", "25062222"),
        [("47115", date(2020, 12, 10)), ("84110", date(2020, 12, 10))],
    )
    return [
        SandboxTaxpayer(
            entity(
                DEMO_RUT,
                "DGI RUC PRUEBA NO CEDE",
                "EMPRESA DEMO",
                "27",
                "AA",
                date(2010, 1, 4),
                date(2012, 3, 1),
                replace(dgi_address, apartamento="201"),
                [("47190", date(2010, 1, 4)), ("62010", date(2015, 8, 3))],
            ),
            CvaPlan(True, 3, 15),
        ),
        SandboxTaxpayer(cede, CvaPlan(True, 9, 27)),
        SandboxTaxpayer(
            entity(
                DGI_RUT,
                "DIRECCION GENERAL IMPOSITIVA",
                "DGI",
                "70",
                "AA",
                date(1990, 1, 2),
                date(2012, 1, 2),
                dgi_address,
                [("84110", date(1990, 1, 2))],
            ),
            CvaPlan(True, 1, 2),
        ),
        SandboxTaxpayer(
            entity(
                INACTIVE_RUT,
                "FRIGORIFICO LA BLANQUEADA S.A.",
                "LA BLANQUEADA",
                "9",
                "CL",
                date(1988, 4, 12),
                None,
                addr(
                    "AV. GENERAL RIVERA",
                    "3320",
                    "MONTEVIDEO",
                    10,
                    "11300",
                    "ADMINISTRACION@LABLANQUEADA.COM.UY",
                    "27091234",
                ),
                [("46900", date(1988, 4, 12))],
            ),
            CvaPlan(False, 6, 1),
        ),
        SandboxTaxpayer(
            entity(
                EXPIRED_CVA_RUT,
                "TRANSPORTES DEL LITORAL S.R.L.",
                None,
                "8",
                "AA",
                date(2003, 2, 17),
                date(2018, 3, 1),
                addr(
                    "LEANDRO GOMEZ", "1120", "PAYSANDU", 11, "60000", "ADMINISTRACION@TRANSLITORAL.COM.UY", "47223344"
                ),
                [("49230", date(2003, 2, 17))],
            ),
            CvaPlan(False, 4, 20),
        ),
        SandboxTaxpayer(
            entity(
                NOT_EMISOR_RUT,
                "PANADERIA EL HORNERO S.R.L.",
                "EL HORNERO",
                "8",
                "AA",
                date(1999, 10, 5),
                None,
                addr("25 DE MAYO", "145", "ROCHA", 14, "27000", "ELHORNERO@ADINET.COM.UY", "44721122"),
                [("10710", date(1999, 10, 5))],
            ),
            CvaPlan(True, 11, 5),
        ),
        SandboxTaxpayer(
            entity(
                NO_CVA_RUT,
                "SISTEMAS ARAZATI S.A.S.",
                "ARAZATI",
                "44",
                "AA",
                date(2021, 5, 3),
                date(2021, 6, 1),
                addr("25 DE AGOSTO", "612", "SAN JOSE DE MAYO", 16, "80000", "HOLA@ARAZATI.COM.UY", "43429876"),
                [("62010", date(2021, 5, 3)), ("63110", date(2023, 1, 9))],
            ),
            None,
        ),
        SandboxTaxpayer(
            entity(
                INDIVIDUAL_RUT,
                "GONZALEZ PEREZ MARIA FERNANDA",
                "ESTUDIO CONTABLE GONZALEZ",
                "1",
                "AA",
                date(2014, 7, 1),
                date(2019, 2, 1),
                addr("SARANDI", "870", "MALDONADO", 9, "20000", "MFGONZALEZ@ADINET.COM.UY", "42225566", apto="302"),
                [("69200", date(2014, 7, 1))],
            ),
            CvaPlan(True, 7, 1),
            (DocType.CI, INDIVIDUAL_CI),
            "GONZALEZ PEREZ MARIA FERNANDA",
        ),
        SandboxTaxpayer(
            entity(
                SUSPENDED_RUT,
                "BAR EL MIRADOR S.R.L.",
                "EL MIRADOR",
                "8",
                "SU",
                date(2011, 12, 1),
                None,
                addr("18 DE JULIO", "233", "TACUAREMBO", 18, "45000", "ELMIRADOR@VERA.COM.UY", "46324455"),
                [("56301", date(2011, 12, 1))],
            ),
            None,
        ),
    ]


@cache
def taxpayers() -> Mapping[str, SandboxTaxpayer]:
    """Every sandbox taxpayer by RUT (built once per process)."""
    rng = random.Random(SEED)
    fixtures = _fixtures()
    used = {t.entity.rut for t in fixtures} | set(OTHER_DGI_TEST_RUTS) | {UNKNOWN_RUT}
    used_ci = {INDIVIDUAL_CI[:-1], PERSON_CI[:-1], PERSON_NIE[1:-1], UNKNOWN_CI[:-1]}
    kinds = [
        k
        for k, weight in (
            ("sa", 25),
            ("srl", 20),
            ("sas", 14),
            ("cooperativa", 6),
            ("civil", 8),
            ("colectiva", 4),
            ("unipersonal", 23),
        )
        for _ in range(weight)
    ]
    result = {t.entity.rut: t for t in fixtures}
    # DGI's other published example RUTs get generated profiles (their real holders are not modelled).
    planned = [(rut, rng.choice(("sa", "srl"))) for rut in OTHER_DGI_TEST_RUTS]
    while len(planned) < len(OTHER_DGI_TEST_RUTS) + GENERATED_COUNT:
        seq = rng.randint(1, 999999)
        prefix = rng.choice(("21",) * 8 + ("02", "10", "12", "17", "20"))
        rut = _rut(prefix, seq)
        if rut and rut not in used and not (prefix == "21" and 555000 <= seq <= 555999):
            used.add(rut)
            planned.append((rut, rng.choice(kinds)))
    heavy = [9] * 40 + [1] * 12 + [8] * 8 + list(range(19))  # Montevideo, Canelones, Maldonado weigh more
    for index, (rut, kind) in enumerate(planned):
        dept = index % 19 if index < 38 else rng.choice(heavy)  # every department appears at least twice
        ci = None
        while kind == "unipersonal" and (ci is None or ci[:-1] in used_ci):
            ci = _ci(rng.randint(1_000_000, 6_999_999))
        if ci:
            used_ci.add(ci[:-1])
        taxpayer = _generate_one(rng, rut, dept, kind, ci)
        if rut in OTHER_DGI_TEST_RUTS:  # keep DGI's examples usable: active, issuing, certificate current
            entity = replace(
                taxpayer.entity,
                estado_actividad="AA",
                estado_actividad_descripcion="ACTIVO",
                emisor_electronico=True,
                emisor_electronico_desde=max(taxpayer.entity.fecha_inicio_actividad or date.min, date(2013, 6, 3)),
            )
            taxpayer = SandboxTaxpayer(entity, CvaPlan(True, 5, 10))
        result[rut] = taxpayer
    # The demo's second company (portal/service/seed.py) as DGI knows it, so that a receipt the first one issues
    # to it names it as it names itself. Replaced after the draws, which every other taxpayer keeps.
    result[NORTE_RUT] = SandboxTaxpayer(_norte(result[NORTE_RUT].entity), CvaPlan(True, 5, 10))
    return result


def _norte(drawn: Entity) -> Entity:
    return replace(
        drawn,
        denominacion="COMERCIAL DEL NORTE S.R.L.",
        nombre_fantasia="DEL NORTE",
        tipo_entidad="8",
        tipo_entidad_descripcion=cat.ENTITY_TYPES["8"],
        domicilio_fiscal=Address(
            "URUGUAY",
            "456",
            None,
            "SALTO",
            15,
            "SALTO",
            "50000",
            (Contact("CORREO ELECTRONICO", "ADMIN@DELNORTE.UY"), Contact("TELEFONO FIJO", "47321234")),
        ),
        actividades=(Activity("46900", _ACTIVITY_NAMES["46900"], drawn.fecha_inicio_actividad or date(2011, 11, 27)),),
    )


@cache
def people() -> Mapping[tuple[DocType, str], str]:
    """Names registered for NIE and CI numbers: the titulars of unipersonals and people without RUT."""
    rng = random.Random(SEED + 1)
    names = {(DocType.CI, PERSON_CI): "RODRIGUEZ SILVA JUAN CARLOS", (DocType.NIE, PERSON_NIE): "SCHMIDT ANNA"}
    for taxpayer in taxpayers().values():
        if taxpayer.titular:
            names[taxpayer.titular] = taxpayer.titular_nombre or taxpayer.entity.denominacion
    # cédula bodies already used (a NIE is "9" + a cédula)
    taken = {number[-8:-1] if kind == DocType.NIE else number[:-1] for kind, number in names}
    taken.add(UNKNOWN_CI[:-1])
    while len(names) < 80:
        body = rng.randint(1_000_000, 6_999_999)
        if str(body) not in taken:
            taken.add(str(body))
            names[(DocType.CI, _ci(body))] = _person(rng)
    return names
