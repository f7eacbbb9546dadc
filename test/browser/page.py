"""
page.py - what every browser test of the viewer shares: its arguments
(the page's URL, the folder its screenshots go to), headless Chromium
driven by Selenium (Debian's chromium, chromium-driver, python3-selenium),
a wait that retries the rows the page fades out and replaces, and the
server's JSON API asked directly (not through the page).

    from page import URL, OUT, drv, wait, api
"""

import json
import os
import sys
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import (NoSuchElementException,
                                        StaleElementReferenceException)
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

URL, OUT = sys.argv[1], sys.argv[2]
os.makedirs(OUT, exist_ok=True)

_opts = Options()
_opts.binary_location = "/usr/bin/chromium"
for _a in ("--headless=new", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--window-size=1280,800",
           "--no-first-run", "--disable-extensions"):
    _opts.add_argument(_a)
drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"),
                       options=_opts)
# rows fade out and are replaced as trees change: a stale one is retried
wait = WebDriverWait(drv, 60, ignored_exceptions=(
    NoSuchElementException, StaleElementReferenceException))


def api(path, **params):
    """The server's answer to a request of the test (not the page's)."""
    q = urllib.parse.urlencode(params, doseq=True)
    with urllib.request.urlopen(URL.rstrip("/") + path + "?" + q) as r:
        return json.load(r)
