"""Settings: typed environment helpers, the database switch, SQLite's pragmas, deploy checks."""

from __future__ import annotations

import sqlite3
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection, transaction

from combat.site import settings as fray_settings


@pytest.mark.parametrize("value", ["1", "true", "Yes", " on ", "TRUE"])
def test_env_bool_reads_true(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("FRAY_FLAG", value)
    assert fray_settings.env_bool("FRAY_FLAG", False) is True


@pytest.mark.parametrize("value", ["0", "false", "No", "off"])
def test_env_bool_reads_false(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("FRAY_FLAG", value)
    assert fray_settings.env_bool("FRAY_FLAG", True) is False


def test_env_bool_uses_the_default_when_unset_or_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRAY_FLAG", raising=False)
    assert fray_settings.env_bool("FRAY_FLAG", True) is True
    monkeypatch.setenv("FRAY_FLAG", "")
    assert fray_settings.env_bool("FRAY_FLAG", False) is False


@pytest.mark.parametrize("value", ["maybe", "2", "tru"])
def test_env_bool_fails_loudly_on_a_bad_value(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("FRAY_FLAG", value)
    with pytest.raises(ImproperlyConfigured, match="FRAY_FLAG"):
        fray_settings.env_bool("FRAY_FLAG", False)


def test_env_int_reads_a_number_and_fails_loudly_on_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRAY_NUMBER", "42")
    assert fray_settings.env_int("FRAY_NUMBER", 1) == 42
    monkeypatch.setenv("FRAY_NUMBER", "forty-two")
    with pytest.raises(ImproperlyConfigured, match="FRAY_NUMBER"):
        fray_settings.env_int("FRAY_NUMBER", 1)


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FRAY_HOSTS", raising=False)
    assert fray_settings.env_list("FRAY_HOSTS", ["localhost"]) == ["localhost"]
    monkeypatch.setenv("FRAY_HOSTS", " table.lan, 192.168.1.23,, ")
    assert fray_settings.env_list("FRAY_HOSTS", ["localhost"]) == ["table.lan", "192.168.1.23"]


def test_env_str_prefers_the_file_named_by_name_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secret = tmp_path / "secret"
    secret.write_text("from-a-file\n", encoding="utf-8")
    monkeypatch.setenv("FRAY_SECRET", "from-the-environment")
    assert fray_settings.env_str("FRAY_SECRET") == "from-the-environment"
    monkeypatch.setenv("FRAY_SECRET_FILE", str(secret))
    assert fray_settings.env_str("FRAY_SECRET") == "from-a-file"


def test_database_url_gives_postgresql_settings() -> None:
    database = fray_settings._database_from_url(
        "postgres://fray:p%40ss%2Fword@db.example:5433/fray_table"
    )
    assert database["ENGINE"] == "combat.db.postgresql"
    assert database["NAME"] == "fray_table"
    assert database["USER"] == "fray"
    assert database["PASSWORD"] == "p@ss/word"
    assert database["HOST"] == "db.example"
    assert database["PORT"] == "5433"


def test_database_url_accepts_the_postgresql_scheme_without_port_or_password() -> None:
    database = fray_settings._database_from_url("postgresql://postgres@127.0.0.1/test")
    assert database["NAME"] == "test"
    assert database["USER"] == "postgres"
    assert database["PASSWORD"] == ""
    assert database["PORT"] == ""


@pytest.mark.parametrize("url", ["mysql://root@localhost/fray", "sqlite:///fray.sqlite3"])
def test_database_url_refuses_other_databases(url: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        fray_settings._database_from_url(url)


def test_check_deploy_reports_nothing_but_the_silenced_https_warnings() -> None:
    assert fray_settings.SILENCED_SYSTEM_CHECKS == [
        "security.W004",
        "security.W008",
        "security.W012",
        "security.W016",
    ]
    out, err = StringIO(), StringIO()
    call_command("check", deploy=True, stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert "System check identified no issues (4 silenced)." in out.getvalue()


def test_pages_are_compressed_below_the_static_files_and_above_whatever_writes_a_body() -> None:
    # Static files come pre-compressed from the collect: GZipMiddleware must not see them.
    # Every middleware under it has its response compressed after it is done with it.
    middleware = fray_settings.MIDDLEWARE
    gzip_at = middleware.index("django.middleware.gzip.GZipMiddleware")
    assert middleware.index("combat.site.serving.StaticFilesMiddleware") == gzip_at - 1
    assert "whitenoise.middleware.WhiteNoiseMiddleware" not in middleware  # ours replaces it
    for renders in (
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "combat.site.middleware.ContentSecurityPolicyMiddleware",
        "django_htmx.middleware.HtmxMiddleware",
    ):
        assert middleware.index(renders) > gzip_at, renders


def _pragma(name: str) -> object:
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA {name}")
        return cursor.fetchone()[0]


@pytest.fixture
def sqlite_only() -> None:
    if connection.vendor != "sqlite":
        pytest.skip(f"SQLite pragmas do not apply to {connection.vendor}")


@pytest.mark.django_db
@pytest.mark.usefixtures("sqlite_only")
def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout() -> None:
    assert str(_pragma("journal_mode")).lower() == "wal"
    assert _pragma("foreign_keys") == 1
    assert _pragma("synchronous") == 1  # NORMAL
    assert _pragma("busy_timeout") == 20000


@pytest.mark.django_db
@pytest.mark.usefixtures("sqlite_only")
def test_sqlite_transactions_take_the_write_lock_at_once() -> None:
    # IMMEDIATE: a transaction that has only read already holds the write lock, so a second
    # writer waits at BEGIN instead of failing later with "database is locked" mid-transaction.
    assert connection.transaction_mode == "IMMEDIATE"
    other = sqlite3.connect(connection.settings_dict["NAME"], timeout=0)
    try:
        with transaction.atomic():
            _pragma("user_version")  # a read, nothing written
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
    finally:
        other.close()
