"""Writes of the accounts: keyword-only, typed, atomic."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.errors import RegistrationError
from accounts.validators import validate_not_confusable

#: Names that would collide with the account pages (``/accounts/<name>/``).
RESERVED_USERNAMES = frozenset({"login", "logout", "signup", "password"})



@transaction.atomic
def register_user(*, username: str, password: str) -> AbstractBaseUser:
    """Create a player account after Django's password validators; ``RegistrationError``."""
    user_model = get_user_model()
    username = user_model.normalize_username(username)
    errors: dict[str, list[str]] = {}
    try:
        user_model.username_validator(username)
        validate_not_confusable(username)
    except ValidationError as exc:
        errors["username"] = list(exc.messages)
    if username.lower() in RESERVED_USERNAMES:
        errors.setdefault("username", []).append(_("This username is reserved."))
    if user_model._default_manager.filter(username__iexact=username).exists():
        errors.setdefault("username", []).append(_("This username is already taken."))
    try:
        validate_password(password, user=user_model(username=username))
    except ValidationError as exc:
        errors["password"] = list(exc.messages)
    if errors:
        raise RegistrationError(errors)
    return user_model._default_manager.create_user(username=username, password=password)
