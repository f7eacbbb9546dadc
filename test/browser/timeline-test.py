#!/usr/bin/python3
"""timeline-test.py URL OUTDIR - the viewer's chain timeline (web/timeline.js,
issue 39, item 3) in headless Chromium, driven by Selenium, on the Figure 1
trace: the timeline of the slowest FOO request has lanes per host > process
> thread, FOO's server slice on host A whose x-range holds those of SAY_IT's
three server slices on host D, each SAY_IT with a call arrow ending at its
slice's start and a reply arrow leaving its end, WHAT_TO_SAY's spawns
arrowed into their threads; zooming in with the wheel widens FOO and keeps
the nesting, "unzoom" undoes it; clicking a SAY_IT slice selects its
function in the CCSG's rows, and its call in the DSCG's.  Screenshots:
OUTDIR/timeline.png (the page), timeline-view.png (the timeline alone),
timeline-zoom.png, timeline-dscg.png.  Exit 0 when
all holds; a failure raises (exit 1)."""
import os

from selenium.webdriver.common.by import By

from page import URL, OUT, drv, wait


def slices():
    """What the timeline draws, read in one go: a list of {id, kind, name,
    host, lane, index, x0, x1, y} (x and y on the screen)."""
    return drv.execute_script("""
        const out = [];
        for (const g of document.querySelectorAll('#timeline-svg g.tslice')) {
            const r = g.querySelector('rect.twall').getBoundingClientRect();
            const d = d3.select(g).datum();
            out.push({id: g.dataset.id, kind: g.dataset.kind,
                name: g.dataset.name, host: g.dataset.host, lane: d.lane,
                index: d.index, x0: r.x, x1: r.x + r.width, y: r.y});
        }
        return out;""")


def arrows():
    """Each arrow's kind, slices and ends on the screen."""
    return drv.execute_script("""
        const out = [];
        for (const p of document.querySelectorAll('#timeline-svg path.tarrow')) {
            const m = p.getScreenCTM(), n = p.getTotalLength();
            const a = p.getPointAtLength(0).matrixTransform(m);
            const b = p.getPointAtLength(n).matrixTransform(m);
            out.push({kind: p.dataset.kind, from: +p.dataset.from,
                to: +p.dataset.to, x1: a.x, y1: a.y, x2: b.x, y2: b.y});
        }
        return out;""")


def short(name):
    return name.split("::")[-1].upper()


def pick(ss, fn, kind):
    return [s for s in ss if short(s["name"]) == fn and s["kind"] == kind]


def check_nesting(ss, what):
    foo = pick(ss, "FOO", "server")
    assert len(foo) == 1, "%s: %d FOO server slices" % (what, len(foo))
    foo = foo[0]
    assert foo["host"].endswith("A"), "%s: FOO served on %s" % (
        what, foo["host"])
    say = pick(ss, "SAY_IT", "server")
    assert len(say) == 3, "%s: %d SAY_IT server slices" % (what, len(say))
    for s in say:
        assert s["host"].endswith("D"), "%s: SAY_IT on %s" % (what, s["host"])
        assert foo["x0"] - 0.5 <= s["x0"] and s["x1"] <= foo["x1"] + 0.5, (
            "%s: SAY_IT [%.1f, %.1f] not inside FOO [%.1f, %.1f]" % (
                what, s["x0"], s["x1"], foo["x0"], foo["x1"]))
        print("%s: SAY_IT %s [%.1f, %.1f] inside FOO [%.1f, %.1f]" % (
            what, s["id"], s["x0"], s["x1"], foo["x0"], foo["x1"]))
    return foo, say


def check_arrows(ss, say):
    ar = arrows()
    by_index = {s["index"]: s for s in ss}
    for s in say:
        calls = [a for a in ar if a["kind"] == "call" and a["to"] == s["index"]]
        replies = [a for a in ar if a["kind"] == "reply"
                   and a["from"] == s["index"]]
        assert len(calls) == 1 and len(replies) == 1, (
            "SAY_IT %s: %d call and %d reply arrows" % (
                s["id"], len(calls), len(replies)))
        c, r = calls[0], replies[0]
        stub = by_index[c["from"]]
        assert stub["kind"] == "client" and stub["id"] == s["id"], stub
        assert abs(c["x2"] - s["x0"]) <= 1.0, (
            "the call arrow of %s ends at %.1f, its slice starts at %.1f"
            % (s["id"], c["x2"], s["x0"]))
        assert abs(r["x1"] - s["x1"]) <= 1.0, (
            "the reply arrow of %s leaves at %.1f, its slice ends at %.1f"
            % (s["id"], r["x1"], s["x1"]))
        assert abs(c["x1"] - stub["x0"]) <= 1.0 and \
            abs(r["x2"] - stub["x1"]) <= 1.0, (c, r, stub)
    spawns = [a for a in ar if a["kind"] == "spawn"]
    what = pick(ss, "WHAT_TO_SAY", "server")
    assert what and len([a for a in spawns
                         if a["from"] == what[0]["index"]]) == 2, (
        "WHAT_TO_SAY's spawns: %s" % spawns)
    print("arrows: %d call, %d reply, %d spawn" % (
        len([a for a in ar if a["kind"] == "call"]),
        len([a for a in ar if a["kind"] == "reply"]), len(spawns)))


def shows_foo(d):
    ss = slices()
    return (pick(ss, "FOO", "server") and len(pick(ss, "SAY_IT", "server")) == 3
            and ss)


try:
    drv.get(URL)
    wait.until(lambda d: d.find_element(By.ID, "timeline-toggle"))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#tree div.row"))
    drv.find_element(By.ID, "timeline-toggle").click()
    ss = wait.until(shows_foo, "the timeline shows no FOO and SAY_IT slices")
    lanes = drv.execute_script("""
        return [...document.querySelectorAll('#timeline-svg g.trow')]
            .map((g) => [g.classList[1], g.textContent]);""")
    kinds = [k for k, _ in lanes]
    assert kinds.count("host") == 4, "lanes: %s" % lanes
    assert kinds.index("host") < kinds.index("process") < kinds.index("lane")
    print("lanes: %s" % lanes)
    foo, say = check_nesting(ss, "timeline")
    check_arrows(ss, say)
    drv.save_screenshot(os.path.join(OUT, "timeline.png"))
    # the timeline alone, every lane shown (docs/timeline.png)
    drv.execute_script(
        "document.getElementById('timeline').style.maxHeight = 'none'")
    drv.find_element(By.ID, "timeline").screenshot(
        os.path.join(OUT, "timeline-view.png"))
    drv.execute_script(
        "document.getElementById('timeline').style.maxHeight = ''")

    # zoom in on FOO's middle with the wheel: wider, still nested
    width = foo["x1"] - foo["x0"]
    drv.execute_script("""
        const svg = document.getElementById('timeline-svg');
        svg.dispatchEvent(new WheelEvent('wheel', {deltaY: -600, deltaMode: 0,
            clientX: arguments[0], clientY: arguments[1], bubbles: true,
            cancelable: true}));""", (foo["x0"] + foo["x1"]) / 2, foo["y"] + 5)
    ss = wait.until(lambda d: (lambda s: pick(s, "FOO", "server")[0]["x1"]
                               - pick(s, "FOO", "server")[0]["x0"]
                               > 1.5 * width and s)(slices()),
                    "the wheel did not zoom the timeline")
    zoomed = pick(ss, "FOO", "server")[0]
    print("zoomed: FOO %.1f px wide, was %.1f" % (
        zoomed["x1"] - zoomed["x0"], width))
    check_nesting(ss, "zoomed")
    drv.save_screenshot(os.path.join(OUT, "timeline-zoom.png"))
    drv.find_element(By.ID, "timeline-reset").click()
    wait.until(lambda d: abs((lambda f: f["x1"] - f["x0"])(
        pick(slices(), "FOO", "server")[0]) - width) < 1,
        "unzoom did not restore the timeline")

    # a click on a SAY_IT slice selects its node in the tree shown: its
    # function in the CCSG, its call in the DSCG
    target = say[1]["id"]
    node = drv.execute_script("""
        return d3.select('#timeline-svg g.tslice.server[data-id="' +
            arguments[0] + '"]').datum().node;""", target)
    for tree, want in (("ccsg", node), ("dscg", target)):
        if tree == "dscg":
            drv.find_element(By.CSS_SELECTOR,
                             '#tabs button[data-tree="dscg"]').click()
            wait.until(lambda d: "tree=dscg" in d.current_url)
        drv.execute_script("""
            const g = document.querySelector('#timeline-svg ' +
                'g.tslice.server[data-id="' + arguments[0] + '"]');
            g.dispatchEvent(new MouseEvent('click', {bubbles: true}));""",
                           target)
        wait.until(lambda d: d.find_element(
            By.CSS_SELECTOR, "#tree div.row.selected").get_attribute(
                "data-id") == want,
            "clicking %s selected no row %s in the %s" % (target, want, tree))
        assert "tree=" + tree in drv.current_url, drv.current_url
        print("clicked %s: row %s selected in the %s" % (target, want, tree))
    drv.save_screenshot(os.path.join(OUT, "timeline-dscg.png"))
    print("timeline test passed")
finally:
    drv.quit()
