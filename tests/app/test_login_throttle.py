"""The admin login is throttled (django-axes): after a few wrong passwords for one user
name from one address even the right password is refused for a while; other addresses
and other users are not affected, and the client address is read behind the proxy."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

# django-axes keeps the attempts in the database (AccessAttempt.ip_address: inet on
# PostgreSQL, text on SQLite), so the /64 and IPv4-mapped keys are checked on both engines.
pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
LOGIN = "/admin/login/?next=/admin/"


@pytest.fixture
def boss(db):
    return get_user_model().objects.create_superuser("boss", "boss@example.org", "right-pw-1")


def _login(client, password: str, **meta: str):
    return client.post(LOGIN, {"username": "boss", "password": password}, **meta)


@pytest.mark.slow
def test_sixty_wrong_passwords_then_the_right_one_is_refused(client, boss, settings) -> None:
    codes = [_login(client, f"guess-{i}").status_code for i in range(60)]
    assert codes[: settings.AXES_FAILURE_LIMIT - 1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert set(codes[settings.AXES_FAILURE_LIMIT :]) == {429}
    refused = _login(client, "right-pw-1")
    assert refused.status_code == 429 and 'id="locked-out"' in refused.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302  # still not logged in


def test_the_lock_is_per_user_name_and_address(client, boss, settings) -> None:
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"guess-{i}", REMOTE_ADDR="198.51.100.7")
    assert _login(client, "right-pw-1", REMOTE_ADDR="198.51.100.7").status_code == 429
    other = _login(client, "right-pw-1", REMOTE_ADDR="198.51.100.8")
    assert other.status_code == 302 and client.session["_auth_user_id"] == str(boss.pk)


def test_behind_the_proxy_the_lock_follows_the_forwarded_address(client, boss, settings) -> None:
    settings.NUM_PROXIES = 1
    proxy = {"REMOTE_ADDR": "127.0.0.1"}
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"guess-{i}", HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy)
    assert (
        _login(client, "right-pw-1", HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy).status_code == 429
    )
    # A forged left-hand entry changes nothing: the proxy's own entry (the last) counts.
    forged = _login(client, "right-pw-1", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.9", **proxy)
    assert forged.status_code == 429
    # Another client behind the same proxy is not locked out.
    fine = _login(client, "right-pw-1", HTTP_X_FORWARDED_FOR="203.0.113.10", **proxy)
    assert fine.status_code == 302


def test_a_successful_login_clears_the_count(client, boss, settings) -> None:
    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        _login(client, f"guess-{i}")
    assert _login(client, "right-pw-1").status_code == 302
    client.logout()
    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, f"again-{i}").status_code == 200
    assert _login(client, "right-pw-1").status_code == 302


def test_the_addresses_of_one_ipv6_64_count_as_one_client(client, boss, settings) -> None:
    """One /64 is one household or phone: guessing from a new address of it each time
    is still counted (before, 80 guesses from one /64 and then the right password got in)."""
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"guess-{i}", REMOTE_ADDR=f"2001:db8:1:2::{i + 1:x}")
    again = _login(client, "right-pw-1", REMOTE_ADDR="2001:db8:1:2:ffff:ffff:ffff:fffe")
    assert again.status_code == 429 and "_auth_user_id" not in client.session
    # Another /64 is another client; an IPv4-mapped address is its IPv4 address.
    fine = _login(client, "right-pw-1", REMOTE_ADDR="2001:db8:1:3::1")
    assert fine.status_code == 302


def test_an_ipv4_mapped_address_counts_as_its_ipv4_address(client, boss, settings) -> None:
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"guess-{i}", REMOTE_ADDR="::ffff:198.51.100.20")
    assert _login(client, "right-pw-1", REMOTE_ADDR="198.51.100.20").status_code == 429
