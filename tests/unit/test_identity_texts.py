"""The identity provider's own pages' texts (identity/texts.py): every text said in both languages."""

from portal.service.identity.texts import TEXTS


def test_every_text_of_the_provider_s_pages_is_there_in_spanish_and_in_english():
    assert set(TEXTS) == {"es", "en"}
    assert set(TEXTS["es"]) == set(TEXTS["en"])
    assert all(text.strip() for language in TEXTS.values() for text in language.values())
