"""Project-specific import-linter contracts (``[tool.importlinter]`` in pyproject.toml).

Only ``lint-imports`` loads this module; nothing at run time imports it.
"""

from __future__ import annotations

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output


class FeatureApiContract(Contract):
    """Features meet only through each other's public modules.

    For every pair of distinct ``features`` (packages), no module of one imports a module
    of the other except the other's package itself or one of its ``public`` submodules
    (``services``, ``selectors``...).  Everything else of a feature -- its views, APIs,
    consumers, tasks, listeners, pages and helpers -- is its own business.

    Configuration options:
        - features: the feature packages (``games.tables``, ``games.play``...).
        - public:   the names of the submodules a feature offers the others.
    """

    type_name = "feature_api"

    features = fields.ListField(subfield=fields.StringField())
    public = fields.ListField(subfield=fields.StringField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        features = [str(name) for name in self.features]  # type: ignore[attr-defined]
        public = {str(name) for name in self.public}  # type: ignore[attr-defined]
        broken = []
        for feature in features:
            modules = {feature, *graph.find_descendants(feature)}
            for importer in sorted(modules):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    owner = next((other for other in features if other != feature and (
                        imported == other or imported.startswith(other + "."))), None)
                    if owner is None or imported == owner:
                        continue
                    submodule = imported[len(owner) + 1:].split(".")[0]
                    if submodule not in public:
                        broken.append((importer, imported))
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported in check.metadata["broken"]:
            output.print_error(f"{importer} imports {imported}, which is not public",
                               bold=False)
            output.new_line()
