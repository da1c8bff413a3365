"""A page loaded in a real headless browser (Debian's chromium, installed by `make chromium`):
what went wrong while it loaded, whether anything overflows the viewport, whether its sortable
tables sort, and a screenshot for a person to look at (build/screenshots/, git-ignored).

The page is loaded from a copy that carries two small probe scripts: one at the top of <head>
records errors (uncaught exceptions, console.error, a resource that failed to load, anything
the page's Content-Security-Policy blocked), one at the end of <body> measures the layout at
`width` px, clicks every sort button of every ``table.sortable`` and checks the column came out
sorted (after the load event, in the browser's virtual time), then writes its findings into the
DOM as JSON, which ``--dump-dom`` hands back. The
page's own policy is kept and only widened by the probes' hashes: an external URL, a script
other than the page's own, or a page script whose hash is wrong still shows up as an error.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "build" / "screenshots"
WIDTH = 1280


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def skip_reason() -> str | None:
    """Why the browser tests cannot run here (None when they can)."""
    if chromium() is None:
        return ("no headless browser: `make chromium` installs Debian's chromium (as root with "
                "apt-get); without it the report pages are not checked in a browser")
    return None


ERRORS = r"""
window.__probeErrors = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  window.__probeErrors.push(t && t !== window && t.tagName
    ? 'failed to load ' + t.tagName + ' ' + (t.src || t.href || '')
    : 'uncaught ' + e.message + ' at ' + e.lineno);
}, true);
document.addEventListener('securitypolicyviolation', function (e) {
  window.__probeErrors.push('blocked by the page policy: ' + e.violatedDirective + ' ' +
                            e.blockedURI);
});
var __consoleError = console.error;
console.error = function () {
  window.__probeErrors.push('console.error ' + Array.prototype.join.call(arguments, ' '));
  return __consoleError.apply(console, arguments);
};
"""

MEASURE = r"""
window.addEventListener('load', function () { setTimeout(function () {
  var out = {errors: window.__probeErrors, innerWidth: window.innerWidth,
             scrollWidth: document.documentElement.scrollWidth,
             scrollHeight: document.documentElement.scrollHeight,
             wide: [], unsorted: [], sorted: 0};
  Array.prototype.forEach.call(document.body.querySelectorAll('*'), function (el) {
    var r = el.getBoundingClientRect();
    if (r.right > window.innerWidth + 0.5 && out.wide.length < 10) {
      var cls = typeof el.className === 'string' && el.className ? '.' + el.className : '';
      out.wide.push(el.tagName + (el.id ? '#' + el.id : '') + cls + ' ' + Math.round(r.right));
    }
  });
  function keys(table, col) {
    return Array.prototype.map.call(table.tBodies[0].rows, function (r) {
      return r.cells[col].getAttribute('data-sort') || '';
    });
  }
  function inOrder(list, up) {
    for (var i = 1; i < list.length; i++) {
      var a = list[i - 1], b = list[i], x = parseFloat(a), y = parseFloat(b), c;
      if (!isNaN(x) && !isNaN(y)) { c = x - y; }
      else if (isNaN(x) !== isNaN(y)) { c = isNaN(x) ? 1 : -1; }
      else { c = a.localeCompare(b, document.documentElement.lang); }
      if (up ? c > 0 : c < 0) { return false; }
    }
    return true;
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var n = table.tBodies[0].rows.length;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var button = th.querySelector('button');
      if (!button) { return; }
      [true, false].forEach(function () {
        button.click();
        var up = th.getAttribute('aria-sort') === 'ascending';
        if (table.tBodies[0].rows.length !== n || !inOrder(keys(table, col), up)) {
          out.unsorted.push((table.id || 'table') + ' column ' + col + (up ? ' up' : ' down'));
        }
        out.sorted += 1;
      });
    });
  });
  var pre = document.createElement('pre');
  pre.id = '__probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 50); });
"""


def _hash(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"


def _probed(page: str) -> str:
    """`page` with the probes, its own policy widened by their hashes only."""
    extra = f"{_hash(ERRORS)} {_hash(MEASURE)}"

    def widen(m: re.Match) -> str:
        policy = html.unescape(m.group(2))
        if "script-src 'none'" in policy:
            policy = policy.replace("script-src 'none'", f"script-src {extra}")
        else:
            policy = policy.replace("script-src ", f"script-src {extra} ", 1)
        return m.group(1) + html.escape(policy) + m.group(3)

    page, n = re.subn(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")', widen,
                      page, count=1)
    assert n == 1, "the page declares no Content-Security-Policy"
    head = page.index("<head>") + len("<head>")
    page = page[:head] + f"\n<script>{ERRORS}</script>" + page[head:]
    end = page.rindex("</body>")
    return page[:end] + f"<script>{MEASURE}</script>\n" + page[end:]


def _starts() -> bool:
    """Whether chromium starts here at all (an empty page loads)."""
    res = _run(["--dump-dom", "about:blank"], ROOT)
    return res.returncode == 0 and "<body" in res.stdout


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    exe = chromium()
    with tempfile.TemporaryDirectory(prefix="andrea-chromium-") as profile:
        cmd = [exe, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--disable-background-networking", "--disable-sync",
               "--mute-audio", "--hide-scrollbars", f"--user-data-dir={profile}", *args]
        if os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")   # chromium refuses root otherwise
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def check(page: Path, shot: str | None = None, *, width: int = WIDTH) -> dict:
    """Load `page` at `width` px: {errors, scrollWidth, innerWidth, wide, unsorted, sorted,
    screenshot}. The probed copy sits next to the page (links to the files the batch wrote
    beside it resolve as they would); `shot` names the screenshot kept under
    build/screenshots/."""
    probed = page.with_name(f".probe-{page.name}")
    probed.write_text(_probed(page.read_text(encoding="utf-8")), encoding="utf-8")
    try:
        # virtual time: the probe runs after the load event and the policy's reports, however
        # busy the machine is
        res = _run([f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
                    probed.as_uri()], page.parent)
        m = re.search(r'<pre id="__probe">(.*?)</pre>', res.stdout, re.S)
        if not m and not _starts():
            import pytest

            pytest.skip(f"chromium is installed but cannot start here: {res.stderr[-500:]}")
        assert m, f"the page did not load in chromium: {res.stderr[-2000:]}"
        out = json.loads(html.unescape(m.group(1)))
        if shot:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            target = SCREENSHOTS / f"{shot}.png"
            height = max(600, min(int(out["scrollHeight"]), 8000))
            _run([f"--window-size={width},{height}", f"--screenshot={target}", page.as_uri()],
                 page.parent)
            out["screenshot"] = target if target.is_file() else None
        return out
    finally:
        probed.unlink(missing_ok=True)
