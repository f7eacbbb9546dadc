#!/usr/bin/python3
"""flame-test.py URL OUTDIR - the viewer's flame graph (web/flame.js, issue
39, item 2) in headless Chromium, driven by Selenium, on the Figure 1
trace: the CCSG's flame graph has FOO, SAY_IT and TIMES as wide as their
share of the root's total CPU (within a pixel of total / root's total x
the view's width, the figures read from the API), coloured by the host
they ran on, with the hosts in a legend; the search box highlights
SAY_IT; clicking FOO zooms to it (FOO fills the width, SAY_IT widens by
root / FOO) and selects it in the tree's rows, and the path zooms out
again; the DSCG's flame graph colours the three SAY_IT invocations as
host D.  Screenshots: OUTDIR/flame.png (the CCSG's), flame-zoom.png,
flame-dscg.png.  Exit 0 when all holds; a failure raises (exit 1)."""
import os

from selenium.webdriver.common.by import By

from page import URL, OUT, drv, wait, api



def ccsg_ids():
    """name -> node of the CCSG's primary tree, from the API."""
    out, todo = {}, [api("/api/node", tree="ccsg", id="n0")]
    while todo:
        n = todo.pop()
        out[n["name"]] = n
        if n["has_children"]:
            todo += api("/api/children", tree="ccsg", id=n["id"],
                        limit=10000)["children"]
    return out


def rects():
    """What the flame graph draws, read in one go: id -> (name, x, width,
    depth row's y, fill, classes), and the view's width."""
    return drv.execute_script("""
        const svg = document.getElementById('flame-svg');
        const out = {};
        for (const g of svg.querySelectorAll('g.fnode[data-id]')) {
            const r = g.querySelector('rect').getBoundingClientRect();
            out[g.dataset.id] = [g.dataset.name, r.x, r.width, r.y,
                g.querySelector('rect').getAttribute('fill'),
                g.getAttribute('class')];
        }
        return [out, +svg.getAttribute('width'),
                svg.getBoundingClientRect().x];""")


def flame_shows(root_id, *ids):
    """Wait until the flame graph's top rectangle is root_id and ids are
    drawn; what rects() read then."""
    seen = ["nothing"]

    def holds(d):
        r, w, x0 = rects()
        top = [k for k, v in r.items() if abs(v[1] - x0) < 1
               and v[3] == min(u[3] for u in r.values())] if r else []
        seen[0] = "top %s, ids %s" % (top, sorted(r))
        return (root_id in top and all(i in r for i in ids)
                and (r, w, x0))
    try:
        return wait.until(holds)
    except Exception:
        raise AssertionError("flame graph not shown with %s at the top and "
                             "%s: %s" % (root_id, ids, seen[0]))


def check_widths(r, w, top_total, nodes, what):
    for name in nodes:
        n = nodes[name]
        want = n["total"] / top_total * w
        got = r[n["id"]][2]
        assert abs(got - want) <= 1.0, (
            "%s: %s is %.2f px wide, the CCSG's figures say %.2f "
            "(%d / %d x %d)" % (what, name, got, want, n["total"],
                                top_total, w))
        print("%s: %s %.2f px (want %.2f)" % (what, name, got, want))


def click_rect(node_id):
    def attempt(d):
        g = d.find_element(By.CSS_SELECTOR,
                           '#flame-svg g.fnode[data-id="%s"] rect' % node_id)
        g.click()
        return True
    wait.until(attempt, "cannot click the rectangle of %s" % node_id)


def selected_row():
    return wait.until(lambda d: d.find_element(
        By.CSS_SELECTOR, "#tree div.row.selected").get_attribute("data-id"),
        "no row selected")


try:
    nodes = ccsg_ids()
    foo, say, times = (nodes["FIG1_PROG::" + k]
                       for k in ("FOO", "SAY_IT", "TIMES"))
    root = nodes["<main>"]
    drv.get(URL + "#tree=ccsg")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR,
                                         "#tree div.row[data-id]"),
               "the CCSG shows no row")
    drv.find_element(By.ID, "flame-toggle").click()
    r, w, x0 = flame_shows(root["id"], foo["id"], say["id"], times["id"])
    assert w > 300, "the flame graph is %d px wide" % w
    check_widths(r, w, root["total"], {k: nodes[k] for k in (
        "<main>", "FIG1_PROG::FOO", "FIG1_PROG::SAY_IT", "FIG1_PROG::TIMES")},
        "whole CCSG")
    # an icicle: SAY_IT and TIMES a row under FOO, inside it
    for n in (say, times):
        assert r[n["id"]][3] > r[foo["id"]][3], "%s not under FOO" % n["name"]
        assert (r[n["id"]][1] >= r[foo["id"]][1] - 0.5 and
                r[n["id"]][1] + r[n["id"]][2] <=
                r[foo["id"]][1] + r[foo["id"]][2] + 0.5), (
            "%s not inside FOO" % n["name"])
    # colours by host: FOO ran on hostA, SAY_IT on hostD, TIMES on hostB
    legend = dict(drv.execute_script(
        "return [...document.querySelectorAll('#flame-legend .flame-host')]"
        ".map(s => [s.dataset.host, s.querySelector('i').style.background])"))
    assert sorted(legend) == ["hostA", "hostB", "hostC", "hostD"], legend
    fills = {n["name"]: r[n["id"]][4] for n in (foo, say, times)}
    assert len(set(fills.values())) == 3, fills
    for n, h in ((foo, "hostA"), (say, "hostD"), (times, "hostB")):
        sw = drv.execute_script(
            "const i = document.createElement('i'); i.style.background = "
            "arguments[0]; return i.style.background;", r[n["id"]][4])
        assert sw == legend[h], "%s is %s, legend's %s is %s" % (
            n["name"], sw, h, legend[h])
    drv.save_screenshot(os.path.join(OUT, "flame.png"))

    # the search box highlights the rectangles whose name holds the text
    box = drv.find_element(By.ID, "search")
    box.send_keys("say_it")
    wait.until(lambda d: "match" in rects()[0][say["id"]][5].split(),
               "SAY_IT not highlighted by the search")
    r = rects()[0]
    assert r[foo["id"]][5].split() == ["fnode", "unmatched"], r[foo["id"]]
    assert "1 match" in drv.find_element(By.ID, "flame-found").text, (
        drv.find_element(By.ID, "flame-found").text)
    box.clear()
    drv.execute_script("document.getElementById('search')"
                       ".dispatchEvent(new Event('input'))")

    # clicking FOO zooms to it and selects it in the tree
    click_rect(foo["id"])
    r, w, x0 = flame_shows(foo["id"], say["id"])
    check_widths(r, w, foo["total"], {k: nodes[k] for k in (
        "FIG1_PROG::FOO", "FIG1_PROG::SAY_IT", "FIG1_PROG::TIMES")},
        "zoomed to FOO")
    assert abs(r[foo["id"]][2] - w) <= 1, "FOO does not fill the width"
    assert root["id"] not in r, "the zoomed view still shows the root"
    wait.until(lambda d: selected_row() == foo["id"],
               "clicking FOO did not select it in the tree")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#info h2").text ==
               foo["name"], "the details do not show FOO")
    drv.save_screenshot(os.path.join(OUT, "flame-zoom.png"))
    # SAY_IT: selected in the tree, its rows opened down to it
    click_rect(say["id"])
    flame_shows(say["id"])
    wait.until(lambda d: selected_row() == say["id"],
               "clicking SAY_IT did not select it in the tree")
    # the path zooms out to the whole tree
    drv.find_element(By.CSS_SELECTOR, '#flame-path .crumb[data-id="n0"]').click()
    r, w, x0 = flame_shows(root["id"], foo["id"])
    check_widths(r, w, root["total"], {"FIG1_PROG::FOO": foo}, "zoomed out")

    # the DSCG: the three invocations of SAY_IT in host D's colour
    drv.find_element(By.CSS_SELECTOR, '#tabs button[data-tree="dscg"]').click()
    r, w, x0 = flame_shows("m")
    says = [v for v in r.values() if v[0] == "FIG1_PROG::SAY_IT"]
    assert len(says) == 3, "the DSCG's flame graph shows %d SAY_IT" % len(
        says)
    legend = dict(drv.execute_script(
        "return [...document.querySelectorAll('#flame-legend .flame-host')]"
        ".map(s => [s.dataset.host, s.querySelector('i').style.background])"))
    for v in says:
        sw = drv.execute_script(
            "const i = document.createElement('i'); i.style.background = "
            "arguments[0]; return i.style.background;", v[4])
        assert sw == legend["hostD"], "a SAY_IT is %s, not hostD's %s" % (
            sw, legend["hostD"])
    drv.save_screenshot(os.path.join(OUT, "flame-dscg.png"))
    print("flame-test: all checks passed")
finally:
    drv.quit()
