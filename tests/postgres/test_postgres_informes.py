"""The IVA sales book and the period view on PostgreSQL, where the amounts are the receipts' numeric columns read
as the driver's Decimals (ventas._amount_source) and the rate only for receipts in another currency: the same
tests as on SQLite, every amount recomputed from the signed XML."""

from __future__ import annotations

from tests.integration.test_informes_compras import (  # noqa: F401  # the purchases book and summary, on PostgreSQL
    purchases,
    test_an_e_boleta_de_entrada_the_company_issued_is_a_purchase_in_the_book,
    test_the_purchases_summary_adds_up_what_the_books_csv_files,
    test_the_purchases_summary_counts_an_e_boleta_de_entrada,
    test_the_purchases_summary_is_the_companys_own_and_its_members,
)
from tests.integration.test_informes_ventas import (  # noqa: F401  # the fixtures and tests, run on PostgreSQL
    month,
    test_a_year_is_drawn_month_by_month,
    test_an_export_invoice_and_its_credit_note_are_sales_in_the_book,
    test_csv_and_xlsx_carry_the_same_book_with_numbers_and_dates,
    test_every_amount_equals_the_signed_xml_and_credit_notes_count_negative,
    test_rejected_receipts_are_listed_apart_and_e_remitos_are_not_sales,
    test_the_period_at_a_glance_adds_up_what_the_book_files,
    user,
)
