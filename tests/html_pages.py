"""Reading the batch's HTML pages in tests: what a page holds (ids, links, resources, scripts,
its policy, its tables' cells) and which of its links lead nowhere."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    """The parts of a page these tests look at."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.links: list[str] = []
        self.sources: list[str] = []
        self.scripts: list[str] = []
        self.tags: set[str] = set()
        self.policy = ""
        self.rows: dict[str, list[list[str]]] = {}
        self._table: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[list[str]] | None = None
        self._script: list[str] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        for key in ("src", "srcset", "data", "poster", "action", "formaction", "background"):
            if key in a:
                self.sources.append(a[key])
        if tag == "link":
            self.sources.append(a.get("href", ""))
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.policy = a.get("content", "")
        if tag == "script":
            self._script = []
        if tag == "table":
            self._table.append(a.get("id", ""))
        if tag == "tr" and self._table:
            self._row = []
            self.rows.setdefault(self._table[-1], []).append(self._row)
        if tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._row.append(self._cell)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append("".join(self._script))
            self._script = None
        if tag == "table" and self._table:
            self._table.pop()
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


def link_problems(path: Path, pages: dict | None = None) -> list[str]:
    """The links of the page at `path` that lead nowhere: to another site, to a file the batch
    did not write, or to an id the target page lacks."""
    pages = {} if pages is None else pages
    own = pages.setdefault(path.resolve(), parse(path))
    bad = []
    for link in own.links:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc:
            bad.append(f"{link}: another site")
            continue
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path.resolve()
        if not target.is_file():
            bad.append(f"{link}: no such file")
            continue
        if target.suffix == ".html" and target not in pages:
            pages[target] = parse(target)
        if parts.fragment and unquote(parts.fragment) not in pages[target].ids:
            bad.append(f"{link}: no such id")
    return bad
