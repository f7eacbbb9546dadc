#!/usr/bin/python3
"""hyper-test.py URL OUTDIR - the viewer's hyperbolic tree (web/hyper.js,
issue 39, item 4) in headless Chromium, driven by Selenium.  On the
Figure 1 trace: the CCSG's hyperbolic tree shows its root at the centre
of the disk; clicking SAY_IT (off centre) brings it to the centre within
a pixel, keeps the hyperbolic distances to its parent and children (the
move is an isometry of the disk), leaves its parent on the side it came
from (every child at least 60 degrees away from the parent's direction,
the layout's wedges), draws nothing outside the disk, and selects SAY_IT
in the tree's rows.  The DSCG's tree shows the three invocations of
SAY_IT.  Then a generated tree of 10,000 nodes (handed to the view in
/api/flame's form): ten clicks, each node at the centre afterwards and
nothing outside the disk; the frames drawn per second during the
transitions and each frame's work are printed (not asserted: the box is
shared).  Screenshots: OUTDIR/hyper.png, hyper-say.png (hyper-view.png: the
view alone, as docs/hyper.png shows it), hyper-dscg.png, hyper-10k.png.  Exit 0 when all holds; a failure raises (exit 1)."""
import math
import os
import random

from selenium.webdriver.common.by import By

from page import URL, OUT, drv, wait, api



def drawn():
    """What the view draws, when it is still: (disk cx, cy, R), and
    index -> (id, x, y, r, parent index); None while it moves."""
    return drv.execute_script("""
        const svg = document.getElementById('hyper-svg');
        if (svg.getAttribute('data-moving')) return null;
        const out = {};
        for (const c of svg.querySelectorAll('circle.hnode')) {
            if (c.style.display === 'none') continue;
            out[c.getAttribute('data-i')] = [c.getAttribute('data-id'),
                +c.getAttribute('cx'), +c.getAttribute('cy'),
                +c.getAttribute('r'), +c.getAttribute('data-parent')];
        }
        return [[+svg.getAttribute('data-cx'), +svg.getAttribute('data-cy'),
                 +svg.getAttribute('data-r')], out];""")


def still(*ids):
    """Wait until the view is still and draws ids; what drawn() read."""
    seen = ["nothing"]

    def holds(d):
        r = drawn()
        if not r:
            seen[0] = "moving"
            return False
        have = {v[0] for v in r[1].values()}
        seen[0] = "%d drawn" % len(r[1])
        return all(i in have for i in ids) and r
    try:
        return wait.until(holds)
    except Exception:
        raise AssertionError("hyperbolic view does not draw %s: %s" %
                             (ids, seen[0]))


def by_id(r, node_id):
    return [k for k, v in r[1].items() if v[0] == node_id][0]


def disk(r, v):
    """A drawn circle's point in the unit disk."""
    (cx, cy, R) = r[0]
    return complex((v[1] - cx) / R, (v[2] - cy) / R)


def hdist(z, w):
    return 2 * math.atanh(min(1 - 1e-12, abs(z - w) / abs(1 - z.conjugate() * w)))


def inside(r, what):
    (cx, cy, R) = r[0]
    for k, v in r[1].items():
        d = math.hypot(v[1] - cx, v[2] - cy) + v[3]
        assert d <= R + 0.5, "%s: node %s (%s) reaches %.1f px from the " \
            "centre, outside the disk of %.1f" % (what, k, v[0], d, R)


def centred(r, k, what):
    (cx, cy, R) = r[0]
    v = r[1][k]
    off = math.hypot(v[1] - cx, v[2] - cy)
    assert off <= 1.0, "%s: node %s is %.2f px from the centre" % (
        what, v[0], off)
    return off


def neighbours(r, k):
    """The drawn parent and children of drawn node k (indexes)."""
    kids = [j for j, v in r[1].items() if str(v[4]) == str(k)]
    p = str(r[1][k][4])
    return (p if p in r[1] else None), kids


def click(k):
    def attempt(d):
        d.find_element(By.CSS_SELECTOR,
                       '#hyper-svg circle.hnode[data-i="%s"]' % k).click()
        return True
    wait.until(attempt, "cannot click node %s" % k)


def check_move(before, k, after, what):
    """Node k, off centre before, is at the centre after; the distances to
    its neighbours are kept; its children are away from its parent."""
    centred(after, k, what)
    inside(after, what)
    p, kids = neighbours(before, k)
    z0, z1 = disk(before, before[1][k]), disk(after, after[1][k])
    for j in ([p] if p else []) + kids:
        if j not in after[1]:
            continue
        d0 = hdist(z0, disk(before, before[1][j]))
        d1 = hdist(z1, disk(after, after[1][j]))
        assert abs(d0 - d1) <= 0.03 * max(1, d0), (
            "%s: the distance from %s to %s was %.3f, is %.3f" % (
                what, before[1][k][0], before[1][j][0], d0, d1))
    p, kids = neighbours(after, k)
    if p:
        up = disk(after, after[1][p])
        for j in kids:
            a = abs(math.degrees(math.remainder(
                math.atan2(up.imag, up.real) - math.atan2(
                    disk(after, after[1][j]).imag,
                    disk(after, after[1][j]).real), 2 * math.pi)))
            assert a >= 55, "%s: child %s is %.0f degrees from the parent" \
                % (what, after[1][j][0], a)


def selected_row():
    return wait.until(lambda d: d.find_element(
        By.CSS_SELECTOR, "#tree div.row.selected").get_attribute("data-id"),
        "no row selected")


def generated(n, seed):
    """A random tree of n nodes in /api/flame's form: a few heavy
    branches, fan-outs from 1 to 40, CPU split down the tree."""
    rnd = random.Random(seed)
    nodes = [{"parent": -1, "node": {"id": "x0", "name": "root",
                                     "total": 10 ** 9, "host": "hostA"}}]
    frontier = [0]
    while len(nodes) < n:
        p = frontier.pop(0) if rnd.random() < 0.7 else rnd.choice(frontier)
        fan = min(n - len(nodes), rnd.choice((1, 2, 3, 5, 8, 13, 40)))
        share = nodes[p]["node"]["total"] / (fan + 1)
        for _ in range(fan):
            i = len(nodes)
            nodes.append({"parent": p, "node": {
                "id": "x%d" % i, "name": "f%d" % i,
                "total": int(share * rnd.uniform(0.2, 1.0)),
                "host": "host" + "ABCD"[i % 4]}})
            frontier.append(i)
        if not frontier:
            frontier = [len(nodes) - 1]
    return {"nodes": nodes}


try:
    ccsg = {}
    todo = [api("/api/node", tree="ccsg", id="n0")]
    while todo:
        n = todo.pop()
        ccsg[n["name"]] = n
        if n["has_children"]:
            todo += api("/api/children", tree="ccsg", id=n["id"],
                        limit=10000)["children"]
    root, say = ccsg["<main>"], ccsg["FIG1_PROG::SAY_IT"]
    drv.get(URL + "#tree=ccsg")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR,
                                         "#tree div.row[data-id]"),
               "the CCSG shows no row")
    drv.find_element(By.ID, "hyper-toggle").click()
    r = still(root["id"], say["id"])
    centred(r, by_id(r, root["id"]), "the CCSG opened")
    inside(r, "the CCSG opened")
    assert len(r[1]) == len(ccsg), "%d nodes drawn, the CCSG has %d" % (
        len(r[1]), len(ccsg))
    drv.save_screenshot(os.path.join(OUT, "hyper.png"))

    # SAY_IT clicked: to the centre, an isometry, selected in the rows
    k = by_id(r, say["id"])
    (cx, cy, R) = r[0]
    off = math.hypot(r[1][k][1] - cx, r[1][k][2] - cy)
    assert off > 20, "SAY_IT is already at the centre (%.1f px)" % off
    click(k)
    after = wait.until(lambda d: (lambda a: a and a[1][k][0] == say["id"] and
                                  math.hypot(a[1][k][1] - a[0][0],
                                             a[1][k][2] - a[0][1]) < 1 and a)
                       (still(say["id"])), "SAY_IT not brought to the centre")
    check_move(r, k, after, "SAY_IT clicked")
    wait.until(lambda d: selected_row() == say["id"],
               "clicking SAY_IT did not select it in the tree")
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#info h2").text ==
               say["name"], "the details do not show SAY_IT")
    drv.save_screenshot(os.path.join(OUT, "hyper-say.png"))
    drv.find_element(By.ID, "hyper").screenshot(
        os.path.join(OUT, "hyper-view.png"))
    print("hyper-test: SAY_IT from %.1f px to the centre" % off)

    # the DSCG: its three invocations of SAY_IT drawn
    drv.find_element(By.CSS_SELECTOR, '#tabs button[data-tree="dscg"]').click()

    def dscg_drawn(d):
        a = drawn()
        return a and "m" in {v[0] for v in a[1].values()} and a
    a = wait.until(dscg_drawn, "the DSCG's hyperbolic tree not drawn")
    says = [c for c in api("/api/search", tree="dscg", q="SAY_IT",
                           limit=50)["results"] if c["id"].startswith("c")]
    assert len(says) == 3, says
    # deep in the DSCG: click the deepest drawn ancestor of the first
    # SAY_IT until the three are drawn
    path = [p["node"]["id"] for p in api("/api/path", tree="dscg",
                                         id=says[0]["id"])["path"]]
    for _ in range(6):
        have = {v[0]: k for k, v in a[1].items()}
        if all(c["id"] in have for c in says):
            break
        up = [i for i in path if i in have][-1]
        click(have[up])
        a = wait.until(lambda d: (lambda x: x and up in {
            v[0] for v in x[1].values()} and centred(
            x, by_id(x, up), "DSCG") < 1 and x)(drawn()),
            "the DSCG's %s not brought to the centre" % up)
    have = {v[0] for v in a[1].values()}
    for c in says:
        assert c["id"] in have, "the DSCG's SAY_IT %s not drawn" % c["id"]
    inside(a, "the DSCG")
    drv.save_screenshot(os.path.join(OUT, "hyper-dscg.png"))

    # 10,000 generated nodes: ten clicks, frames per second measured
    drv.execute_script("Hyper.show(arguments[0], false)", generated(10000, 39))
    r = still("x0")
    assert drv.execute_script("return Hyper.count()") == 10000
    inside(r, "10,000 nodes")
    drv.execute_script("Hyper.reset()")
    rnd = random.Random(7)
    for step in range(10):
        (cx, cy, R) = r[0]
        top = set(drv.execute_script("""
            return [...document.querySelectorAll('#hyper-svg circle.hnode')]
                .filter(c => c.style.display !== 'none').filter(c => {
                    const b = c.getBoundingClientRect();
                    return document.elementFromPoint(b.x + b.width / 2,
                        b.y + b.height / 2) === c;
                }).map(c => c.getAttribute('data-i'));"""))
        pick = [j for j, v in r[1].items()
                if v[3] >= 3 and 30 < math.hypot(v[1] - cx, v[2] - cy)
                and math.hypot(v[1] - cx, v[2] - cy) + v[3] < R - 2
                and j in top]
        assert pick, "nothing to click in the 10,000 nodes' view"
        k = rnd.choice(sorted(pick))
        want = r[1][k][0]
        click(k)
        after = wait.until(lambda d: (lambda a: a and want in {
            v[0] for v in a[1].values()} and math.hypot(
            a[1][by_id(a, want)][1] - a[0][0],
            a[1][by_id(a, want)][2] - a[0][1]) < 1 and a)(drawn()),
            "10,000 nodes: %s not brought to the centre" % want)
        check_move(r, k, after, "10,000 nodes, click %d" % step)
        r = after
    s = drv.execute_script("return Hyper.stats()")
    fps = s["frames"] / (s["elapsed"] / 1000) if s["elapsed"] else 0
    print("hyper-test: 10,000 nodes, %d transitions: %.1f frames/s, "
          "%.2f ms of work a frame (worst %.2f), up to %d circles drawn" % (
              s["transitions"], fps, s["work"] / max(1, s["frames"]),
              s["worst"], s["most"]))
    drv.save_screenshot(os.path.join(OUT, "hyper-10k.png"))
    print("hyper-test: all checks passed")
finally:
    drv.quit()
