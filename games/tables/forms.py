"""The table forms: quick play (one click against the AI) and the full "New table" form (a
variant of any game the browser can play, the player count, what sits in the other seats,
the clock and the departure rule).

The "New table" form shows only what applies to the choices made so far (the seats of the
chosen player count, the clock's own fields, the chosen variant's player counts): the
server renders the other fields hidden and disabled, ``static/js/new_table.js`` shows and
hides them as the choices change (``data-when`` rows), and a submitted form ignores them
(their values and their errors) whatever the browser sent."""

from __future__ import annotations

import uuid
from functools import cached_property
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import AI_LEVEL_CHOICES, Game
from games.tables import clocks
from games.tables.selectors import browser_games


def _ai_seat_label(label: Any) -> str:
    return _("AI — %(level)s") % {"level": label}



# Lazy: the labels are translated when the form is shown, in the reader's language.
SEAT_CHOICES = [("open", gettext_lazy("Open seat (a person)"))] + [
    (f"ai-{level}", lazy(_ai_seat_label, str)(label)) for level, label in AI_LEVEL_CHOICES
]

#: Quick play's AI level unless the person picks another: a first game should be winnable.
QUICK_LEVEL = "easy"

#: The clock fields that apply to each kind of clock (the others are hidden and ignored).
CLOCK_FIELDS = {
    Game.Clock.NONE: (),
    Game.Clock.LIVE: ("reserve_minutes", "increment"),
    Game.Clock.CORRESPONDENCE: ("days",),
}



class QuickPlayForm(forms.Form):
    """Quick play: a game (its standard variant), the player count and the AI's level; the
    other seats are all that AI, the table unrated and without a clock.

    Shown on the home page and the lobby with the prefix ``quick`` (the lobby's "New
    table" form has its own ``num_players``)."""

    game = forms.ChoiceField(label=gettext_lazy("Game"))
    num_players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int)
    level = forms.ChoiceField(label=gettext_lazy("AI level"), choices=AI_LEVEL_CHOICES,
                              initial=QUICK_LEVEL)

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("prefix", "quick")
        super().__init__(*args, **kwargs)
        # A game's quick variant: its "standard" one (listed first), else its first.
        self.games = {game["name"]: game for game in browser_games() if game["variants"]}
        self.fields["game"].choices = [(name, game["title"]) for name, game in self.games.items()]
        if self.games:
            self.fields["game"].initial = next(iter(self.games))
        counts = sorted({n for game in self.games.values()
                         for n in game["variants"][0]["player_counts"]}) or [2]
        self.fields["num_players"].choices = [(n, str(n)) for n in counts]
        self.fields["num_players"].initial = min(counts)

    @classmethod
    def from_query(cls, query: Any) -> QuickPlayForm:
        """The form as a page shows it, its choices taken from ``query`` where it has them
        (a visitor sent to log in comes back to the choices they made)."""
        form = cls()
        initial = {name: query.get(form.add_prefix(name)) for name in form.fields}
        form.initial = {name: value for name, value in initial.items() if value}
        return form

    def query(self) -> str:
        """The choices of a submitted form as a query string for :meth:`from_query` (only
        the known fields: it is put in a ``next`` URL)."""
        return urlencode({self.add_prefix(name): str(self.data.get(self.add_prefix(name), ""))[:32]
                          for name in self.fields})

    def clean(self) -> dict:
        """The choices, the player count refused when the chosen game is not played by it."""
        data = super().clean()
        game = self.games.get(data.get("game", ""))
        count = data.get("num_players")
        if game and count is not None and count not in game["variants"][0]["player_counts"]:
            counts = ", ".join(str(n) for n in game["variants"][0]["player_counts"])
            self.add_error("num_players", _("%(game)s is played by %(counts)s players.")
                           % {"game": game["title"], "counts": counts})
        return data

    @cached_property
    def request_key(self) -> str:
        """A fresh request key for this rendering of the form (``create_game``'s ``key``:
        a double click opens one table)."""
        return uuid.uuid4().hex

    def chosen_variant(self) -> Any:
        """The chosen game's quick variant (its standard one, else its first)."""
        return self.games[self.cleaned_data["game"]]["variants"][0]["variant"]

    def seats(self) -> list[dict]:
        """The seats as ``create_game`` takes them: the person first, the chosen AI after."""
        level = self.cleaned_data["level"]
        return [{"type": "human"}] + [
            {"type": "ai", "level": level} for _seat in range(1, self.cleaned_data["num_players"])
        ]


class CreateTableForm(forms.Form):
    """A variant of any game the browser can play, the player count, and what sits in the
    other seats (seat 1 is the creator; the field of seat N is ``seat_N``)."""

    variant = forms.ChoiceField(label=gettext_lazy("Game and variant"), widget=forms.RadioSelect)
    num_players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int)
    rated = forms.BooleanField(
        label=gettext_lazy("Rated game"), required=False,
        help_text=gettext_lazy("The result changes the players' ratings (AI seats count too)."),
    )
    seats_as_listed = forms.BooleanField(
        label=gettext_lazy("Seat order as listed"), required=False,
        help_text=gettext_lazy("Unrated games only. Otherwise the seat order, and so who "
                               "starts, is drawn at random when the game starts."),
    )
    clock = forms.ChoiceField(label=gettext_lazy("Clock"), choices=Game.Clock.choices,
                              initial=Game.Clock.NONE, required=False)
    reserve_minutes = forms.FloatField(
        label=gettext_lazy("Reserve (minutes)"), required=False, initial=10,
        min_value=0.05, max_value=clocks.MAX_RESERVE / 60,
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text=gettext_lazy("Live clock: each player's time for the whole game."),
    )
    increment = forms.IntegerField(
        label=gettext_lazy("Seconds added per move"), required=False, initial=5,
        min_value=0, max_value=clocks.MAX_INCREMENT,
    )
    days = forms.IntegerField(
        label=gettext_lazy("Days per move"), required=False, initial=3,
        min_value=clocks.MIN_DAYS, max_value=clocks.MAX_DAYS,
        help_text=gettext_lazy("Correspondence clock."),
    )
    # Radio buttons: the rules are sentences, which a drop-down cut off on a narrow form.
    departure_rule = forms.ChoiceField(
        label=gettext_lazy("When a player runs out of time or resigns"),
        choices=Game.DepartureRule.choices, initial=Game.DepartureRule.AI, required=False,
        widget=forms.RadioSelect,
    )
    takeover_level = forms.ChoiceField(
        label=gettext_lazy("AI level that takes over a seat"), choices=AI_LEVEL_CHOICES,
        initial="normal", required=False,
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.games = [game for game in browser_games() if game["variants"]]
        self.variants = {
            str(row["pk"]): (game, row) for game in self.games for row in game["variants"]
        }
        self.fields["variant"].choices = [
            (game["title"], [(str(row["pk"]), row["title"]) for row in game["variants"]])
            for game in self.games
        ]
        default = next(
            (pk for pk, (_game, row) in self.variants.items() if row["name"] == "standard"),
            next(iter(self.variants), None),
        )
        if default:
            self.fields["variant"].initial = default
        counts = sorted({n for _game, row in self.variants.values() for n in row["player_counts"]})
        counts = counts or [2]
        self.fields["num_players"].choices = [(n, str(n)) for n in counts]
        self.fields["num_players"].initial = min(counts)
        self.max_seats = max(counts)
        for n in range(2, self.max_seats + 1):
            self.fields[f"seat_{n}"] = forms.ChoiceField(
                label=_("Seat %(n)s") % {"n": n}, choices=SEAT_CHOICES, required=False
            )

    # --- what applies to the choices made so far -----------------------------------------

    def _chosen(self) -> tuple[dict, dict] | None:
        return self.variants.get(str(self["variant"].value() or ""))

    def player_counts(self) -> list[int]:
        """The player counts of the chosen variant (all of them while none is chosen)."""
        chosen = self._chosen()
        return list(chosen[1]["player_counts"]) if chosen else [
            n for n, _label in self.fields["num_players"].choices]

    def player_count(self) -> int:
        """The chosen player count, as far as it is one of the chosen variant's."""
        counts = self.player_counts()
        try:
            count = int(self["num_players"].value())
        except (TypeError, ValueError):
            return min(counts)
        return count if count in counts else min(counts)

    def clock_kind(self) -> str:
        """The chosen kind of clock (none while the choice is not one)."""
        kind = self["clock"].value() or Game.Clock.NONE
        return kind if kind in CLOCK_FIELDS else Game.Clock.NONE

    def not_applying(self) -> set[str]:
        """The fields that do not apply to the choices made so far: the seats beyond the
        player count, the fields of the other clocks.  Shown hidden, ignored when submitted.
        (The takeover level always applies: under either departure rule the AI plays on a
        seat that is handed over, or left while two people stay.)"""
        count = self.player_count()
        names = {f"seat_{n}" for n in range(count + 1, self.max_seats + 1)}
        kind = self.clock_kind()
        names |= {name for other, fields in CLOCK_FIELDS.items() if other != kind
                  for name in fields}
        return names

    def _row(self, name: str, when: str, **condition: str) -> dict:
        """A field shown while ``when`` (a control's name) meets ``condition`` (``min``: a
        number from; ``values``: one of, space-separated); hidden, its widget disabled
        (not sent), while it does not apply."""
        shown = name not in self.not_applying()
        widget = self[name].as_widget(attrs=None if shown else {"disabled": True})
        return {"field": self[name], "widget": widget, "when": when, "shown": shown,
                **condition}

    def variant_groups(self) -> list[dict]:
        """The variants grouped by game, with descriptions and player counts, for the
        template."""
        chosen = str(self["variant"].value() or "")
        return [
            {
                **game,
                "variants": [
                    {**row, "checked": str(row["pk"]) == chosen,
                     "counts": " ".join(str(n) for n in row["player_counts"])}
                    for row in game["variants"]
                ],
            }
            for game in self.games
        ]

    def player_count_options(self) -> list[dict]:
        """The player count's options: those of the chosen variant enabled, the chosen one
        selected."""
        counts, count = self.player_counts(), self.player_count()
        return [{"value": n, "enabled": n in counts, "selected": n == count}
                for n, _label in self.fields["num_players"].choices]

    def seat_rows(self) -> list[dict]:
        """The seats after the creator's, each shown from its player count on."""
        return [self._row(f"seat_{n}", "num_players", min=str(n))
                for n in range(2, self.max_seats + 1)]

    def clock_rows(self) -> list[dict]:
        """The clock's own fields, each shown for its kind of clock."""
        return [self._row(name, "clock", values=kind)
                for kind, names in CLOCK_FIELDS.items() for name in names]

    # --- a submitted form ------------------------------------------------------------------

    def clean(self) -> dict:
        data = super().clean()
        # What does not apply is ignored, its errors too (the browser may still send it).
        for name in self.not_applying():
            self._errors.pop(name, None)
            data.pop(name, None)
        if data.get("seats_as_listed") and data.get("rated"):
            self.add_error("seats_as_listed", _(
                "A rated game always draws its seat order: untick \"seat order as listed\" "
                "or make the game unrated."))
        chosen = self.variants.get(str(data.get("variant")))
        count = data.get("num_players")
        if chosen and count is not None and count not in chosen[1]["player_counts"]:
            counts = ", ".join(str(n) for n in chosen[1]["player_counts"])
            self.add_error(
                "num_players",
                _("%(game)s %(variant)s is played by %(counts)s players.")
                % {"game": chosen[0]["title"], "variant": chosen[1]["name"], "counts": counts},
            )
        return data

    @cached_property
    def request_key(self) -> str:
        """A fresh request key for this rendering of the form (``create_game``'s ``key``:
        a double click opens one table)."""
        return uuid.uuid4().hex

    def chosen_variant(self) -> Any:
        return self.variants[self.cleaned_data["variant"]][1]["variant"]

    def table_options(self) -> dict:
        """The table's rules beyond its seats, as ``create_game`` keywords."""
        data = self.cleaned_data

        def value(name: str) -> Any:
            # A field not sent (hidden while another clock was chosen, and no script to
            # show it): what the form would have shown.
            given = data.get(name)
            return self.fields[name].initial if given is None else given

        control: dict[str, Any] = {"kind": data.get("clock") or Game.Clock.NONE}
        if control["kind"] == Game.Clock.LIVE:
            minutes = value("reserve_minutes")
            control.update(reserve=max(clocks.MIN_RESERVE, round(minutes * 60)),
                           increment=value("increment"))
        elif control["kind"] == Game.Clock.CORRESPONDENCE:
            control["days"] = value("days")
        return {
            "rated": bool(data.get("rated")),
            "seats_as_listed": bool(data.get("seats_as_listed")),
            "time_control": control,
            "departure_rule": data.get("departure_rule") or Game.DepartureRule.AI,
            "takeover_level": data.get("takeover_level") or "normal",
        }

    def seats(self) -> list[dict]:
        seats: list[dict] = [{"type": "human"}]
        for n in range(2, self.cleaned_data["num_players"] + 1):
            choice = self.cleaned_data.get(f"seat_{n}") or "open"
            if choice == "open":
                seats.append({"type": "human"})
            else:
                seats.append({"type": "ai", "level": choice.removeprefix("ai-")})
        return seats
