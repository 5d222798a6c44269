"""Jobs write their files under DATA_DIR: point it at a temporary folder."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def data_dir(settings, tmp_path):
    settings.DATA_DIR = tmp_path / "data"
    return settings.DATA_DIR


@pytest.fixture
def staff_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client.force_login(user)
    client.user = user
    return client
