// Rules: every game's rules as its plugin ships them (/api/rules/<type>), drawn as text:
// "# " and "## " lines are headings, "- " lines list items, blank lines end paragraphs.
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);

  // The plugin's text as headings, lists and paragraphs (text only, never HTML).
  function blocks(text) {
    const out = [];
    let para = [], list = null;
    const flush = () => {
      if (para.length) out.push(el("p", {}, para.join(" ")));
      para = [];
      list = null;
    };
    for (const raw of String(text).split(/\r?\n/)) {
      const line = raw.trim();
      if (!line) { flush(); continue; }
      const heading = /^(#{1,3})\s+(.*)$/.exec(line);
      if (heading) { flush(); out.push(el(heading[1].length === 1 ? "h2" : "h3", {}, heading[2])); continue; }
      const item = /^[-*]\s+(.*)$/.exec(line);
      if (item) {
        if (para.length) { out.push(el("p", {}, para.join(" "))); para = []; }
        if (!list) { list = el("ul", {}); out.push(list); }
        list.append(el("li", {}, item[1]));
        continue;
      }
      if (list && /^\s/.test(raw)) { list.lastChild.append(" " + line); continue; }
      list = null;
      para.push(line);
    }
    flush();
    return out;
  }

  async function show(type) {
    const box = $("rules");
    box.hidden = false;
    try {
      const rules = await Hub.request("GET", "/api/rules/" + encodeURIComponent(type));
      document.title = "Rules of " + rules.type + " · Gamehub";
      $("title").textContent = "Rules of " + rules.type;
      clear(box, el("p", {class: "muted", id: "rules-summary"}, rules.summary), el("div", {id: "rules-body"}, blocks(rules.text)));
    } catch (e) {
      clear(box, el("p", {class: "muted", id: "rules-summary"}, "No rules for " + type + ": " + e.message));
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    await Hub.nav("/rules");
    const wanted = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
    let types = [];
    try { types = (await Hub.request("GET", "/api/types")).types; } catch (e) { Hub.error(e); }
    clear($("rule-types"), types.map(t => el("li", {},
      t.rules ? el("a", {href: t.rules, "aria-current": t.name === wanted ? "page" : null}, t.name) : el("span", {}, t.name + " (no rules shipped)"),
      el("span", {class: "small muted"}, " · " + t.summary))));
    if (wanted) show(wanted);
  });
})();
