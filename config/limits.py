"""Bounds on request bodies, shared by the app server and the proxy config of ``deploy/``.

Plain module (no Django import): ``deploy/stack.py`` writes the same numbers into nginx's
``client_max_body_size`` and ``client_body_timeout``.

* ``REQUEST_BODY_MAX_BYTES`` (2 MiB): the largest body any page sends is the rules
  editor's import (a JSON file of at most 1 MiB, in a multipart form); everything else is
  under Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (64 KiB), which answers 413 itself.
* ``REQUEST_BODY_TIMEOUT`` (10 s): the longest wait for the next piece of a body (as
  nginx counts it: between two reads, not for the whole body).
"""

from __future__ import annotations

import os

REQUEST_BODY_MAX_BYTES = int(os.environ.get("REQUEST_BODY_MAX_BYTES", str(2 * 1024 * 1024)))
REQUEST_BODY_TIMEOUT = float(os.environ.get("REQUEST_BODY_TIMEOUT", "10"))
