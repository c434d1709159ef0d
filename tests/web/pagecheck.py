"""Checks every browser test can run on a page: layout (nothing off screen, nothing
overlapping, no text too small to read) and accessibility (axe-core in the page).

:func:`check_page` runs both at a phone's and a desktop's size and saves screenshots to
``test-artifacts/screenshots/``.  axe-core comes from the ``axe-playwright-python``
test dependency (it ships ``axe.min.js``); nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

#: In the page: every visible "atom" (a run of text, a control, a card, a tile, a game
#: piece) must lie within the viewport's width and overlap no other atom that is not its
#: ancestor; no box may scroll sideways; text must be at least 10 px tall, and a line may
#: break inside a word only when the word is longer than 20 characters (an id, a seed);
#: cards, dominoes and kingdom cells must be at least 12 px wide.  A box fixed to the
#: screen (a phone's action bar) lies over the page by design: its atoms are checked
#: against each other only, and the page must scroll far enough that nothing stays
#: under it for good.
LAYOUT_JS = r"""
() => {
  const problems = [];
  const W = document.documentElement.clientWidth;
  const ATOMS = "button, input, select, textarea, img, svg, .card, .domino .half, .kingdom-grid .cell," +
    " circle[class*='piece'], circle.point, .avatar, .badge, .clock, .stone, .chip-icon, .crowns, .castle";
  const name = el => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    const cls = typeof el.className === "string" ? el.className : (el.className && el.className.baseVal) || "";
    if (cls.trim()) s += "." + cls.trim().split(/\s+/).slice(0, 2).join(".");
    return s;
  };
  const clipCache = new Map();
  function clipOf(el) {                 // the box that ancestors' overflow leaves visible
    if (!el || el === document.documentElement) return {left: -1e9, top: -1e9, right: 1e9, bottom: 1e9};
    if (clipCache.has(el)) return clipCache.get(el);
    let clip = clipOf(el.parentElement);
    const cs = getComputedStyle(el);
    if (cs.overflowX !== "visible" || cs.overflowY !== "visible" || cs.clipPath !== "none") {
      const r = el.getBoundingClientRect();
      clip = {left: Math.max(clip.left, r.left), top: Math.max(clip.top, r.top),
        right: Math.min(clip.right, r.right), bottom: Math.min(clip.bottom, r.bottom)};
    }
    clipCache.set(el, clip);
    return clip;
  }
  function shown(el) {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === "none" || cs.visibility === "hidden" || Number(cs.opacity) === 0) return false;
      const up = e.parentElement;  // the content of a closed <details> is not drawn
      if (up && up.tagName === "DETAILS" && !up.open && e.tagName !== "SUMMARY") return false;
    }
    return true;
  }
  const atoms = [];
  // A line break inside a word of at most 20 characters ("rando|m"): a name squeezed into
  // a box too narrow for it.
  const WORD = /[\p{L}\p{N}]/u;
  function brokenWord(node) {
    const text = node.textContent, range = document.createRange();
    let top = null;
    for (let i = 0; i < text.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect || rect.width < 0.5) continue;
      if (top !== null && rect.top > top + 1 && i > 0 && WORD.test(text[i - 1]) && WORD.test(text[i])) {
        let a = i, b = i;
        while (a > 0 && WORD.test(text[a - 1])) a--;
        while (b < text.length && WORD.test(text[b])) b++;
        if (b - a <= 20) return text.slice(a, i) + "|" + text.slice(i, b);
      }
      top = rect.top;
    }
    return null;
  }
  const fixedCache = new Map();
  function fixedOf(el) {                // the element's ancestor fixed to the screen, or null
    if (!el || el === document.documentElement) return null;
    if (fixedCache.has(el)) return fixedCache.get(el);
    const found = getComputedStyle(el).position === "fixed" ? el : fixedOf(el.parentElement);
    fixedCache.set(el, found);
    return found;
  }
  function add(rect, el, what, clipper) {
    const c = clipOf(clipper);
    const r = {left: Math.max(rect.left, c.left), top: Math.max(rect.top, c.top),
      right: Math.min(rect.right, c.right), bottom: Math.min(rect.bottom, c.bottom)};
    if (r.right - r.left < 1 || r.bottom - r.top < 1) return;
    atoms.push({r, el, what, fixed: fixedOf(el)});
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || !parent || ["OPTION", "SCRIPT", "STYLE", "TITLE"].includes(parent.tagName)) continue;
    if (!shown(parent)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if (range.getClientRects().length > 1) {
      const broken = brokenWord(node);
      if (broken) problems.push("a word broken across lines (" + broken + ") in " + name(parent));
    }
    for (const rect of range.getClientRects()) {
      if (rect.width < 1 || rect.height < 1) continue;
      add(rect, parent, "text " + JSON.stringify(node.textContent.trim().slice(0, 30)) + " in " + name(parent), parent);
      const size = parent.namespaceURI === "http://www.w3.org/2000/svg" ? rect.height * 0.82 : parseFloat(getComputedStyle(parent).fontSize);
      if (size < 10) problems.push("text too small (" + size.toFixed(1) + " px): " + JSON.stringify(node.textContent.trim().slice(0, 30)) + " in " + name(parent));
    }
  }
  for (const el of document.body.querySelectorAll(ATOMS)) {
    if (el.closest("svg") && el.tagName.toLowerCase() === "svg" && el.parentElement.closest("svg")) continue;
    if (!shown(el)) continue;
    for (const rect of el.getClientRects()) if (rect.width >= 1 && rect.height >= 1) add(rect, el, name(el), el.parentElement);
    if (el.matches(".card, .domino .half, .kingdom-grid .cell")) {
      const w = el.getBoundingClientRect().width;
      if (w >= 1 && w < 12) problems.push("too small to see (" + w.toFixed(1) + " px wide): " + name(el));
    }
  }
  for (const a of atoms) {
    if (a.r.right > W + 1 || a.r.left < -1) problems.push("off screen (x " + Math.round(a.r.left) + "–" + Math.round(a.r.right) + " of " + W + "): " + a.what);
  }
  if (document.documentElement.scrollWidth > W + 1) problems.push("the page scrolls sideways (" + document.documentElement.scrollWidth + " > " + W + ")");
  for (const el of document.body.querySelectorAll("*")) {
    const cs = getComputedStyle(el);
    if ((cs.overflowX === "auto" || cs.overflowX === "scroll") && el.scrollWidth > el.clientWidth + 1 && shown(el)) {
      problems.push("scrolls sideways: " + name(el) + " (" + el.scrollWidth + " > " + el.clientWidth + ")");
    }
  }
  // what a bar fixed at the bottom of the screen covers must scroll out from under it
  const bars = [...new Set(atoms.map(a => a.fixed).filter(Boolean))];
  for (const bar of bars) {
    const box = bar.getBoundingClientRect();
    if (box.bottom < innerHeight - 2) continue;
    const lowest = Math.max(0, ...atoms.filter(a => !a.fixed).map(a => a.r.bottom + scrollY));
    const room = document.documentElement.scrollHeight - box.height;
    if (lowest > room + 2) problems.push("the page ends under " + name(bar) + " (" + Math.round(lowest) + " > " + Math.round(room) + ")");
  }
  atoms.sort((a, b) => a.r.top - b.r.top);
  for (let i = 0; i < atoms.length; i++) {
    const a = atoms[i];
    for (let j = i + 1; j < atoms.length; j++) {
      const b = atoms[j];
      if (b.r.top >= a.r.bottom - 1) break;
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w <= 1.5 || h <= 1.5 || w * h <= 4) continue;
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      if (a.fixed !== b.fixed) continue;  // a bar fixed to the screen lies over the page
      problems.push("overlap: " + a.what + " and " + b.what);
      if (problems.length > 40) return problems;
    }
  }
  return problems;
}
"""


def _axe_script() -> str:
    from axe_playwright_python.base import AXE_SCRIPT  # ships axe.min.js

    return AXE_SCRIPT


def layout_problems(page) -> list[str]:
    """What :data:`LAYOUT_JS` finds on the page as it is now (each problem once)."""
    return list(dict.fromkeys(page.evaluate(LAYOUT_JS)))


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations of the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_script())
    result = page.evaluate(
        "() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map("
        "v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}"
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


def settle(page) -> None:
    """Let the page lay itself out after a resize (two animation frames)."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def check_page(page, name: str, sizes=(PHONE, DESKTOP), axe: bool = True) -> None:
    """Check the page at each size (layout, then axe-core) and save a screenshot of each
    as ``<name>-phone.png`` / ``<name>-desktop.png``; fail with every problem found."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size
    found: list[str] = []
    try:
        for size in sizes:
            label = "phone" if size["width"] < 600 else "desktop"
            page.set_viewport_size(size)
            settle(page)
            found += [f"{label}: {p}" for p in layout_problems(page)]
            if axe:
                found += [f"{label}: {v}" for v in serious_violations(page)]
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
    finally:
        page.set_viewport_size(before)
    assert found == [], f"{name}:\n" + "\n".join(found)
