#!/usr/bin/python3
"""follow-test.py URL OUTDIR DB GROWN - the viewer following a growing
trace (`ccsg serve --follow`, issue 37, item 5) in headless Chromium, on
check-serve-follow.c's traces: the page says "following: last 1 min,
updated HH:MM:SS"; with function 7::proc1 selected in the CCSG, GROWN's
calls are appended to DB in one transaction; without a reload, the page
shows the new generation (the new calls in its line, 7::proc3's row) and
7::proc1 still selected, though the new build numbers its node again.  Screenshot: OUTDIR/follow.png.  Exit 0 when all
holds; a failure raises (exit 1)."""
import os
import re
import sqlite3
import sys

from selenium.webdriver.common.by import By

from page import URL, OUT, api, drv, wait

DB, GROWN = sys.argv[3], sys.argv[4]


def follow_line():
    """The #follow line's text and generation."""
    e = drv.find_element(By.ID, "follow")
    return e.text, e.get_attribute("data-generation")


def row(name):
    """The class of the tree's row of name, or None."""
    return drv.execute_script("""
        const r = document.querySelector('#tree div.row[data-name="' +
            arguments[0] + '"]');
        return r ? r.className : null;""", name)


try:
    node = [n["id"] for n in api("/api/search", tree="ccsg", q="proc1")
            ["results"] if n["name"] == "7::proc1"][0]
    drv.get(URL + "#tree=ccsg&node=" + node)
    wait.until(lambda d: "selected" in (row("7::proc1") or ""))
    text, gen = follow_line()
    assert re.fullmatch(r"following: last 1 min, updated \d\d:\d\d:\d\d",
                        text), text
    assert gen == "1", gen
    assert " 1 calls" in drv.find_element(By.ID, "trace").text
    title = drv.find_element(By.CSS_SELECTOR, "#info h2").text
    db = sqlite3.connect(DB)
    db.executescript("ATTACH '%s' AS b; BEGIN; INSERT INTO rpc_calls "
                     "SELECT * FROM b.rpc_calls WHERE call_id > 1; COMMIT"
                     % GROWN)
    db.close()
    wait.until(lambda d: follow_line()[1] not in ("1", None))
    wait.until(lambda d: row("7::proc3") is not None)
    assert " 402 calls" in drv.find_element(By.ID, "trace").text, \
        drv.find_element(By.ID, "trace").text
    assert "selected" in row("7::proc1"), row("7::proc1")
    moved = [n["id"] for n in api("/api/search", tree="ccsg", q="proc1")
             ["results"] if n["name"] == "7::proc1"][0]
    assert moved != node, "the new build kept the node's id: no test"
    assert drv.find_element(By.CSS_SELECTOR, "#info h2").text == title
    drv.save_screenshot(os.path.join(OUT, "follow.png"))
finally:
    drv.save_screenshot(os.path.join(OUT, "follow-last.png"))
    drv.quit()
print("follow-test: the new generation shown without a reload, "
      "7::proc1 still selected (%s, then %s)" % (node, moved))
