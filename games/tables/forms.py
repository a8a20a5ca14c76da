"""The "New table" form: a variant of any game the browser can play, the player count,
what sits in the other seats, the clock and the departure rule."""

from __future__ import annotations

from typing import Any

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



class CreateTableForm(forms.Form):
    """A variant of any game the browser can play, the player count, and what sits in the
    other seats (seat 1 is the creator)."""

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
    departure_rule = forms.ChoiceField(
        label=gettext_lazy("When a player runs out of time or resigns"),
        choices=Game.DepartureRule.choices, initial=Game.DepartureRule.AI, required=False,
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
            (game["title"], [(str(row["pk"]), row["name"]) for row in game["variants"]])
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
        for i in range(1, self.max_seats):
            self.fields[f"seat_{i}"] = forms.ChoiceField(
                label=_("Seat %(n)s") % {"n": i + 1}, choices=SEAT_CHOICES, required=False
            )

    def variant_groups(self) -> list[dict]:
        """The variants grouped by game, with descriptions, for the template."""
        chosen = str(self["variant"].value() or "")
        return [
            {
                **game,
                "variants": [
                    {**row, "checked": str(row["pk"]) == chosen} for row in game["variants"]
                ],
            }
            for game in self.games
        ]

    def clock_fields(self) -> list:
        """The time control and departure fields, in order, for the template."""
        return [self[name] for name in ("clock", "reserve_minutes", "increment", "days",
                                        "departure_rule", "takeover_level")]

    def seat_fields(self) -> list:
        return [self[f"seat_{i}"] for i in range(1, self.max_seats)]

    def clean(self) -> dict:
        data = super().clean()
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

    def chosen_variant(self) -> Any:
        return self.variants[self.cleaned_data["variant"]][1]["variant"]

    def table_options(self) -> dict:
        """The table's rules beyond its seats, as ``create_game`` keywords."""
        data = self.cleaned_data
        control: dict[str, Any] = {"kind": data.get("clock") or Game.Clock.NONE}
        if control["kind"] == Game.Clock.LIVE:
            minutes = data.get("reserve_minutes") or 10
            control.update(reserve=max(clocks.MIN_RESERVE, round(minutes * 60)),
                           increment=data.get("increment") or 0)
        elif control["kind"] == Game.Clock.CORRESPONDENCE:
            control["days"] = data.get("days") or 3
        return {
            "rated": bool(data.get("rated")),
            "seats_as_listed": bool(data.get("seats_as_listed")),
            "time_control": control,
            "departure_rule": data.get("departure_rule") or Game.DepartureRule.AI,
            "takeover_level": data.get("takeover_level") or "normal",
        }

    def seats(self) -> list[dict]:
        seats: list[dict] = [{"type": "human"}]
        for i in range(1, self.cleaned_data["num_players"]):
            choice = self.cleaned_data.get(f"seat_{i}") or "open"
            if choice == "open":
                seats.append({"type": "human"})
            else:
                seats.append({"type": "ai", "level": choice.removeprefix("ai-")})
        return seats
