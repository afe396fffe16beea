"""The printed representation of a CFE ("Formato de la representación impresa", CFE v25 pp. 79-85), A4.

Every page repeats the issuer (top left), the document box (RUC, type, serie and number, forma de pago,
date; top right), the receiver, "Página X de N" and the footer with QR, security code and CAE. The QR
image is made once per receipt and embedded once. A preview prints "SIN VALOR FISCAL" across every page
and carries no number, CAE or QR.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from decimal import Decimal

import segno
from fpdf import FPDF
from fpdf.enums import MethodReturnValue, XPos, YPos

from portal.domain.cfe_types import cfe_type
from portal.service.cfe import pdf_body
from portal.service.cfe import pdf_text as words
from portal.service.cfe.amounts import Totals
from portal.service.cfe.emission import Issuer, Numbering
from portal.service.cfe.fonts import FontSet, font_set
from portal.service.cfe.model import CfeInput

LEFT, RIGHT, TOP, PAGE_W, PAGE_H = 10.0, 200.0, 10.0, 210.0, 297.0
RECEIVER_TOP, BODY_TOP, FOOTER_TOP = 52.0, 76.0, 256.0
QR_SIZE = 26.0  # DGI: between 22 and 30 mm
LINE = 4.2


@dataclass(frozen=True)
class PrintableCfe:
    """Everything a printed receipt shows. `numbering`, `security_code` and `qr_url` are None in a preview."""

    cfe: CfeInput
    issuer: Issuer
    totals: Totals
    numbering: Numbering | None = None
    security_code: str | None = None
    qr_url: str | None = None
    preview: bool = False


def render_pdf(doc: PrintableCfe) -> bytes:
    """The receipt as PDF bytes."""
    if not doc.preview and (doc.numbering is None or not doc.qr_url or not doc.security_code):
        raise ValueError("Un comprobante firmado necesita numeración, código de seguridad y QR.")
    qr_png = None
    if doc.qr_url and not doc.preview:
        buffer = io.BytesIO()
        segno.make(doc.qr_url, error="m").save(buffer, kind="png", scale=6, border=0)
        qr_png = buffer.getvalue()
    pdf = _ReceiptPdf(doc, font_set(), qr_png)
    pdf.draw_body()
    return bytes(pdf.output())


class _ReceiptPdf(FPDF):
    def __init__(self, doc: PrintableCfe, fonts: FontSet, qr_png: bytes | None):
        super().__init__(orientation="P", unit="mm", format="A4")
        self.doc, self.fontset, self.qr_png = doc, fonts, qr_png
        self.kind = cfe_type(doc.cfe.tipo_cfe)
        self.columns: list[tuple[str, float, str]] = []
        for style, path in (fonts.files or {}).items():
            self.add_font(fonts.family, style, str(path))
        for font in self.fonts.values():
            # Skips re-encoding every glyph when fpdf2 subsets the font at output (bounding boxes of the
            # pre-subset DejaVu are already right): a third of the font cost of a receipt.
            if hasattr(font, "ttfont"):
                font.ttfont.recalcBBoxes = False
        self.set_margins(LEFT, TOP, PAGE_W - RIGHT)
        self.set_auto_page_break(True, margin=PAGE_H - FOOTER_TOP + 2)
        self.set_title(f"{self.kind.name_es} {self._number_text()}")
        self.set_creator("CFE portal")
        self.add_page()

    # -- small helpers -------------------------------------------------------------------------------
    def _font(self, size: float, bold: bool = False) -> None:
        self.set_font(self.fontset.family, "B" if bold else "", size)

    def _put(self, x: float, y: float, w: float, text: str, size: float = 8, bold: bool = False,
             align: str = "L", h: float = LINE) -> None:
        """One line of text in the box (x, y, w, h), aligned like fpdf's cell() but about twice as fast:
        a receipt draws over a thousand of these."""
        self._font(size, bold)
        text = self.fontset.clean(text)
        room = w - 2 * self.c_margin
        width = self.get_string_width(text)
        if width > room:  # cut rather than spill over a neighbouring box
            while text and self.get_string_width(text + "...") > room:
                text = text[:-1]
            text += "..."
            width = self.get_string_width(text)
        if align == "R":
            left = x + w - self.c_margin - width
        elif align == "C":
            left = x + (w - width) / 2
        else:
            left = x + self.c_margin
        self.text(left, y + 0.5 * h + 0.3 * self.font_size, text)

    def _number_text(self) -> str:
        numbering = self.doc.numbering
        if self.doc.preview or numbering is None:
            return "Serie/Nro: (preview)"
        return f"Serie {numbering.serie} Nº {numbering.nro:07d}"

    # -- repeated on every page ------------------------------------------------------------------------
    def header(self) -> None:
        if self.doc.preview:
            self._watermark()
        self._issuer()
        self._document_box()
        self._receiver()
        self.set_y(BODY_TOP)
        if self.columns:
            self._table_header()

    def _watermark(self) -> None:
        self.set_text_color(215, 215, 215)
        self._font(64, bold=True)
        text = "SIN VALOR FISCAL"
        width = self.get_string_width(text)
        with self.rotation(angle=55, x=105, y=150):
            self.text(105 - width / 2, 150 + 8, text)
        self.set_text_color(0, 0, 0)

    def _issuer(self) -> None:
        issuer = self.doc.issuer
        self.set_xy(LEFT, TOP)
        self._font(12, bold=True)
        self.multi_cell(105, 5.5, self.fontset.clean(issuer.razon_social), new_x=XPos.LMARGIN, new_y=YPos.NEXT,
                        max_line_height=5.5)
        lines = [issuer.nombre_comercial, issuer.domicilio_fiscal,
                 f"{issuer.ciudad} - {issuer.departamento}",
                 " · ".join(v for v in (issuer.telefono, issuer.correo) if v), issuer.giro,
                 f"Sucursal: {issuer.sucursal}" if issuer.sucursal else None]
        y = self.get_y() + 0.5
        for index, line in enumerate(v for v in lines if v):
            if y + LINE > RECEIVER_TOP:  # a long razón social leaves less room; the receiver box stays put
                break
            self._put(LEFT, y, 105, line, size=9 if index == 0 and issuer.nombre_comercial else 8)
            y += LINE

    def _document_box(self) -> None:
        x, w, cfe = 122.0, RIGHT - 122.0, self.doc.cfe
        self.rect(x, TOP, w, 40)
        self._put(x, TOP + 1, w, "RUC EMISOR", size=7, align="C")
        self._put(x, TOP + 4.5, w, self.doc.issuer.rut, size=12, bold=True, align="C", h=5)
        self._put(x, TOP + 10.5, w, self.kind.name_es, size=11, bold=True, align="C", h=5)
        self._put(x, TOP + 16.5, w, self._number_text(), size=10, bold=True, align="C", h=5)
        facts = [f"Fecha: {words.day(cfe.fch_emis)}"]
        if cfe.fma_pago:
            facts.append(f"Forma de pago: {words.FMA_PAGO[cfe.fma_pago]}")
        if cfe.fch_venc:
            facts.append(f"Vencimiento: {words.day(cfe.fch_venc)}")
        if self.kind.element == "eRem":
            facts.append(f"Tipo de traslado: {words.TIPO_TRASLADO.get(cfe.tipo_traslado, '')}")
        else:
            rate = f"  ·  T.C. {words.number(cfe.tpo_cambio, 3)}" if cfe.tpo_cambio else ""
            facts.append(f"Moneda: {cfe.tpo_moneda}{rate}")
        for index, fact in enumerate(facts[:4]):
            self._put(x + 2, TOP + 23 + index * 4, w - 4, fact, size=8)

    def _receiver(self) -> None:
        receptor, y = self.doc.cfe.receptor, RECEIVER_TOP
        consumo_final = self.kind.element == "eTck"
        title = "CONSUMO FINAL" if consumo_final else (
            "RUC COMPRADOR" if receptor and receptor.tipo_doc_recep == 2 else "RECEPTOR")
        self.rect(LEFT, y, RIGHT - LEFT, 20)
        self._put(LEFT + 2, y + 1, 80, title, size=10, bold=True)
        if receptor is None:
            return
        doc_line = ""
        if receptor.doc_recep:
            country = f" ({receptor.cod_pais_recep or 'UY'})" if consumo_final else ""
            doc_line = f"{words.DOC_TYPE.get(receptor.tipo_doc_recep, 'Doc.')}: {receptor.doc_recep}{country}"
        place = ", ".join(v for v in (receptor.dir_recep, receptor.ciudad_recep, receptor.depto_recep,
                                      receptor.pais_recep) if v)
        for index, line in enumerate(v for v in (doc_line, receptor.rzn_soc_recep, place) if v):
            self._put(LEFT + 2, y + 6 + index * LINE, RIGHT - LEFT - 4, line, size=9 if index == 0 else 8,
                      bold=index == 0)
        if receptor.compra_id:
            self._put(120, y + 1, 78, f"Orden de compra: {receptor.compra_id}", size=8, align="R")

    def footer(self) -> None:
        top, text_x = FOOTER_TOP, LEFT + QR_SIZE + 4
        self.line(LEFT, top - 1, RIGHT, top - 1)
        # cell(), not _put(): fpdf replaces the {nb} alias (total pages) only in cells.
        self._font(8)
        self.set_xy(120, top + 27)
        self.cell(RIGHT - 120, LINE, f"Página {self.page_no()} de {{nb}}", align="R",
                  new_x=XPos.RIGHT, new_y=YPos.TOP)
        numbering = self.doc.numbering
        if self.doc.preview or numbering is None:
            self._put(LEFT, top + 4, RIGHT - LEFT, "Vista previa: SIN VALOR FISCAL. No es un comprobante.",
                      size=10, bold=True, align="C")
            return
        if self.qr_png:
            self.image(io.BytesIO(self.qr_png), x=LEFT, y=top + 1, w=QR_SIZE, h=QR_SIZE)
        lines = [(f"Código de seguridad: {self.doc.security_code}", True),
                 ("Puede verificar comprobante en www.dgi.gub.uy", False),
                 (f"CAE Nº {numbering.cae_id}  ·  Serie {numbering.serie}  ·  "
                  f"Nº {numbering.dnro}-{numbering.hnro}", False)]
        if self.doc.issuer.resolucion:
            lines.append((self.doc.issuer.resolucion, False))
        for index, (line, bold) in enumerate(lines):
            self._put(text_x, top + 2 + index * LINE, 110, line, size=8, bold=bold)
        self.rect(158, top + 2, RIGHT - 158, 12)
        self._put(158, top + 3, RIGHT - 158, "Fecha de vencimiento CAE", size=7, align="C")
        self._put(158, top + 8, RIGHT - 158, words.day(numbering.fec_venc), size=10, bold=True, align="C")

    # -- the body --------------------------------------------------------------------------------------
    def draw_body(self) -> None:
        pdf_body.draw_body(self)

    def _table_header(self) -> None:
        x, y = LEFT, self.get_y()
        self.set_fill_color(235, 235, 235)
        self.rect(LEFT, y, RIGHT - LEFT, 5.5, style="F")
        for title, width, align in self.columns:
            self._put(x + 0.5, y + 0.7, width - 1, title, size=8, bold=True, align=align)
            x += width
        self.set_y(y + 7)

    def room(self, height: float) -> None:
        """Start a new page unless `height` millimetres still fit above the footer."""
        if self.get_y() + height > self.page_break_trigger:
            self.add_page()

    def wrapped(self, width: float, text: str, size: float) -> list[str]:
        """`text` split into the lines that fit in `width` at `size` points."""
        self._font(size)
        text = self.fontset.clean(text)
        if self.get_string_width(text) <= width - 2:
            return [text]
        return self.multi_cell(width - 1, LINE, text, dry_run=True, output=MethodReturnValue.LINES)

    def money_line(self, label: str, value: Decimal, bold: bool = False, size: float = 8) -> None:
        """One "label ... amount" line of the totals block, right-aligned."""
        y = self.get_y()
        self._put(110, y, 62, label, size=size, bold=bold, align="R")
        self._put(172, y, RIGHT - 172, words.money(value), size=size, bold=bold, align="R")
        self.set_y(y + (LINE + 1 if size > 8 else LINE))
