"""Forms of the accounts app."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.services import RESERVED_USERNAMES
from accounts.validators import validate_not_confusable


class SignUpForm(UserCreationForm):
    """Username, password (twice, Django's validators) and an optional e-mail address."""

    email = forms.EmailField(
        label=_("E-mail address"),
        required=False,
        help_text=_("Optional. Only used to reset a forgotten password."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_username(self) -> str:
        """Django's checks, no name that is also an account page (``/accounts/login/``),
        and none that looks like someone else's (``accounts.validators``)."""
        username = super().clean_username()
        if username and username.lower() in RESERVED_USERNAMES:
            raise forms.ValidationError(_("This username is reserved."), code="reserved")
        validate_not_confusable(username)  # e.g. "аdmin" with a Cyrillic а
        return username
