#!/usr/bin/python3
"""pes-test.py URL OUTDIR - the PES views of a thread selected in the DSCG
(web/pes.js over /api/pes, issue 39, item 5) in headless Chromium, driven
by Selenium, on the Figure 1 trace: selecting the server thread that
serves FOO shows its time, event and frequency views; the time view's
axis is the time since the sequence's start in a readable unit (ms here,
its ticks small numbers) with the absolute start in the title, the
states named on the y axis without overlapping; the frequency view runs
by default to where 99% of the power lies below (as computed here from
the API's periodogram) and a quarter more, and turns logarithmic on
request; dragging across the time view clips the sequence (the server's
answer for that clip is what is drawn, its span shorter).  Screenshots:
OUTDIR/pes.png, pes-view.png (the views alone, as docs/pes-view.png shows
them), pes-clipped.png.  Exit 0 when all holds; a failure raises."""
import os

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from page import URL, OUT, drv, wait, api



def attr(el_id, name):
    return drv.find_element(By.ID, el_id).get_attribute(name)


try:
    # the thread serving FOO: the server side of the call FOO
    foo = [c for c in api("/api/search", tree="dscg", q="FOO",
                          limit=50)["results"] if c["id"].startswith("c")][0]
    thread = "%d:%d" % (foo["proc_id"], foo["tid"])
    whole = api("/api/pes", thread=thread)
    start = whole["time"]["points"][0][0]
    drv.get(URL + "#tree=dscg&node=t%d.%d" % (foo["proc_id"], foo["tid"]))
    wait.until(lambda d: d.find_element(By.ID, "pes").is_displayed() and
               d.find_elements(By.CSS_SELECTOR, "#pes-time path.pes-line"),
               "selecting the thread shows no PES")
    title = drv.find_element(By.CSS_SELECTOR, "#pes-time .title").text
    assert title == "time view, starting at %d ns" % start, title
    span = int(attr("pes-time", "data-span"))
    unit = attr("pes-time", "data-unit")
    assert unit == {True: "ms", False: "s"}[span < 1e9], (unit, span)
    ticks = [float(t.text.replace("\u2212", "-").replace(",", "")) for t in
             drv.find_elements(By.CSS_SELECTOR, "#pes-time .xaxis text")]
    per = {"s": 1e9, "ms": 1e6}[unit]
    assert ticks and max(ticks) <= span / per + 1e-9 and min(ticks) >= 0, (
        "time ticks %s for a span of %d ns in %s" % (ticks, span, unit))
    print("pes-test: time view over %.1f %s, ticks %s" % (span / per, unit,
                                                           ticks))
    # the states by name, none overlapping
    boxes = drv.execute_script("""
        return [...document.querySelectorAll('#pes-time text.state')].map(
            t => { const b = t.getBoundingClientRect();
                   return [t.textContent, b.top, b.bottom]; });""")
    names = [b[0] for b in boxes]
    assert "serving:FIG1_PROG::FOO" in names or any(
        "FOO" in n for n in names), names
    boxes.sort(key=lambda b: b[1])
    for a, b in zip(boxes, boxes[1:]):
        assert a[2] <= b[1] + 0.5, "state names overlap: %s and %s" % (
            a[0], b[0])
    # the frequency view: 99% of the power below share, a quarter more
    pw = whole["frequency"]["power"]
    bw = whole["frequency"]["bin_width"]
    total, acc, share = sum(pw[1:]), 0, len(pw) - 1
    for j in range(1, len(pw)):
        acc += pw[j]
        if acc >= 0.99 * total:
            share = j
            break
    assert attr("pes-freq", "data-scale") == "linear"
    got = float(attr("pes-freq", "data-share"))
    assert abs(got - share * bw) <= 1e-6 * bw * len(pw), (got, share * bw)
    to = float(attr("pes-freq", "data-to"))
    assert to < (len(pw) - 1) * bw, "the frequency view runs to Nyquist"
    print("pes-test: frequency view to %.1f Hz (99%% below %.1f Hz, "
          "Nyquist %.1f Hz)" % (to, share * bw, (len(pw) - 1) * bw))
    drv.save_screenshot(os.path.join(OUT, "pes.png"))
    drv.execute_script("document.getElementById('pes').scrollIntoView()")
    drv.find_element(By.ID, "pes").screenshot(
        os.path.join(OUT, "pes-view.png"))
    drv.find_element(By.ID, "pes-log").click()
    wait.until(lambda d: attr("pes-freq", "data-scale") == "log",
               "the log frequency option does not make the axis log")
    drv.find_element(By.ID, "pes-log").click()

    # drag across the middle of the time view: clipped to it
    svg = drv.find_element(By.ID, "pes-time")
    overlay = svg.find_element(By.CSS_SELECTOR, ".pes-brush .overlay")
    w = overlay.size["width"]
    ActionChains(drv).move_to_element_with_offset(overlay, int(-w * 0.2), 0) \
        .click_and_hold().move_by_offset(int(w * 0.4), 0).release().perform()
    wait.until(lambda d: "clipped time:" in d.find_element(
        By.ID, "pes-head").text, "dragging did not clip the time view")
    clip = drv.find_element(By.ID, "pes-head").text.split("clipped ")[1] \
        .rstrip(")")
    t0, t1 = (int(v) for v in clip.split(":")[1:3])
    assert start < t0 < t1 < start + span, (start, t0, t1, span)
    wait.until(lambda d: int(attr("pes-time", "data-span")) == t1 - t0,
               "the clipped view does not span the clip")
    got = int(attr("pes-time", "data-start"))
    assert got == t0, "the clipped view starts at %d, not %d" % (got, t0)
    cut = api("/api/pes", thread=thread, clip=clip)
    assert cut["time"]["points"][0][0] == t0
    print("pes-test: clipped to %s (%.1f of %.1f %s)" % (
        clip, (t1 - t0) / per, span / per, unit))
    drv.save_screenshot(os.path.join(OUT, "pes-clipped.png"))
    drv.find_element(By.ID, "pes-reset").click()
    wait.until(lambda d: int(attr("pes-time", "data-span")) == span,
               "the whole sequence not shown again")
    print("pes-test: all checks passed")
finally:
    drv.quit()
