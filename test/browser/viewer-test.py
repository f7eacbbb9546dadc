#!/usr/bin/python3
"""viewer-test.py URL OUTDIR - the viewer (ccsg serve) in headless Chromium,
driven by Selenium, on the Figure 1 trace (issue 13, item 5): each tree
opens where the cost is (issue 39, item 1: the CCSG shows SAY_IT without
a click, every node above 5% of the root is shown and open, a node under
5% is not; the same in a compacted tree from its URL and in the CCDG),
follow CCSG FIG1_PROG::SAY_IT -> DSCG (three invocations
offered, grouped by host D) -> IDT (its procedure, calls = 3), reload the
URL and find the same node, fold the DSCG by host and open one, see that
a second page has a compaction of its own and that each page's survives
a reload, enter an impact specification and see the CCDG mark say_it,
foo and main as affected, and see what selective monitoring covered
per host and process.  Screenshots of each step go to OUTDIR.  Exit 0 when all holds;
any failure raises (exit 1) with what was expected."""
import os
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page import URL, OUT, drv, wait, api

SPEC = ("reduction on processor { hostD } by 20% to function "
        "{ FIG1_PROG::SAY_IT }")


def shot(name):
    drv.save_screenshot(os.path.join(OUT, name + ".png"))


def rows():
    return drv.find_elements(By.CSS_SELECTOR, "#tree div.row[data-name]")


def names(cls=""):
    """The names of the rows shown (of class cls), read in one go."""
    return drv.execute_script(
        "return [...document.querySelectorAll('#tree div.row%s[data-name]')]"
        ".filter(r => r.style.opacity !== '0')"
        ".map(r => r.dataset.name)" % cls)


def row(name):
    """The row of the node named name, once it is shown."""
    sel = '#tree div.row[data-name="%s"]' % name
    return wait.until(lambda d: d.find_element(By.CSS_SELECTOR, sel),
                      "no row '%s'" % name)


def click(find, what):
    """Click what find(driver) gives; again if the page replaced the
    element between finding and clicking (rows and menus are redrawn)."""
    def attempt(d):
        find(d).click()
        return True
    wait.until(attempt, "cannot click %s" % what)


def tab(tree):
    drv.find_element(By.CSS_SELECTOR, '#tabs button[data-tree="%s"]' % tree).click()
    wait.until(lambda d: "tree=" + tree in d.current_url and len(rows()) > 0,
               "the %s shows no node" % tree)


def selected():
    return wait.until(lambda d: d.find_element(By.CSS_SELECTOR,
                                               "#tree div.row.selected"),
                      "no node selected")



SHARE = 0.05  # web/app.js: OPEN_SHARE


def opened_by_weight(tree, root, **params):
    """What the page must show when tree opens, from the API: (heavy,
    light) where heavy are the ids of the nodes holding at least SHARE of
    the root's total (reached through such nodes; the root is one), to be
    shown and open, and light the ids of their children under SHARE that
    have children of their own, to be shown and closed."""
    def kids(n):
        if not n["has_children"]:
            return []
        return api("/api/children", tree=tree, id=n["id"], limit=10000,
                   **params)["children"]
    top = api("/api/node", tree=tree, id=root, **params)
    thr = SHARE * max([1, top["total"]] + [k["total"] for k in kids(top)])
    heavy, light, todo = {}, {}, [top]
    while todo:
        n = todo.pop()
        heavy[n["id"]] = n
        for k in kids(n):
            if k["total"] >= thr:
                todo.append(k)
            elif k["has_children"]:
                light[k["id"]] = k
    return heavy, light


def shown_rows():
    """id -> toggle of the rows shown (not fading out), read in one go."""
    return dict(drv.execute_script(
        "return [...document.querySelectorAll('#tree div.row[data-id]')]"
        ".filter(r => r.style.opacity !== '0')"
        ".map(r => [r.dataset.id, r.querySelector('.toggle').textContent])"))


def check_opened(tree, root, **params):
    """The page shows tree opened as opened_by_weight() says; the light
    nodes' ids (under SHARE, with children, not opened)."""
    heavy, light = opened_by_weight(tree, root, **params)
    last = ["not checked"]

    def holds(d):
        rows, bad = shown_rows(), []
        for i, n in heavy.items():
            want = "\u25be" if n["has_children"] else ""
            if rows.get(i) != want:
                bad.append("%s (%s, %d ns) is %s" % (
                    i, n["name"], n["total"],
                    "not shown" if i not in rows else
                    "closed" if want else "shown as %r" % rows[i]))
        for i, n in light.items():
            if rows.get(i) != "\u25b8":
                bad.append("%s (%s, %d ns, under %g of the root) is %s" % (
                    i, n["name"], n["total"], SHARE,
                    "open" if i in rows else "not shown"))
        last[0] = "; ".join(bad)
        return not bad
    try:
        wait.until(holds)
    except Exception:
        raise AssertionError("the %s did not open by weight: %s" %
                             (tree, last[0]))
    return light


def url_steps():
    """The compaction's steps the page's URL holds."""
    frag = urllib.parse.urlparse(drv.current_url).fragment
    return urllib.parse.parse_qs(frag).get("step", [])


def is_open(name):
    return "\u25be" in row(name).find_element(By.CLASS_NAME, "toggle").text


try:
    drv.get(URL)
    wait.until(lambda d: len(rows()) > 0, "the page shows no tree")
    # the CCSG opens where the cost is: SAY_IT under FOO without a click
    assert "tree=ccsg" in drv.current_url, drv.current_url
    row("FIG1_PROG::SAY_IT")
    row("FIG1_PROG::TIMES")
    assert is_open("FIG1_PROG::FOO"), "foo did not open"
    check_opened("ccsg", "n0")
    shot("ccsg")
    # what selective monitoring covered (issue 35, item 1): a line, and
    # on a click each host and process with its intervals, as the API
    # has them (here every type on all along, no selection)
    info = api("/api/info")
    mon = info["monitoring"]
    assert mon["recorded"] and mon["intervals"], mon
    summary = drv.find_element(By.CSS_SELECTOR, "#monitoring summary")
    assert summary.text == ("monitoring: 0 switches; on throughout: "
                            "semantics, latency, cpu, memory"), summary.text
    summary.click()
    pre = wait.until(lambda d: d.find_element(By.CSS_SELECTOR,
                                              "#monitoring pre"))
    wait.until(lambda d: pre.is_displayed(), "the intervals are not shown")
    lines = [l.strip() for l in pre.text.split("\n")]
    for iv in mon["intervals"]:
        head = "%s pid %d:" % (iv["host"], iv["pid"])
        assert head in lines, "no line '%s' in %s" % (head, lines)
        at = lines.index(head)
        # from the process's start: +0.000 s, a few ms when loaded
        assert lines[at + 1].startswith("from +") and lines[at + 1].endswith(
            " s semantics|latency|cpu|memory"), lines
    shot("monitoring")
    summary.click()
    # each tree, opened the same way; in the DSCG, hostA's <thread 1>
    # (its client's main thread, under 5%) has a child and stays closed
    tab("idt")
    row("FIG1_PROG")
    check_opened("idt", "idt")
    shot("idt")
    tab("dscg")
    light = check_opened("dscg", "m")
    assert light, "no node under %g of the DSCG's root has children" % SHARE
    shot("dscg")
    tab("ccsg")
    # CCSG SAY_IT -> DSCG: three invocations, grouped by host D
    click(lambda d: row("FIG1_PROG::SAY_IT"), "FIG1_PROG::SAY_IT")
    click(lambda d: d.find_element(By.CSS_SELECTOR, "button.goto-dscg"), "button.goto-dscg")
    nodes = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#linkform .lf-node")
                       if len(d.find_elements(By.CSS_SELECTOR, "#linkform .lf-node")) >= 3
                       else None, "no linking form")
    hosts = [h.text for h in drv.find_elements(By.CSS_SELECTOR, "#linkform .lf-host")]
    assert len(nodes) == 3, "%d invocations offered, not 3" % len(nodes)
    assert hosts == ["host hostD"], "grouped by %s, not host hostD" % hosts
    assert all(n.text.startswith("FIG1_PROG::SAY_IT") for n in nodes), \
        [n.text for n in nodes]
    shot("link-ccsg-to-dscg")
    click(lambda d: d.find_elements(By.CSS_SELECTOR, "#linkform .lf-node")[0],
          "the first invocation")
    wait.until(lambda d: "tree=dscg" in d.current_url, "not in the DSCG")
    sel = selected()
    assert sel.get_attribute("data-name") == "FIG1_PROG::SAY_IT", sel.get_attribute("data-name")
    row("FIG1_PROG::FOO")  # its caller opened on the way
    shot("dscg-say_it")
    # DSCG -> IDT: one procedure, brought into focus, calls = 3
    click(lambda d: d.find_element(By.CSS_SELECTOR, "button.goto-idt"), "button.goto-idt")
    wait.until(lambda d: "tree=idt" in d.current_url, "not in the IDT")
    sel = selected()
    assert sel.get_attribute("data-name") == "SAY_IT", sel.get_attribute("data-name")
    calls = wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#info td.v-calls"))
    assert calls.text == "3", "calls = %s, not 3" % calls.text
    shot("idt-say_it")
    # the URL names the tree and the node: reloading shows it again
    url = drv.current_url
    assert "node=f" in url, url
    drv.get("about:blank")
    drv.get(url)
    sel = selected()
    assert sel.get_attribute("data-name") == "SAY_IT", "after reload: %s" % sel.get_attribute("data-name")
    # search by name
    box = drv.find_element(By.ID, "search")
    box.send_keys("times", Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results .lf-node"),
               "no search result")
    # compaction: the DSCG folded by host, then one host opened
    tab("dscg")
    drv.find_element(By.CSS_SELECTOR, '#view option[value="location"]').click()
    row("<main>")
    lv = drv.find_element(By.ID, "level")
    lv.clear()
    lv.send_keys("1")
    drv.find_element(By.ID, "setlevel").click()
    row("hostA")
    row("hostD")
    check_opened("dscg", "k:", compact="location", step=url_steps())
    shot("dscg-by-host")
    click(lambda d: row("hostA").find_element(By.CLASS_NAME, "op-expand"),
          "hostA's expand")
    wait.until(lambda d: any(n.startswith("hostA::") for n in names()),
               "hostA did not open")
    shot("dscg-by-host-hostA-open")
    # two pages, two compactions (issue 40, item 7): a second page sees
    # the whole tree, its own level does not reach the first, and a
    # reload keeps each page's own (the URL holds its steps)
    first = drv.current_window_handle
    assert "step=" in drv.current_url, drv.current_url
    drv.switch_to.new_window("tab")
    drv.get(URL + "#tree=dscg&view=location")
    wait.until(lambda d: any("::" in n for n in names()),
               "the second page shows no whole name")
    assert not {"hostA", "hostD"} & set(names()), \
        "the second page sees the first one's compaction: %s" % names()
    lv = drv.find_element(By.ID, "level")
    lv.clear()
    lv.send_keys("1")
    drv.find_element(By.ID, "setlevel").click()
    row("hostD")
    # the whole names fade out as the hosts fade in: wait until gone
    wait.until(lambda d: not any(n.startswith("hostA::") for n in names()),
               "the second page's level 1 left whole names")
    shot("second-page-by-host")
    drv.switch_to.window(first)
    drv.refresh()
    wait.until(lambda d: any(n.startswith("hostA::") for n in names()),
               "the first page lost its compaction on reload")
    check_opened("dscg", "k:", compact="location", step=url_steps())
    drv.switch_to.window(drv.window_handles[-1])
    drv.refresh()
    row("hostD")
    assert not any(n.startswith("hostA::") for n in names()), \
        "the second page sees the first one's expand: %s" % names()
    drv.close()
    drv.switch_to.window(first)
    # CCDG: the specification typed in the page
    tab("ccsg")
    drv.find_element(By.CSS_SELECTOR, '#tabs button[data-tree="ccdg"]').click()
    spec = wait.until(lambda d: d.find_element(By.ID, "spec"))
    spec.clear()
    spec.send_keys(SPEC)
    drv.find_element(By.ID, "estimate").click()
    row("FIG1_PROG::SAY_IT")
    check_opened("ccdg", "n0", spec=SPEC)
    wait.until(lambda d: names(".affected"), "nothing affected")
    affected = set(names(".affected"))
    for name in ("<main>", "FIG1_PROG::FOO", "FIG1_PROG::SAY_IT"):
        assert name in affected, "%s not affected: %s" % (name, affected)
    assert "FIG1_PROG::TIMES" not in affected, affected
    shot("ccdg")
    print("viewer-test: ok, screenshots in %s" % OUT)
except Exception:
    shot("failure")
    raise
finally:
    drv.quit()
