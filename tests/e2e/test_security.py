"""Security against the running server: the staff pages closed to anyone not signed in, sign-in
lock-outs, per-client rate limits, and logs free of personal data and session credentials."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import httpx

from app.web import staff, staff_sign_in
from tests.e2e.servers import GuardedServer, a_new_client, read_turn

USER, PASSWORD = "staff", "shopdesk-staff"  # the development defaults


def _start(server: GuardedServer, client: dict[str, str]) -> str:
    response = httpx.post(f"{server.url}/api/sessions", headers=client, timeout=30)
    assert response.status_code == 201
    return str(response.json()["session_id"])


def _staff_routes() -> list[tuple[str, str]]:
    """Every (method, path) of the staff routers, read from the routers themselves, so a route
    added later is covered without editing this test."""
    open_to_all = {("GET", "/staff/login"), ("POST", "/staff/login"), ("POST", "/staff/logout")}
    found = {
        (method, re.sub(r"\{[^}]+\}", "1", route.path))
        for router in (staff.router, staff_sign_in.router)
        for route in router.routes
        for method in getattr(route, "methods", ())
    }
    return sorted(found - open_to_all)


def test_every_staff_route_is_closed_without_a_session(guarded_server: GuardedServer) -> None:
    routes = _staff_routes()
    assert len(routes) >= 6, routes
    forged = "c3RhZmY.9999999999.bm90LXNpZ25lZA"  # "staff", far future, a made-up signature
    with httpx.Client(base_url=guarded_server.url, timeout=30) as anonymous:
        for cookie in (None, forged):
            anonymous.cookies.clear()
            if cookie:
                anonymous.cookies.set("shopdesk_staff", cookie, path="/staff")
            for method, path in routes:
                response = anonymous.request(method, path, data={"text": "sneaky note"})
                if path.startswith("/staff/export"):
                    assert response.status_code == 401, (method, path)
                else:
                    assert response.status_code == 303, (method, path)
                    assert response.headers["location"].startswith("/staff/login")
    print(f"\nstaff routes closed without a session: {len(routes)} routes x 2 (none, forged)")


def test_a_client_that_keeps_failing_to_sign_in_is_locked_out(
    guarded_server: GuardedServer,
) -> None:
    guesser, colleague = a_new_client(), a_new_client()
    with httpx.Client(base_url=guarded_server.url, timeout=30) as client:
        statuses = [
            client.post(
                "/staff/login", data={"user": "admin", "password": guess}, headers=guesser
            ).status_code
            for guess in ("admin", "password", "123456")
        ]
        locked = client.post(
            "/staff/login", data={"user": USER, "password": PASSWORD}, headers=guesser
        )
        elsewhere = client.post(
            "/staff/login", data={"user": USER, "password": PASSWORD}, headers=colleague
        )
    assert statuses == [401, 401, 401]
    assert locked.status_code == 429 and locked.headers["retry-after"].isdigit()
    assert "Too many failed sign-ins" in locked.text and "set-cookie" not in locked.headers
    assert elsewhere.status_code == 303 and "set-cookie" in elsewhere.headers
    print(f"\nsign-in lock-out: 3 x 401, then 429 Retry-After {locked.headers['retry-after']} s")


def test_one_client_sending_turns_too_fast_gets_429_and_others_do_not(
    guarded_server: GuardedServer,
) -> None:
    """Three turns at once from one address (its burst is two): one 429, two answered."""
    shopper = a_new_client()
    session = _start(guarded_server, shopper)
    url = f"{guarded_server.url}/api/sessions/{session}/messages"

    def ask(question: str) -> tuple[int, str, str]:
        with httpx.stream(
            "POST", url, json={"message": question}, headers=shopper, timeout=300
        ) as response:
            if response.status_code != 200:
                response.read()
                return response.status_code, response.headers.get("retry-after", ""), ""
            return 200, "", read_turn(response)[-1][0]

    questions = ["How long is delivery?", "Can I return shoes?", "Do you sell gift cards?"]
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(ask, questions))
    statuses = sorted(status for status, _, _ in results)
    assert statuses == [200, 200, 429], results
    assert all(after.isdigit() for status, after, _ in results if status == 429)
    assert all(last == "done" for status, _, last in results if status == 200)
    assert guarded_server.transcript_rows([session]) == 2
    other = a_new_client()
    assert httpx.get(url, headers=other, timeout=30).status_code == 200
    print(f"\nper-client turn rate: 3 at once from one address -> {statuses}")


def test_one_client_flooding_the_api_gets_429(guarded_server: GuardedServer) -> None:
    flooder = a_new_client()
    session = _start(guarded_server, flooder)
    url = f"{guarded_server.url}/api/sessions/{session}/messages"
    with httpx.Client(timeout=30) as client:
        statuses = [client.get(url, headers=flooder).status_code for _ in range(40)]
        refused = client.get(url, headers=flooder)
        calm = client.get(url, headers=a_new_client())
    assert set(statuses) <= {200, 429} and statuses.count(429) >= 1
    assert refused.status_code == 429 and refused.headers["retry-after"].isdigit()
    assert calm.status_code == 200
    print(f"\nper-client request rate: 41 quick requests -> {statuses.count(429) + 1} x 429")


def test_logs_and_transcripts_hold_no_personal_data(guarded_server: GuardedServer) -> None:
    shopper = a_new_client()
    session = _start(guarded_server, shopper)
    message = "My order never came, email jo.bloggs@example.com or call +44 7700 900123"
    with httpx.stream(
        "POST",
        f"{guarded_server.url}/api/sessions/{session}/messages",
        json={"message": message},
        headers=shopper,
        timeout=300,
    ) as response:
        assert response.status_code == 200
        assert read_turn(response)[-1][0] == "done"
    refused = httpx.post(
        f"{guarded_server.url}/staff/login",
        data={"user": "jo.bloggs@example.com", "password": "4111 1111 1111 1111"},
        headers=a_new_client(),
        timeout=30,
    )
    assert refused.status_code == 401
    log = guarded_server.log.read_text()
    for secret in ("jo.bloggs@example.com", "7700 900123", "4111 1111 1111 1111", session):
        assert secret not in log, secret
    assert "sign-in refused for '[email]'" in log
    assert f"/api/sessions/{session.split('.')[0]}.[tag]/messages" in log  # the access log
    history = httpx.get(
        f"{guarded_server.url}/api/sessions/{session}/messages", headers=shopper, timeout=30
    ).json()
    assert history[0]["question"] == message  # the shopper's own session still reads it whole
    from sqlalchemy import create_engine, text

    engine = create_engine(guarded_server.database_url)
    try:
        with engine.connect() as connection:
            stored = connection.execute(
                text(
                    "SELECT m.question FROM message m JOIN conversation c "
                    "ON c.id = m.conversation_id WHERE c.session_id = :id"
                ),
                {"id": session},
            ).scalar_one()
    finally:
        engine.dispose()
    assert "[email]" in stored and "[phone]" in stored and "jo.bloggs" not in stored


def test_a_staff_note_with_control_characters_is_refused_not_stored(
    guarded_server: GuardedServer,
) -> None:
    from sqlalchemy import create_engine, text

    escalated = httpx.post(
        f"{guarded_server.url}/api/sessions/{_start(guarded_server, a_new_client())}/escalate",
        json={"reason": "a note target"},
        headers=a_new_client(),
        timeout=30,
    )
    assert escalated.status_code == 200
    engine = create_engine(guarded_server.database_url)
    try:
        with engine.connect() as connection:
            conversation = connection.execute(text("SELECT max(id) FROM conversation")).scalar()
            notes = "SELECT count(*) FROM staff_note"
            before = connection.execute(text(notes)).scalar_one()
        with httpx.Client(base_url=guarded_server.url, timeout=30) as client:
            signed_in = client.post(
                "/staff/login", data={"user": USER, "password": PASSWORD}, headers=a_new_client()
            )
            assert signed_in.status_code == 303
            page = client.post(
                f"/staff/conversations/{conversation}/notes",
                data={"text": "call back\x00later", "label": "x"},
            )
        with engine.connect() as connection:
            after = connection.execute(text(notes)).scalar_one()
    finally:
        engine.dispose()
    assert page.status_code == 400 and "control characters" in page.text
    assert after == before


def test_guessing_the_staff_password_from_many_addresses_locks_the_user(
    guarded_server: GuardedServer,
) -> None:
    """Last in this module: it locks the staff user of the guarded server for its window."""
    with httpx.Client(base_url=guarded_server.url, timeout=30) as client:
        guesses = [
            client.post(
                "/staff/login",
                data={"user": USER, "password": f"guess-{n}"},
                headers=a_new_client(),
            ).status_code
            for n in range(3)
        ]
        right = client.post(
            "/staff/login", data={"user": USER, "password": PASSWORD}, headers=a_new_client()
        )
    assert guesses == [401, 401, 401]
    assert right.status_code == 429 and right.headers["retry-after"].isdigit()
