"""The JSON API of a running hub, for the sub-commands that talk to one
(``gamehub acpc-match``, ``gamehub tournament``): ``--hub URL`` and ``--token T``."""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from typing import Any


def add_hub_options(parser: argparse.ArgumentParser) -> None:
    """``--hub URL`` (the hub's web front end) and ``--token T`` (its API token)."""
    parser.add_argument("--hub", default="http://127.0.0.1:8080", help="the hub's web front end")
    parser.add_argument("--token", default=None, help="the hub's API token (from other hosts)")


def request(url: str, body: Any = None, token: str | None = None, text: bool = False) -> Any:
    """GET ``url`` (POST ``body`` as JSON when given); the decoded JSON answer, or its
    text (``text``).

    :raises urllib.error.HTTPError: the hub refused (:func:`refusal` says why).
    :raises OSError: the hub cannot be reached.
    """
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as answer:
        raw = answer.read()
    return raw.decode("ascii", "replace") if text else json.loads(raw)


def refusal(error: urllib.error.HTTPError) -> str:
    """The hub's reason for refusing (its JSON ``error``), else the HTTP reason."""
    try:
        return str(json.loads(error.read()).get("error", error.reason))
    except ValueError:
        return str(error.reason)
