"""Over HTTP, a store written under the earlier name rule still verifies and shows its names;
a new seat under one of those names is refused (422 ``invalid_name``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.service import MatchService
from tests.app.api.conftest import Api
from tests.app.api.helpers import SUPPORT_TOKEN, bearer
from tests.migrated import migrated_copy

FIXTURE = Path(__file__).parent.parent.parent / "data" / "old_names.db"
PEOPLE = ["easy bot\u3164", "easy \u0299\u1d0f\u1d1b", "deleted player", "a\u034fb"]


@pytest.fixture
def api_db(tmp_path: Path) -> Path:
    """The API's SQLite file: a migrated copy of the store of old names
    (tests/data/old_names.md)."""
    return migrated_copy(FIXTURE.name, tmp_path / "api" / "basra.db")


@pytest.mark.parametrize(
    ("match_id", "headers"),
    [
        ("old-names-people", {}),
        ("old-names-player", {}),
        ("old-names-erased", {}),
        ("old-names-fillers", bearer(SUPPORT_TOKEN)),  # still in play: support only
    ],
)
def test_every_old_match_verifies_over_http(
    api: Api, match_id: str, headers: dict[str, str]
) -> None:
    response = api.client.get(f"/matches/{match_id}/verification", headers=headers)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["divergence"] is None


def test_the_old_names_show_as_recorded(api: Api) -> None:
    table = api.client.get("/matches/old-names-people").json()
    assert table["names"] == PEOPLE
    erased = api.client.get("/matches/old-names-erased").json()
    assert erased["names"] == ["deleted player", "random bot"]


@pytest.mark.parametrize("name", [*PEOPLE, "\u115f", "\u2800", "\ufe0f"])
def test_a_new_seat_under_an_old_name_is_refused(
    api: Api, api_service: MatchService, name: str
) -> None:
    match_id = api.create(bots=[1])["match_id"]

    response = api.client.post(f"/matches/{match_id}/seats/0", json={"name": name})

    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_name"
    assert len(api_service.events(match_id)) == 1
