"""The receipt on a thermal roll, 80 or 57 mm wide and as long as it needs (issue 11, item 6).

DGI admits thermal paper (at least 200 dpi) for e-Tickets and their notes. Where the paper is too narrow
for the A4 positions, DGI asks for this order instead: issuer, document identification, receiver, body,
footer, and that is the order here, one column. The same rules as A4 hold: 5 mm margins, 3 mm characters
for the mandatory legends and boxes, 2 mm for the rest, the QR at least 22 mm with 3 mm clear all round
and the security code under it. Rules and boxes are 0.3 mm (no hairline a 200 dpi head would drop) and
nothing is grey.

The page is laid out first (a list of rows, each with its height and a painter) and painted once its
length is known, so the PDF is a single page exactly as long as the receipt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from portal.service.cfe import pdf_text as words
from portal.service.cfe.fonts import FontSet
from portal.service.cfe.pdf_base import ReceiptPage
from portal.service.cfe.printable import Printable

MARGIN, LINE, QR_CLEAR = 5.5, 4.2, 3.5  # DGI: 5 mm margins; the extra 0.5 mm holds the frames' ink
M, T = words.MANDATORY_PT, words.TEXT_PT
BIG_LINE = 5.8


@dataclass(frozen=True)
class _Row:
    height: float
    paint: Callable[[float], object]  # draws the row with its top at y (what it answers is not used)


def render_roll(doc: Printable, *, logo: bytes | None, width: float, font: FontSet | None = None) -> bytes:
    roll = _Roll(doc, width, font)
    rows = roll.layout(logo)
    length = MARGIN * 2 + sum(row.height for row in rows)
    roll.add_page(format=(width, length))
    y = MARGIN
    for row in rows:
        row.paint(y)
        y += row.height
    return bytes(roll.output())


class _Roll(ReceiptPage):
    def __init__(self, doc: Printable, width: float, font: FontSet | None = None):
        super().__init__((width, 100.0), font)
        self.doc, self.width, self.inner = doc, width, width - 2 * MARGIN
        self.set_margins(MARGIN, MARGIN, MARGIN)
        self.set_auto_page_break(False)
        self.set_title(f"{doc.name} {words.number_text(doc)}")
        # The QR: 22 to 30 mm by DGI; 28 mm gives 0.57 mm modules, 4.5 dots of a 200 dpi head.
        self.qr_size = min(28.0, self.inner - 2 * QR_CLEAR)

    # -- row makers ----------------------------------------------------------------------------------
    def para(self, text: str, size: float = T, bold: bool = False, align: str = "C") -> list[_Row]:
        height = BIG_LINE if size >= M else LINE

        def row(line: str) -> _Row:
            return _Row(height, lambda y: self.put(MARGIN, y, self.inner, line, size, bold, align, height))

        return [row(line) for line in self.lines_of(text, self.inner, size, bold)]

    def pair(self, label: str, value: str, size: float = T, bold: bool = False) -> list[_Row]:
        """Label left, amount right; on two lines when they do not fit on one."""
        self.use_font(size, bold)
        room = self.inner - 2 * self.c_margin - 2
        height = BIG_LINE if size >= M else LINE
        if self.get_string_width(label) + self.get_string_width(value) <= room:

            def paint(y: float) -> None:
                self.put(MARGIN, y, self.inner, label, size, bold, "L", height)
                self.put(MARGIN, y, self.inner, value, size, bold, "R", height)

            return [_Row(height, paint)]
        return [*self.para(label, size, bold, "L"), *self.para(value, size, bold, "R")]

    def boxed(self, rows: list[_Row], padding: float = 1.0, min_height: float = 10.5) -> list[_Row]:
        """`rows` inside a frame as wide as the roll (at least 4 x 1 cm, as DGI's boxes)."""
        inner = sum(row.height for row in rows) + 2 * padding
        height = max(inner, min_height)

        def paint(y: float) -> None:
            self.rect(MARGIN, y, self.inner, height)
            top = y + (height - inner) / 2 + padding
            for row in rows:
                row.paint(top)
                top += row.height

        return [_Row(height + 1.5, paint)]

    def rule(self) -> list[_Row]:
        return [_Row(3.0, lambda y: self.line(MARGIN, y + 1.5, MARGIN + self.inner, y + 1.5))]

    def gap(self, height: float) -> list[_Row]:
        return [_Row(height, lambda y: None)]

    # -- the receipt, top to bottom ------------------------------------------------------------------
    def layout(self, logo: bytes | None) -> list[_Row]:
        doc = self.doc
        rows: list[_Row] = []
        if logo:
            logo_h = 15.0
            rows.append(_Row(logo_h + 2, lambda y: self.logo(logo, MARGIN, y, self.inner, logo_h, centred=True)))
        if doc.preview:
            rows += self.para("SIN VALOR FISCAL", M, True)
        rows += self._issuer() + self._identification() + self._receiver() + self.rule()
        rows += self._items() + self.rule() + self._totals() + self._extras()
        rows += self.rule() + self._footer()
        if doc.adenda:
            rows += self.gap(5.0) + self.boxed(
                [*self.para("ADENDA", T, True, "L"), *self.para(doc.adenda, T, False, "L")], min_height=0
            )
        return rows

    def _issuer(self) -> list[_Row]:
        issuer = self.doc.emisor
        rows = self.para(issuer.razon_social, 10, True)
        for line in (
            issuer.nombre_comercial,
            issuer.domicilio,
            f"{issuer.ciudad} - {issuer.departamento}",
            issuer.telefono,
            issuer.correo,
            issuer.giro,
            f"Sucursal: {issuer.sucursal}" if issuer.sucursal else None,
        ):
            if line:
                rows += self.para(line)
        box = words.regime_box(self.doc)
        if box:
            rows += self.gap(1.0) + self.boxed(self.para(box, M, True))
        return rows + self.gap(1.0)

    def _identification(self) -> list[_Row]:
        doc = self.doc
        rows = self.para(f"RUC {doc.emisor.rut}", M, True)
        rows += self.para(self.fitted_title(words.type_title(doc), self.inner), M, True)
        rows += self.para(words.number_text(doc), M, True)
        if doc.fma_pago:
            rows += self.para(f"Forma de pago: {words.FMA_PAGO[doc.fma_pago]}", M, True)
        rows += self.para(f"Fecha: {words.day(doc.fch_emis)}")
        if doc.fch_venc:
            rows += self.para(f"Vencimiento del pago: {words.day(doc.fch_venc)}")
        if doc.tpo_moneda:
            rate = f" · T.C. {words.number(doc.tpo_cambio, 3)}" if doc.tpo_cambio else ""
            rows += self.para(f"Moneda: {doc.tpo_moneda}{rate}")
        for legend in words.header_legends(doc):
            rows += self.para(legend, M, True)
        return rows + self.gap(1.0)

    def _receiver(self) -> list[_Row]:
        doc, receiver = self.doc, self.doc.receiver
        inside = self.para(words.receiver_title(doc), M, True)
        document = words.receiver_document(doc)
        if document:
            inside += self.para(document, M, True)
        rows = self.boxed(inside)
        if receiver is not None:
            place = ", ".join(v for v in (receiver.direccion, receiver.ciudad, receiver.depto) if v)
            for line in (receiver.nombre, place):
                if line:
                    rows += self.para(line)
        return rows

    def _items(self) -> list[_Row]:
        doc, rows = self.doc, []
        for line in doc.lines:
            rows += self.para(line.name, T, False, "L")
            if line.codes:
                rows += self.para(f"Cód.: {', '.join(line.codes)}", T, False, "L")
            if line.description:
                rows += self.para(line.description, T, False, "L")
            quantity = words.trimmed(line.quantity or Decimal(0), 0, 3)
            unit = f" {words.unit(line.unit)}" if words.unit(line.unit) else ""
            rate = words.ind_fact_label(doc, line.ind_fact)
            left = f"{quantity}{unit} x {words.trimmed(line.unit_price or Decimal(0), 2, 6)}"
            left += f"  {rate}" if rate else ""
            rows += self.pair(left, words.money(line.amount or Decimal(0)))
            if line.discount:
                rows += self.pair("  Descuento", f"-{words.money(line.discount)}")
            if line.surcharge:
                rows += self.pair("  Recargo", f"+{words.money(line.surcharge)}")
        return rows

    def _totals(self) -> list[_Row]:
        doc, rows = self.doc, []
        for dr in doc.adjustments:
            sign = "-" if dr.kind == "D" else "+"
            rows += self.pair(
                f"{'Descuento' if dr.kind == 'D' else 'Recargo'}: {dr.glosa}", f"{sign}{words.money(dr.value)}"
            )
        for label, value, strong in words.total_rows(doc):
            big = strong and label.startswith("TOTAL A PAGAR")
            rows += self.pair(label, words.money(value), M if big else T, strong)
        return rows

    def _extras(self) -> list[_Row]:
        doc, rows = self.doc, []
        if doc.payments:
            rows += self.gap(1.0) + self.para("Medios de pago", T, True, "L")
            for glosa, value in doc.payments:
                rows += self.pair(glosa, words.money(value))
        if doc.references:
            rows += self.gap(1.0) + self.para("Referencias", T, True, "L")
            for ref in doc.references:
                rows += self.para(words.reference_line(ref), T, False, "L")
        if doc.info_adicional:
            rows += self.gap(1.0) + self.para(doc.info_adicional, T, False, "L")
        return rows

    def _footer(self) -> list[_Row]:
        doc = self.doc
        if doc.preview:
            return self.para("Vista previa: SIN VALOR FISCAL. No es un comprobante.", M, True)
        qr_url, cae = doc.qr_url, doc.cae
        if qr_url is None or cae is None:
            raise ValueError("Un comprobante firmado tiene su QR y su CAE.")
        size = self.qr_size
        rows = [
            _Row(size + 2 * QR_CLEAR, lambda y: self.qr(qr_url, MARGIN + (self.inner - size) / 2, y + QR_CLEAR, size))
        ]
        rows += self.para(f"Código de seguridad: {doc.security_code}", T, True)
        for legend in (
            words.issuer_legend(doc),
            words.verification_phrase(doc),
            words.iva_al_dia(doc),
            *words.cae_lines(doc),
        ):
            if legend:
                rows += self.para(legend)
        rows += self.gap(1.0) + self.boxed(
            [*self.para("Fecha de vencimiento", M), *self.para(f"CAE {words.day(cae.fec_venc)}", M, True)]
        )
        return rows
