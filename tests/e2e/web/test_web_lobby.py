"""The lobby and /schema in a real browser: the ladder and a profile's rating chart after a
rated match; the API's documentation pages load nothing from another origin."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def rated_match(url: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two registered players play a 2-seat match to 1 point over HTTP: (winner, loser)."""
    players = [
        httpx.post(f"{url}/players", json={"name": name}).json() for name in ("Noor", "Sami")
    ]
    match_id = httpx.post(
        f"{url}/matches", json={"ruleset": "classic", "seats": 2, "target": 1}
    ).json()["match_id"]
    for seat, player in enumerate(players):
        auth = {"Authorization": f"Bearer {player['token']}"}
        httpx.post(f"{url}/matches/{match_id}/seats/{seat}", headers=auth).raise_for_status()
    view = httpx.get(f"{url}/matches/{match_id}").json()
    while view["status"] == "playing":
        player = players[view["turn"]]
        auth = {"Authorization": f"Bearer {player['token']}"}
        own = httpx.get(f"{url}/matches/{match_id}/view", headers=auth).json()
        played = httpx.post(
            f"{url}/matches/{match_id}/plays", headers=auth, json={"card": own["hand"][0]}
        )
        assert played.status_code == 200, played.text
        view = played.json()["view"]
    winner = view["winner"] if view["winner"] is not None else 0
    return players[winner], players[1 - winner]


def test_the_ladder_and_a_profile_with_its_rating_chart(new_page: Any, server: str) -> None:
    # given two registered players who played a rated match to the end
    winner, loser = rated_match(server)
    # when the lobby is opened
    lobby = new_page()
    lobby.goto("/")
    # then the ladder lists both, and a name opens the profile with a rating chart
    ladder = lobby.page.locator("#ladder")
    ladder.locator(f"a[href='#player={winner['player_id']}']").wait_for()
    assert ladder.locator(f"a[href='#player={loser['player_id']}']").count() == 1
    ladder.locator(f"a[href='#player={winner['player_id']}']").click()
    chart = lobby.page.locator("#profile [data-testid=rating-chart]")
    chart.wait_for()
    profile = httpx.get(f"{server}/players/{winner['player_id']}").json()
    text = lobby.page.locator("#profile-body").inner_text()
    assert f"Rating {round(profile['rating'])}" in text
    # the start (1500) and the rating after the one rated match
    assert chart.locator("circle").count() == 2


def _operations(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(method, path) of every operation of an OpenAPI document."""
    methods = {"get", "put", "post", "delete", "patch", "head", "options"}
    return [
        (method, path)
        for path, item in document["paths"].items()
        for method in item
        if method in methods
    ]


def _refs(node: Any) -> list[str]:
    """Every ``$ref`` below ``node``."""
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def test_every_reference_of_the_api_document_resolves(server: str) -> None:
    # given the OpenAPI document the server serves
    document = httpx.get(f"{server}/schema/openapi.json").json()
    schemas = document["components"]["schemas"]
    # then every $ref names one of its component schemas (no JSON Schema "#/$defs/…" left)
    refs = _refs(document)
    assert refs
    prefix = "#/components/schemas/"
    assert [ref for ref in refs if not ref.startswith(prefix)] == []
    assert [ref for ref in refs if ref.removeprefix(prefix) not in schemas] == []


def test_the_schema_pages_render_every_operation_offline(new_page: Any, server: str) -> None:
    # given a browser that refuses every request to another origin, and records console errors
    docs = new_page()
    elsewhere: list[str] = []
    console: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    docs.page.route("**/*", only_here)
    docs.page.on(
        "console", lambda message: message.type == "error" and console.append(message.text)
    )
    document = httpx.get(f"{server}/schema/openapi.json").json()
    operations = _operations(document)
    # when Swagger UI is opened
    docs.goto("/schema")
    docs.page.locator(".opblock").first.wait_for()
    # then it draws every operation, and every component schema among its models
    assert docs.page.locator(".opblock").count() == len(operations)
    models = docs.page.locator("section.models article.json-schema-2020-12")
    assert models.count() == len(document["components"]["schemas"])
    # when Redoc is opened
    docs.goto("/schema/redoc")
    menu = docs.page.locator("[role=menuitem] .operation-type")
    menu.first.wait_for(state="attached")
    # then its menu lists every operation and each is drawn, with no error page
    assert menu.count() == len(operations)
    for method, path in operations[:: max(1, len(operations) // 6)]:
        operation_id = document["paths"][path][method]["operationId"]
        assert docs.page.locator(f"[id='operation/{operation_id}']").count() == 1, operation_id
    assert "Something went wrong" not in docs.page.locator("body").inner_text()
    # and both ran from this server: nothing was asked of another origin, nothing failed
    assert elsewhere == []
    assert console == []


def test_every_table_option_is_in_the_lobby_and_bots_only_on_the_tables_seats(
    new_page: Any, server: str
) -> None:
    # given the lobby
    page = new_page()
    page.goto("/")
    form = page.page.locator("#create")
    bot = {s: form.locator(f"input[name=bot][value='{s}']") for s in (1, 2, 3)}
    # when a 2-seat table is chosen, then bots are offered on seat 1 only, and your seat is 0 or 1
    form.locator("select[name=seats]").select_option("2")
    assert bot[1].is_visible() and not bot[2].is_visible() and not bot[3].is_visible()
    seats_offered = form.locator("select[name=seat] option").evaluate_all(
        "os => os.filter(o => !o.hidden).map(o => o.value)"
    )
    assert seats_offered == ["0", "1"]
    # and at 4 seats all three bot seats are offered
    form.locator("select[name=seats]").select_option("4")
    assert all(bot[s].is_visible() for s in (1, 2, 3))
    # when a 2-seat table against the strong bot with its budget, closed, with a 45 s turn is made
    form.locator("select[name=seats]").select_option("2")
    bot[1].check()
    form.locator("input[name=strong]").check()
    form.locator("input[name=bot_budget]").fill("16")
    form.locator("input[name=closed]").check()
    form.locator("input[name=turn_seconds]").fill("45")
    # (the answer is read as it passes: the page navigates away at once, and a response's
    # body is gone from the browser once its page has left)
    answers: list[dict[str, Any]] = []

    def read_as_it_passes(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        response = route.fetch()
        answers.append(response.json())
        route.fulfill(response=response)

    page.page.route("**/matches", read_as_it_passes)
    with page.page.expect_response(
        lambda r: r.request.method == "POST" and r.url.endswith("/matches")
    ) as answered:
        form.locator("button[type=submit]").click()
    body = answered.value.request.post_data_json
    # then the table asked for has every option chosen
    assert body["seats"] == 2 and body["bots"] == [1]
    assert body["bot_kind"] == "strong" and body["bot_budget"] == 16
    assert body["spectators"] is False and body["turn_seconds"] == 45
    # and the server made it so, and the page opens its table
    assert answered.value.status == 201 and len(answers) == 1
    created = answers[0]
    assert created["bots"] == [1] and created["bot_kind"] == "strong"
    assert created["turn_seconds"] == 45 and created["spectators"] is False
    page.page.wait_for_url("**/play/*")
    # a closed table: nobody without a seat may watch it
    public = httpx.get(f"{server}/matches/{created['match_id']}")
    assert public.status_code == 403, public.text
