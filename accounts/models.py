"""Models of the accounts app: a player's rating per game and its history.

Ratings are OpenSkill (Plackett-Luce) ``mu``/``sigma`` pairs, one per user and game
(``games.Game.game_name``); only rated tables change them, once per game
(``games.ratings.services.record_result``).  ``RatingChange`` rows are the history: one per
player and game, unique, so a second update of the same game cannot be stored.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def display_rating(mu: float, sigma: float) -> int:
    """The number shown to people: the conservative estimate ``mu - 3 sigma``, scaled.

    A newcomer (25, 25/3) shows ``RATING_DISPLAY_BASE`` (1500 by default); each point of
    the estimate is worth ``RATING_DISPLAY_SCALE`` (40) shown points.
    """
    base = getattr(settings, "RATING_DISPLAY_BASE", 1500)
    scale = getattr(settings, "RATING_DISPLAY_SCALE", 40)
    return round(base + scale * (mu - 3 * sigma))


class Rating(models.Model):
    """One player's current rating in one game.

    Rated games and wins are not kept here: they are counted from the result record
    (``games.results.selectors``), the one place every page and the API read them from.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(_("game"), max_length=32)
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    #: The conservative display number (``display_rating``), stored so boards sort in SQL.
    rating = models.IntegerField(_("rating"), db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_per_user_and_game")
        ]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")

    def __str__(self) -> str:
        return f"{self.user_id} {self.game} {self.rating}"


class RatingChange(models.Model):
    """What one finished rated game did to one player's rating (the history graph)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE,
                             related_name="rating_changes")
    game_name = models.CharField(_("game"), max_length=32)
    seat = models.PositiveSmallIntegerField(_("seat"))
    #: 1 for the best place; ties share a rank.
    rank = models.PositiveSmallIntegerField(_("rank"))
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    rating_before = models.IntegerField(_("rating before"))
    rating_after = models.IntegerField(_("rating after"))
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            # Exactly once: a game changes a player's rating at most one time.
            models.UniqueConstraint(fields=["game", "user"], name="one_rating_change_per_game"),
        ]
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")

    def __str__(self) -> str:
        return f"{self.user_id} game {self.game_id}: {self.rating_before} -> {self.rating_after}"


class Preferences(models.Model):
    """What a person wants to be told, and how."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    #: E-mail when it becomes my turn in a correspondence game (on unless turned off).
    turn_emails = models.BooleanField(
        _("e-mail me when it is my turn in a correspondence game"), default=True
    )
    #: The language chosen with the header's switcher while logged in ("": none yet): it
    #: is applied at every log-in and used for the mails we send.
    language = models.CharField(_("language"), max_length=8, blank=True, default="",
                                choices=settings.LANGUAGES)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"


def set_turn_emails(*, user, enabled: bool) -> Preferences:
    """Turn ``user``'s turn mails on or off (the one write of this model)."""
    prefs, _created = Preferences.objects.update_or_create(
        user=user, defaults={"turn_emails": enabled}
    )
    return prefs


def set_language(*, user, language: str) -> Preferences | None:
    """Remember ``language`` (one of ``settings.LANGUAGES``) as ``user``'s language; ``None``
    and nothing stored for any other code."""
    if language not in dict(settings.LANGUAGES):
        return None
    prefs, _created = Preferences.objects.update_or_create(
        user=user, defaults={"language": language}
    )
    return prefs


def language_of(user) -> str:
    """``user``'s remembered language, or ``settings.LANGUAGE_CODE``."""
    code = (Preferences.objects.filter(user=user).values_list("language", flat=True).first()
            if user is not None and user.pk else "")
    return code or settings.LANGUAGE_CODE


class UsernameSkeleton(models.Model):
    """A username's look (its UTS #39 skeletons, ``accounts.validators``), indexed so a
    sign-up finds a look-alike among any number of people in one query."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    key = models.CharField(max_length=600, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"],
                                               name="unique_username_skeleton")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"
