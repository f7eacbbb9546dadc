#!/usr/bin/python3
"""diff-test.py URL OUTDIR - the viewer's CCSG coloured by its change from
--diff's B (issue 38, item 3) in headless Chromium, driven by Selenium, on
check-serve-diff.c's two traces: the row of 7::slow (twice the CPU in B)
is tinted red and shows its delta, 7::same's is untinted with a grey
delta; the legend says "compared with B"; clicking 7::slow lists its diff
fields in the details.  Screenshot: OUTDIR/diff.png.  Exit 0 when all
holds; a failure raises (exit 1)."""
import os

from selenium.webdriver.common.by import By

from page import URL, OUT, drv, wait


def row(name):
    """The CCSG row of name: its classes, background and delta text."""
    return drv.execute_script("""
        const r = document.querySelector('#tree div.row[data-name="' +
            arguments[0] + '"]');
        if (!r) return null;
        const d = r.querySelector('.ddelta');
        return {cls: r.className, bg: getComputedStyle(r).backgroundColor,
            delta: d ? d.textContent : null,
            noise: d ? d.classList.contains('noise') : null};""", name)


try:
    drv.get(URL + "#tree=ccsg")
    wait.until(lambda d: row("7::slow") and row("7::same"))
    slow, same = row("7::slow"), row("7::same")
    assert "diff-more" in slow["cls"], slow
    rgb = [int(x) for x in slow["bg"][slow["bg"].index("(") + 1:
                                      slow["bg"].index(")")].split(",")[:3]]
    assert rgb[0] > 200 and rgb[1] < 100 and rgb[2] < 100, slow
    assert slow["delta"].startswith("\u0394 +10.0 ms +95.7%"), slow
    assert not slow["noise"], slow
    assert "diff-" not in same["cls"], same
    assert same["bg"] in ("rgba(0, 0, 0, 0)", "transparent"), same
    assert same["noise"] and same["delta"].startswith("\u0394 0 ns"), same
    legend = drv.find_element(By.ID, "difflegend")
    assert legend.is_displayed(), "no legend"
    assert legend.text.startswith("compared with "), legend.text
    drv.find_element(By.CSS_SELECTOR,
                     '#tree div.row[data-name="7::slow"] .name').click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR,
                                         "#info table.diff-fields"))
    fields = drv.find_element(By.CSS_SELECTOR, "#info table.diff-fields").text
    assert "self_cpu_delta_ns" in fields and "significant true" in fields, \
        fields
    drv.save_screenshot(os.path.join(OUT, "diff.png"))
    # the CCDG shows the impact estimate, not the diff: no legend
    drv.find_element(By.CSS_SELECTOR, '#tabs button[data-tree="ccdg"]').click()
    wait.until(lambda d: not d.find_element(By.ID, "difflegend")
               .is_displayed())
finally:
    drv.save_screenshot(os.path.join(OUT, "diff-last.png"))
    drv.quit()
print("diff-test: 7::slow tinted red, 7::same untinted, legend and details")
