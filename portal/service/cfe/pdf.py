"""The printed representation of a CFE ("Formato de la representación impresa", CFE v25 pp. 79-85).

`render_pdf(printable, logo=..., paper=...)` draws a `Printable` (read from the XML, see printable.py) on A4
here, or on an 80 or 57 mm thermal roll (pdf_roll.py). docs/PRINTED-FORMAT.md lists DGI's requirements one
by one with where and how each is met.

A4: every page repeats the issuer (top left), the document box (RUC, type, serie and number, forma de pago;
top right), the receiver, "Página X de N", the QR and security code; the rest of the footer (legends, CAE,
expiry box) prints on the last page, as DGI asks. A preview prints "SIN VALOR FISCAL" across every page and
carries no number, CAE or QR.
"""

from __future__ import annotations

from dataclasses import replace

from portal.service.cfe import fonts, pdf_body
from portal.service.cfe import pdf_text as words
from portal.service.cfe.emission import Issuer
from portal.service.cfe.fonts import FontSet
from portal.service.cfe.model import CfeInput
from portal.service.cfe.pdf_base import check_paper
from portal.service.cfe.pdf_roll import render_roll
from portal.service.cfe.printable import Printable, from_input, from_xml, texts

LEFT, RIGHT, TOP, PAGE_W, PAGE_H = 10.0, 200.0, 10.0, 210.0, 297.0
BOX_X = 116.0  # the document box, top right
RECEIVER_BOX_W = 82.0  # the receiver's box (RUC COMPRADOR, CONSUMO FINAL, ...), left under the issuer
RECEIVER_TOP, BODY_TOP = 60.0, 80.0  # the usual header; a long issuer block or regime box moves both down
FOOTER_LINE = 247.0  # the body never goes below FOOTER_LINE - 1
QR_SIZE, QR_CLEAR = 25.0, 3.5  # DGI: 22 to 30 mm, at least 3 mm clear on every side
LOGO_H = 16.0
M, T = words.MANDATORY_PT, words.TEXT_PT


def render_receipt(
    xml: bytes,
    issuer: Issuer,
    *,
    adenda: str | None = None,
    security_code: str | None = None,
    qr_url: str | None = None,
    logo: bytes | None = None,
    paper: str = "a4",
    bilingual: bool | None = None,
) -> bytes:
    """A signed receipt printed from its signed XML; `issuer` is the settings snapshot taken when it was
    issued, `adenda` the stored adenda, `security_code`/`qr_url` the stored ones (else read from the XML);
    `bilingual` as render_pdf's."""
    printable = from_xml(xml, issuer, adenda=adenda, security_code=security_code, qr_link=qr_url)
    return render_pdf(printable, logo=logo, paper=paper, bilingual=bilingual)


def render_preview(cfe: CfeInput, issuer: Issuer, *, logo: bytes | None = None, paper: str = "a4") -> bytes:
    """A draft watermarked SIN VALOR FISCAL: no number, CAE or QR."""
    return render_pdf(from_input(cfe, issuer), logo=logo, paper=paper)


def bilingual_by_default(doc: Printable) -> bool:
    """A receiver abroad (its document's country is not Uruguay) reads the labels in English too."""
    return doc.receiver is not None and doc.receiver.pais not in (None, "UY")


def render_pdf(doc: Printable, *, logo: bytes | None = None, paper: str = "a4", bilingual: bool | None = None) -> bytes:
    """The receipt as PDF bytes: A4, or a thermal roll ("80mm", "57mm") for e-Tickets and their notes.
    `bilingual`: labels in Spanish and English (A4); None: for a receiver abroad."""
    wanted = bilingual_by_default(doc) if bilingual is None else bilingual
    if wanted != doc.bilingual and paper == "a4":
        doc = replace(doc, bilingual=wanted)
    if not doc.preview and (doc.nro is None or doc.cae is None or not doc.qr_url or not doc.security_code):
        raise ValueError("Un comprobante firmado necesita numeración, CAE, código de seguridad y QR.")
    check_paper(doc.tipo_cfe, paper)
    font = fonts.for_texts(texts(doc))
    if paper != "a4":
        return render_roll(doc, logo=logo, width=float(paper.removesuffix("mm")), font=font)
    pdf = _A4(doc, logo, font)
    pdf_body.draw_body(pdf)
    pdf.last_page = True  # close() draws the last footer: the full one
    return bytes(pdf.output())


class _A4(pdf_body.BodyPage):
    def __init__(self, doc: Printable, logo: bytes | None, font: FontSet):
        super().__init__("A4", font)
        self.doc, self.logo_bytes, self.last_page = doc, logo, False
        self.columns: list[tuple[str, float, str]] = []
        self.set_margins(LEFT, TOP, PAGE_W - RIGHT)
        self.set_auto_page_break(True, margin=PAGE_H - FOOTER_LINE + 1)
        self.set_title(f"{doc.name} {words.number_text(doc)}")
        self._plan_issuer()
        self._plan_document()
        self._plan_receiver()
        self.add_page()

    # -- repeated on every page ------------------------------------------------------------------------
    def header(self) -> None:
        if self.doc.preview:
            self._watermark()
        self._issuer()
        self._document_box()
        self._receiver()
        self.set_y(self.body_top)
        if self.columns:
            self.table_header()

    def _watermark(self) -> None:
        self.set_text_color(215, 215, 215)
        self.use_font(64, bold=True)
        text = "SIN VALOR FISCAL"
        width = self.get_string_width(text)
        with self.rotation(angle=55, x=105, y=150):
            self.text(105 - width / 2, 150 + 8, text)
        self.set_text_color(0, 0, 0)

    def _plan_issuer(self) -> None:
        """Lay out the issuer block once: DGI's order (name, nombre comercial, domicilio fiscal), then
        phone, e-mail, giro and branch while there is room, and the regime box. The receiver (and the body)
        move down when the mandatory lines and the box need more than the usual header."""
        issuer, width = self.doc.emisor, BOX_X - LEFT - 4
        box = words.regime_box(self.doc)
        self.box_lines = self.lines_of(box, width - 2, M, bold=True) if box else []
        self.box_h = max(len(self.box_lines) * 5.5 + 2, 10.5) if box else 0.0  # DGI: at least 4 x 1 cm
        names = self.lines_of(issuer.razon_social, width, 12, bold=True)
        self.name_pt: float
        self.name_h: float
        self.name_pt, self.name_h = (12, 5.5) if len(names) <= 2 else (9.5, 4.4)  # 150 characters: 3 lines
        self.names = names if len(names) <= 2 else self.lines_of(issuer.razon_social, width, 9.5, bold=True)[:3]
        self.mandatory = [
            part
            for text in (issuer.nombre_comercial, issuer.domicilio, f"{issuer.ciudad} - {issuer.departamento}")
            if text
            for part in self.lines_of(text, width)
        ]
        contact = " · ".join(v for v in (issuer.telefono, issuer.correo) if v)
        self.optional = [
            v for v in (contact, issuer.giro, f"Sucursal: {issuer.sucursal}" if issuer.sucursal else None) if v
        ]
        needed = TOP + len(self.names) * self.name_h + len(self.mandatory) * 4.2 + (self.box_h + 2 if box else 0) + 3
        self.receiver_top = max(RECEIVER_TOP, needed)
        self.body_top = self.receiver_top + BODY_TOP - RECEIVER_TOP

    def _issuer(self) -> None:
        """The planned issuer block; the logo above it gets the room left (at most 16 mm; none under 8 mm)."""
        width = BOX_X - LEFT - 4
        limit = self.receiver_top - 3 - (self.box_h + 2 if self.box_h else 0)
        y = TOP
        logo_room = min(LOGO_H, limit - TOP - len(self.names) * self.name_h - len(self.mandatory) * 4.2 - 2)
        if self.logo_bytes and logo_room >= 8:  # DGI: at the top, at most a fifth of the page
            y += self.logo(self.logo_bytes, LEFT, TOP, width - 2, logo_room) + 2
        for line in self.names:
            self.put(LEFT, y, width, line, size=self.name_pt, bold=True, h=self.name_h)
            y += self.name_h
        for index, line in enumerate(self.mandatory + self.optional):
            if index >= len(self.mandatory) and y + 4.2 > limit:
                break
            self.put(LEFT, y, width, line)
            y += 4.2
        if self.box_lines:  # DGI: a box of at least 4 x 1 cm, characters of 3 mm, before the receiver
            top = self.receiver_top - 3 - self.box_h
            self.rect(LEFT, top, width - 2, self.box_h)
            first = top + (self.box_h - len(self.box_lines) * 5.5) / 2
            for index, line in enumerate(self.box_lines):
                self.put(LEFT, first + index * 5.5, width - 2, line, size=M, bold=True, align="C", h=5.5)

    def _plan_document(self) -> None:
        """The type's name as it fits the document box at 3 mm: with "NC"/"ND" (DGI allows them), then over
        two lines (a sale on behalf of others with "Cobranza" after it). The receiver and the body move down
        when the box needs the room."""
        w = RIGHT - BOX_X
        self.title_lines = self.lines_of(self.fitted_title(words.type_title(self.doc), w), w, M, bold=True)
        rows = 2 + len(self.title_lines) + (1 if self.doc.fma_pago else 0)  # RUC, title, number, forma de pago
        needed = TOP + 5 + rows * 5.8 + 0.8 + len(self._facts()) * 4.2 + 1 + 3  # the facts, the frame, a gap
        if needed > self.receiver_top:
            self.body_top += needed - self.receiver_top
            self.receiver_top = needed

    def _facts(self) -> list[str]:
        """The document box's smaller lines: date, payment due date, currency and rate (or transfer kind)."""
        doc = self.doc
        facts = [f"{words.bi(doc, 'Fecha')}: {words.day(doc.fch_emis)}"]
        if doc.fch_venc:
            facts.append(f"{words.bi(doc, 'Vencimiento del pago')}: {words.day(doc.fch_venc)}")
        if doc.element == "eRem":
            kind = words.TIPO_TRASLADO.get(doc.tipo_traslado, "") if doc.tipo_traslado is not None else ""
            facts.append(f"Tipo de traslado: {kind}")
        elif doc.tpo_moneda:
            rate = f"  ·  {words.bi(doc, 'T.C.')} {words.number(doc.tpo_cambio, 3)}" if doc.tpo_cambio else ""
            facts.append(f"{words.bi(doc, 'Moneda')}: {doc.tpo_moneda}{rate}")
        if doc.fch_valor:
            facts.append(f"Fecha valor: {words.day(doc.fch_valor)}")
        return facts[:3]

    def _document_box(self) -> None:
        doc, x, w = self.doc, BOX_X, RIGHT - BOX_X
        self.put(x, TOP + 1, w, "RUC EMISOR", align="C", h=4)
        rows = [doc.emisor.rut, *self.title_lines, words.number_text(doc)]
        if doc.fma_pago:
            rows.append(self._payment_form(w))
        y = TOP + 5
        for row in rows:
            self.put(x, y, w, row, size=M, bold=True, align="C", h=5.8)
            y += 5.8
        y += 0.8
        for fact in self._facts():
            self.put(x + 2, y, w - 4, fact)
            y += 4.2
        self.rect(x, TOP, w, self.receiver_top - 3 - TOP)

    def _payment_form(self, width: float) -> str:
        """ "Forma de pago: Contado" (DGI's item); bilingual, the value in English too, and the label left out
        when both do not fit at 3 mm."""
        value = words.bi(self.doc, words.FMA_PAGO[self.doc.fma_pago or 1])
        self.use_font(M, bold=True)
        text = f"Forma de pago: {value}"
        return text if self.get_string_width(text) <= width - 2 * self.c_margin else value

    def _plan_receiver(self) -> None:
        """Lay out the receiver once: its document wrapped inside the box (a buyer abroad's runs to 20
        characters after its kind and country: two lines at 3 mm), and beside it every line of the name,
        address and place. The body moves down when they need more than the usual room: a long name never
        pushes out the address or the country."""
        doc, receiver = self.doc, self.doc.receiver
        document = words.receiver_document(doc)
        self.receiver_document = self.lines_of(document, RECEIVER_BOX_W - 2, M, bold=True) if document else []
        self.receiver_box_h = max(1 + 5.8 * (1 + len(self.receiver_document)) + 0.9, 10.5)  # DGI: >= 4 x 1 cm
        self.receiver_lines: list[tuple[str, bool]] = []
        if receiver is not None:
            place = ", ".join(v for v in (receiver.ciudad, receiver.depto, receiver.pais_nombre) if v)
            order = f"{words.bi(doc, 'Orden de compra')}: {receiver.compra_id}" if receiver.compra_id else None
            width = RIGHT - LEFT - RECEIVER_BOX_W - 3
            self.receiver_lines = [
                (part, bold)
                for text, bold in ((receiver.nombre, True), (receiver.direccion, False), (place, False), (order, False))
                if text
                for part in self.lines_of(text, width, bold=bold)
            ]
        needed = max(self.receiver_box_h, len(self.receiver_lines) * 4.2) + 3
        self.body_top = max(self.body_top, self.receiver_top + needed)

    def _receiver(self) -> None:
        doc, y = self.doc, self.receiver_top
        self.rect(LEFT, y, RECEIVER_BOX_W, self.receiver_box_h)
        self.put(LEFT + 1, y + 1, RECEIVER_BOX_W - 2, words.receiver_title(doc), size=M, bold=True, h=5.8)
        for row, text in enumerate(self.receiver_document, start=1):
            self.put(LEFT + 1, y + 1 + row * 5.8, RECEIVER_BOX_W - 2, text, size=M, bold=True, h=5.8)
        x, width = LEFT + RECEIVER_BOX_W + 3, RIGHT - LEFT - RECEIVER_BOX_W - 3
        for row, (text, bold) in enumerate(self.receiver_lines):
            self.put(x, y + row * 4.2, width, text, bold=bold)

    def footer(self) -> None:
        doc, line = self.doc, FOOTER_LINE
        self.line(LEFT, line, RIGHT, line)
        # cell(), not put(): fpdf replaces the {nb} alias (total pages) only in cells.
        self.use_font(T)
        self.set_xy(150, line + 36)
        page_of = f"Página {self.page_no()} de {{nb}}"
        if doc.bilingual:
            page_of += f" / Page {self.page_no()} of {{nb}}"
        self.cell(RIGHT - 150, 4.2, page_of, align="R")
        if doc.preview:
            self.put(
                LEFT,
                line + 6,
                RIGHT - LEFT,
                "Vista previa: SIN VALOR FISCAL. No es un comprobante.",
                size=M,
                bold=True,
                align="C",
                h=6,
            )
            return
        assert doc.qr_url is not None  # every receipt but a preview has its QR
        qr_top = line + QR_CLEAR
        self.qr(doc.qr_url, LEFT, qr_top, QR_SIZE)
        # DGI: under the QR, the legend "Código de seguridad" and the first 6 characters of the hash.
        self.put(LEFT, qr_top + QR_SIZE + QR_CLEAR, 60, f"Código de seguridad: {doc.security_code}", bold=True, h=4.2)
        if not self.last_page:  # DGI: the rest of the footer only on the last page
            return
        text_x = LEFT + QR_SIZE + QR_CLEAR + 1
        legends = [
            words.issuer_legend(doc),
            words.verification_phrase(doc),
            words.iva_al_dia(doc),
            *words.cae_lines(doc),
        ]
        y = qr_top
        for legend in (v for v in legends if v):
            self.put(text_x, y, 150 - 3 - text_x, legend)
            y += 4.2
        self._expiry_box(150, qr_top)

    def _expiry_box(self, x: float, y: float) -> None:
        """DGI: a box of at least 2 x 1 cm reading "Fecha de vencimiento" and the date, 3 mm characters."""
        cae = self.doc.cae
        assert cae is not None  # drawn for a numbered receipt, never a preview
        self.rect(x, y, RIGHT - x, 15)
        self.put(x, y + 1, RIGHT - x, "Fecha de vencimiento", size=M, align="C", h=6)
        self.put(x, y + 7.5, RIGHT - x, f"CAE {words.day(cae.fec_venc)}", size=M, bold=True, align="C", h=6)
