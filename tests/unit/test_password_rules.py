"""The rules of a new password at the provider's password change (identity/password_change.problems)."""

from portal.service.identity.password_change import MAX_LENGTH, MIN_LENGTH, problems


def test_a_good_change_has_no_problem():
    assert problems("ana@demo.uy", "la-de-antes", "x" * MIN_LENGTH, "x" * MIN_LENGTH) == {}


def test_each_rule_names_its_field():
    assert problems("ana@demo.uy", "", "x" * MIN_LENGTH, "x" * MIN_LENGTH) == {
        "current_password": "password_current_missing"
    }
    assert problems("ana@demo.uy", "a", "x" * (MIN_LENGTH - 1), "x" * (MIN_LENGTH - 1)) == {
        "new_password": "password_new_short"
    }
    assert problems("ana@demo.uy", "a", "x" * (MAX_LENGTH + 1), "x" * (MAX_LENGTH + 1)) == {
        "new_password": "password_new_long"
    }
    assert problems("ana@demo.uy", "a", "x" * MIN_LENGTH, "y" * MIN_LENGTH) == {"confirm_password": "password_mismatch"}


def test_the_email_is_refused_whatever_its_case_and_spaces():
    email = "Ana.Perez@Demo.uy"
    assert problems(email, "a", " ana.perez@demo.uy ", " ana.perez@demo.uy ") == {"new_password": "password_new_email"}
