"""Fixtures of the poker suite: the store suite's ``store`` (SQLite and PostgreSQL), for
the poker plugin's own commands that read stored hands."""

from tests.store.conftest import dsn, store  # noqa: F401
