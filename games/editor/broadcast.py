"""Socket hints of the rules editor: simulation progress for the variant's editor pages.

Only ids and numbers travel (no variant data); the consumer draws the progress bar from
them.  Like every socket message these are hints: the page also refetches.
"""

from __future__ import annotations

from games.live.broadcast import _send


def variant_group(variant_id: int) -> str:
    """The Channels group of one variant's editor pages."""
    return f"editor-variant-{int(variant_id)}"


def simulation_progress(variant_id: int, simulation_id: int, done: int, total: int,
                        status: str, *, role: str = "draft") -> bool:
    """Tell the variant's editor pages how far a simulation has got (``role``: of the
    ``draft``, or of the ``published`` version it is compared with)."""
    return _send(
        variant_group(variant_id),
        {
            "type": "simulation.progress",
            "simulation": int(simulation_id),
            "done": int(done),
            "total": int(total),
            "status": str(status),
            "role": "published" if role == "published" else "draft",
        },
    )
