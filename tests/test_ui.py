"""The web viewer: routes through Starlette's test client, then the pages in a real headless Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest
from starlette.testclient import TestClient

from memory_graph import Engine
from server.ui.app import build_app

TOKEN = "test-token-123"
BASE = "http://127.0.0.1:8777"


@pytest.fixture
def store(tmp_path, embedder):
    eng = Engine(tmp_path / "data", embedder=embedder)
    old = eng.store("Project Orion's database is Postgres 16 on port 5433, behind pgbouncer", title="Orion database",
                    project="orion", tags=["db"], memory_type="fact")
    new = eng.store("Orion's billing worker reads Redis streams; Kafka was dropped in March", title="Orion billing",
                    project="orion", memory_type="decision")
    yield eng, old, new
    eng.close()


@pytest.fixture
def client(store):
    return TestClient(build_app(store[0], TOKEN), base_url=BASE)


def test_search_is_a_link_and_explains_each_hit(client, store):
    page = client.get("/", params={"q": "Orion database port"})
    assert page.status_code == 200
    assert "Orion database" in page.text and f"/memory/{store[1]}" in page.text
    assert "found by" in page.text  # the explanation in words
    assert client.get("/").status_code == 200


def test_a_memory_page_edits_invalidates_and_deletes(client, store):
    eng, old, new = store
    page = client.get(f"/memory/{old}")
    assert "port 5433" in page.text and "Postgres" in page.text and 'id="entities"' in page.text
    same = {"Origin": BASE}
    moved = client.post(f"/memory/{old}/edit", data={"content": "Orion's database is Postgres 16 on port 5434",
                                                    "title": "Orion database", "tags": "db, infra",
                                                    "memory_type": "fact", "importance": "7"},
                        headers=same, follow_redirects=False)
    assert moved.status_code == 303
    m = eng.get([old])[0]
    assert m.content.endswith("port 5434") and m.tags == ["db", "infra"] and m.importance == 7
    bad = client.post(f"/memory/{old}/edit", data={"importance": "lots"}, headers=same)
    assert bad.status_code == 400 and "importance=&#x27;lots&#x27; is not a whole number" in bad.text
    assert eng.get([old])[0].importance == 7
    client.post(f"/memory/{old}/invalidate", data={"reason": "moved to 5435"}, headers=same)
    m = eng.get([old])[0]
    assert m.valid_until is not None and m.invalidation_reason == "moved to 5435"
    assert "ended" in client.get(f"/memory/{old}").text
    client.post(f"/memory/{new}/delete", headers=same)
    assert eng.get([new], strict=False) == []
    assert client.get(f"/memory/{new}").status_code == 404


def test_another_origin_needs_the_token_and_changes_nothing_without_it(client, store):
    eng, old, _ = store
    before = eng.get([old])[0].content
    evil = client.post(f"/memory/{old}/edit", data={"content": "pwned"}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403
    nowhere = client.post(f"/memory/{old}/delete")
    assert nowhere.status_code == 403
    rebinding = client.get("/", headers={"Host": "evil.example:8777"})
    assert rebinding.status_code == 403
    assert eng.get([old])[0].content == before
    ok = client.post(f"/memory/{old}/edit", data={"content": "Orion moved to port 5436"},
                     headers={"Origin": "http://evil.example", "Authorization": f"Bearer {TOKEN}"},
                     follow_redirects=False)
    assert ok.status_code == 303 and eng.get([old])[0].content == "Orion moved to port 5436"


def test_the_graph_timeline_projects_and_stats(client, store):
    eng, old, _ = store
    data = client.get("/api/graph", params={"node": old}).json()
    labels = {n["label"] for n in data["nodes"]}
    assert "Postgres" in labels and any(n.get("centre") for n in data["nodes"])
    assert all(e["source"] in {n["id"] for n in data["nodes"]} for e in data["edges"])
    assert client.get("/api/graph", params={"node": "no-such-thing"}).status_code == 404
    hostile = client.get("/graph", params={"node": "</script><script>alert(1)</script>"}).text
    assert "<script>alert(1)" not in hostile
    assert "Orion billing" in client.get("/timeline", params={"project": "orion"}).text
    assert "orion" in client.get("/projects").text
    stats = client.get("/stats").text
    assert "counts" in stats and "2 memories" in stats


def test_a_projects_code_index_lists_its_files_and_finds_its_symbols(client, store, tmp_path):
    from codebase import Indexer

    src = tmp_path / "billing"
    src.mkdir()
    (src / "invoices.py").write_text("def total_cents(lines):\n    return sum(l.cents for l in lines)\n")
    (src / "export.py").write_text("from invoices import total_cents\n\ndef export(rows):\n    return total_cents(rows)\n")
    Indexer(store[0], src, project="billing").run()
    listing = client.get("/projects").text
    assert '/project/billing' in listing
    page = client.get("/project/billing", params={"symbol": "total_cents"}).text
    assert "invoices.py" in page and "export.py" in page and "invoices.py:1" in page
    assert client.get("/project/no-such-project").status_code == 404
    found = client.get("/", params={"q": "sum of the invoice lines in cents"}).text
    assert 'id="code"' in found and "invoices.py" in found


def test_the_viewer_sees_what_another_process_writes_meanwhile(client, store, tmp_path, embedder):
    other = Engine(tmp_path / "data", embedder=embedder)  # as the MCP server would, on the same data directory
    mid = other.store("The Zephyr cache warms at 06:00 UTC from the nightly snapshot", title="Zephyr warm-up",
                      project="orion")
    other.close()
    page = client.get("/", params={"q": "when does the Zephyr cache warm up"})
    assert f"/memory/{mid}" in page.text
    assert "06:00 UTC" in client.get(f"/memory/{mid}").text


# ---- a real browser --------------------------------------------------------------
CHROMIUM, DRIVER = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")


@pytest.fixture
def browser(tmp_path):
    if not (CHROMIUM and DRIVER):
        pytest.skip("no chromium and chromedriver here (Debian: apt-get install chromium chromium-driver)")
    os.environ["SE_OFFLINE"] = "true"  # Selenium must never download a browser or a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


@pytest.fixture
def live(store):
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build_app(store[0], TOKEN), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(5)


def wait(driver, find, timeout=10.0):
    """What ``find`` returns once it is truthy. An element read while the page it was on is replaced (after a
    form posts) is stale: looked for again, as a reader would."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            found = find()
        except (StaleElementReferenceException, NoSuchElementException):
            found = None
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"not found in {timeout} s on {driver.current_url}")


def test_in_a_browser_search_edit_invalidate_and_graph(browser, live, store, tmp_path):
    from selenium.webdriver.common.by import By

    eng, old, _ = store
    browser.get(live + "/")
    box = browser.find_element(By.ID, "q")
    box.send_keys("Orion database port")
    box.submit()
    link = wait(browser, lambda: browser.find_elements(By.LINK_TEXT, "Orion database"))[0]
    browser.save_screenshot(str(tmp_path / "search.png"))
    link.click()
    wait(browser, lambda: browser.find_elements(By.ID, "edit-content"))
    browser.save_screenshot(str(tmp_path / "memory.png"))
    text = browser.find_element(By.ID, "edit-content")
    text.clear()
    text.send_keys("Orion's database is Postgres 17 on port 5433")
    browser.find_element(By.ID, "save").click()
    wait(browser, lambda: browser.find_elements(By.ID, "note"))
    assert eng.get([old])[0].content == "Orion's database is Postgres 17 on port 5433"
    browser.find_element(By.ID, "reason").send_keys("the cluster was retired")
    browser.find_element(By.ID, "invalidate").click()
    wait(browser, lambda: "ended" in browser.find_element(By.ID, "validity").text)
    assert eng.get([old])[0].invalidation_reason == "the cluster was retired"
    browser.find_element(By.ID, "graph-link").click()
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#graph g.node") if len(
        browser.find_elements(By.CSS_SELECTOR, "#graph g.node")) >= 3 else None)
    labels = wait(browser, lambda: {n.find_element(By.TAG_NAME, "text").text
                                    for n in browser.find_elements(By.CSS_SELECTOR, "#graph g.node")})
    assert "Postgres" in labels
    time.sleep(1.0)  # let the layout settle for the picture
    browser.save_screenshot(str(tmp_path / "graph.png"))
    for name in ("timeline", "projects", "stats"):
        browser.get(f"{live}/{name}")
        browser.save_screenshot(str(tmp_path / f"{name}.png"))
        assert browser.find_element(By.TAG_NAME, "h1").text.lower() == name
    assert all((tmp_path / f"{n}.png").stat().st_size > 5_000 for n in ("search", "memory", "graph", "timeline"))
