from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_save

        from accounts.validators import remember_username

        # Every new or renamed user's look, for the confusable-name check of sign-ups.
        post_save.connect(remember_username, sender=settings.AUTH_USER_MODEL,
                          dispatch_uid="accounts.remember_username")
