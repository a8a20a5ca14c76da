"""The variant editor form of one game: the engine's schema, the game's widgets, checks.

``VariantEditor(game).render(data)`` gives the field tree to draw;
``VariantEditor(game).read(post)`` reads a submission back (with any ``op`` applied) and
``check`` runs the schema and ``validate_variant`` over it, giving field-level errors by
data path in the reader's language (``games.editor.problems``).  Nothing here writes: the
views save through ``games.editor.services``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from common.jsonpaths import PathKey
from games.editor.problems import problem_line, problems_by_path
from games.editor.schemaform import (
    FieldError,
    Node,
    SchemaForm,
    attach_errors,
    has_invalid,
    merge_errors,
    to_json,
)
from games.editor.widgets import widgets_for
from games.models import AI_LEVEL_CHOICES
from games.variants.services import engine_of, has_name_field, problems_of

#: Form names that are not variant data (buttons, settings of other forms).
OP_FIELD = "op"


@dataclass
class Checked:
    """A submission read back: the data (``Invalid`` leaves included), its JSON, errors."""

    tree: Any
    data: Any
    errors: dict[PathKey, list[str]]

    @property
    def ok(self) -> bool:
        return not self.errors and not has_invalid(self.tree)


class VariantEditor:
    """The schema form of one game's variants, with that game's visual editors."""

    def __init__(self, game: str, *, name: str = "") -> None:
        self.game = game
        self.name = name
        self.engine = engine_of(game)
        self.schema = self.engine.variant_schema()
        self.hidden = frozenset({"name"}) if has_name_field(self.engine) else frozenset()

    def form(self, data: Any) -> SchemaForm:
        return SchemaForm(
            self.schema, widgets=widgets_for(self.game), hidden=self.hidden,
            context={"game": self.game, "engine": self.engine, "data": data},
        )

    def path_title(self, path: Any) -> str:
        """A field path by the schema's translated titles ("Village › Row values › 1")."""
        return self.form(None).path_title(path)

    def errors_of(self, problems: list[Any]) -> dict[PathKey, list[str]]:
        """The engine's problems as messages in the reader's language, by field path."""
        return problems_by_path(problems, self.path_title)

    def lines_of(self, problems: list[Any]) -> list[str]:
        """The engine's problems as lines ("Village › Rows: …") in the reader's language."""
        return [problem_line(p, self.path_title) for p in problems]

    def render(self, data: Any, errors: dict[PathKey, list[str]] | None = None,
               ) -> tuple[Node, list[FieldError]]:
        """The field tree of ``data`` with ``errors`` on their fields."""
        form = self.form(data)
        if not errors and not has_invalid(data):  # previews read the engine's rule data
            try:
                form.context["rule_data"] = self.engine.rule_data(to_json(data))
            except Exception:
                form.context["rule_data"] = None
        root = form.build(data)
        placed = attach_errors(root, errors or {}, title=form.path_title)
        return root, placed

    def read(self, post: Any) -> Any:
        """The data of a submitted form, after its ``op`` (add / remove...) if any."""
        form = self.form(None)
        tree = form.parse(post)
        self._parse_errors = form.parse_errors
        op = post.get(OP_FIELD, "")
        if op:
            form.context["data"] = tree
            tree = form.apply_op(tree, op)
        return tree

    def check(self, tree: Any) -> Checked:
        """Schema and engine problems of a read submission, by field."""
        data = to_json(tree)
        if isinstance(data, dict) and "name" in self.hidden:
            data = {"name": self.name, **data}
        problems = self.errors_of(problems_of(self.engine, data))
        errors = merge_errors(getattr(self, "_parse_errors", {}), problems)
        return Checked(tree, data, errors)


class SimulationForm(forms.Form):
    """The settings of a simulation check on the editor page."""

    games = forms.IntegerField(label=_("Games"), min_value=1, max_value=1000, initial=100)
    bots = forms.ChoiceField(label=_("Bots"), initial="greedy")
    players = forms.ChoiceField(label=_("Players"), required=False)

    def __init__(self, *args: Any, bots: tuple[str, ...], counts: list[int], **kwargs: Any):
        super().__init__(*args, **kwargs)

        labels = dict(AI_LEVEL_CHOICES)
        self.fields["bots"].choices = [(b, labels.get(b, b)) for b in bots]
        self.fields["players"].choices = [("", _("every count"))] + [
            (str(n), str(n)) for n in counts
        ]
        for name, field in self.fields.items():
            field.widget.attrs.setdefault("id", f"sim-{name}")
            field.widget.attrs["form"] = "sim-form"


class NewVariantForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"))
    name = forms.SlugField(label=_("Name"), max_length=64)
    start_from = forms.ChoiceField(label=_("Start from"), required=False)

    def __init__(self, *args: Any, games: list[tuple[str, str]],
                 starts: list[tuple[str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = games
        self.fields["start_from"].choices = starts


class CloneForm(forms.Form):
    name = forms.SlugField(label=_("Name of the copy"), max_length=64)


class ImportForm(forms.Form):
    file = forms.FileField(label=_("JSON file"), required=False)
    text = forms.CharField(label=_("…or paste the JSON"), required=False,
                           widget=forms.Textarea(attrs={"rows": 8}))
    game = forms.ChoiceField(label=_("Game (for bare variant data)"), required=False)
    name = forms.SlugField(label=_("Variant name (default: the file's)"), required=False,
                           max_length=64)

    def __init__(self, *args: Any, games: list[tuple[str, str]], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [("", "—"), *games]
