"""OpenAPI schema hooks (drf-spectacular): every operation documents the error shape."""

from __future__ import annotations

from typing import Any

ERROR_COMPONENT = "ErrorOutput"


def add_error_responses(result: dict, generator: Any, request: Any, public: bool) -> dict:
    """``POSTPROCESSING_HOOKS``: a ``default`` response of ``ErrorOutput`` on every operation.

    Whatever goes wrong -- 401, 405, 413, 415, 429, 503, even 500 -- the API answers
    ``{"detail", "code", "errors"?}`` (common/api/errors.py); ``default`` says so for every
    status an operation does not list itself.
    """
    ref = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation["responses"].setdefault(
                "default",
                {"content": {"application/json": {"schema": ref}},
                 "description": "Any other error, in the same shape."},
            )
    return result
