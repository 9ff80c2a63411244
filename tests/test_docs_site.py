"""The documentation site as a reader sees it, in headless Chromium (Debian's ``chromium``,
driven by Playwright) at a 1280 x 900 window.

- The presets tables of "Rules: switches" fit the page: no column is hidden behind a
  horizontal scroll, and no field name breaks inside the word (``super_sta rs``).
- The code blocks of the home, getting-started and study pages need no horizontal scroll
  (comments wrap, commands fit); a program's printed output may be wider.

The site is the one ``make docs`` built (``make test`` builds it first), or a fresh build when
the pages are newer. ``UNO_ENV_SCREENSHOTS=DIR`` saves the pictures of the checked parts
(``docs/screenshots/`` keeps them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

sync_api = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).exists():
    pytest.skip("no chromium on this machine (Debian: apt-get install chromium)", allow_module_level=True)


def _newest(folder: Path) -> float:
    return max(p.stat().st_mtime for p in folder.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = ROOT / "site"
    sources = max(_newest(ROOT / "docs"), (ROOT / "mkdocs.yml").stat().st_mtime)
    if (built / "index.html").exists() and _newest(built) >= sources:
        return built
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=900,
    )
    return out


@pytest.fixture(scope="module")
def page(site: Path) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        tab = browser.new_page(viewport={"width": 1280, "height": 900})
        yield tab
        browser.close()


def open_page(page: Any, site: Path, name: str) -> None:
    path = site / name / "index.html" if name else site / "index.html"
    page.goto(path.as_uri())
    page.wait_for_load_state("load")


def screenshot(page: Any, selector: str, name: str) -> None:
    """Save the picture of the first ``selector`` when ``UNO_ENV_SCREENSHOTS`` names a folder."""
    folder = os.environ.get("UNO_ENV_SCREENSHOTS")
    if folder:
        page.locator(selector).first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.evaluate("() => window.scrollBy(0, -70)")  # below the sticky header
        page.screenshot(path=str(Path(folder) / name))


def test_the_presets_tables_fit_the_page(page: Any, site: Path) -> None:
    open_page(page, site, "rule-switches")
    tables = page.evaluate(
        """() => [...document.querySelectorAll('.md-typeset__scrollwrap')].map(
            w => ({scroll: w.scrollWidth, width: w.clientWidth, head: w.querySelector('tr').innerText}))"""
    )
    presets = [t for t in tables if "mau_mau_doubling" in t["head"]]
    assert presets, "the table of the presets' values is missing"
    for table in tables:
        assert table["scroll"] <= table["width"] + 1, f"a table needs a horizontal scroll: {table}"
    screenshot(page, "table:has(th code)", "rule-switches-presets.png")


def test_field_names_never_break_inside_the_word(page: Any, site: Path) -> None:
    open_page(page, site, "rule-switches")
    broken = page.evaluate(
        """() => [...document.querySelectorAll('.md-typeset table code')]
            .filter(c => c.getClientRects().length > 1).map(c => c.innerText)"""
    )
    assert broken == []
    cells = page.evaluate(
        "() => [...document.querySelectorAll('.md-typeset td')].map(c => c.innerText.trim())"
    )
    assert "…" not in cells and "" not in cells  # every cell says its value


@pytest.mark.parametrize("name", ["", "study", "getting-started"])
def test_code_blocks_need_no_horizontal_scroll(page: Any, site: Path, name: str) -> None:
    open_page(page, site, name)
    wide = page.evaluate(
        """() => [...document.querySelectorAll('pre > code')]
            .filter(c => c.querySelector('span[class]'))  // code, not a program's printed output
            .filter(c => c.scrollWidth > c.clientWidth + 1)
            .map(c => c.innerText.split('\\n').sort((a, b) => b.length - a.length)[0])"""
    )
    assert wide == []
    screenshot(page, "pre > code .c1, pre > code .c", f"code-{name or 'index'}.png")
