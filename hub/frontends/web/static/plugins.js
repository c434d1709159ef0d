// Plugins: status, version, digest, download.
"use strict";
document.addEventListener("DOMContentLoaded", async () => {
  const {el, clear} = Hub;
  Hub.nav("/plugins");
  let plugins = [];
  try { plugins = (await Hub.request("GET", "/api/plugins")).plugins; } catch (e) { Hub.error(e); }
  clear(document.querySelector("#plugins tbody"), plugins.map(p => el("tr", {dataset: {name: p.name}},
    el("td", {dataset: {label: "Name"}}, el("b", {}, p.name), el("div", {class: "small muted"}, p.summary || "")),
    el("td", {dataset: {label: "Kind"}}, p.kind), el("td", {dataset: {label: "Version"}}, p.version),
    el("td", {dataset: {label: "Status"}, class: p.status === "loaded" ? "state-running" : "state-waiting"}, p.status,
      p.reason ? el("div", {class: "small"}, p.reason) : null),
    el("td", {dataset: {label: "Front ends"}}, (p.frontends || []).join(", ")),
    el("td", {dataset: {label: "Download"}}, p.url ? el("a", {href: p.url, download: p.file}, p.file) : "—",
      p.size ? el("div", {class: "small muted"}, p.size + " bytes") : null,
      p.meta_url ? el("div", {class: "small"}, el("a", {href: p.meta_url}, ".meta")) : null),
    el("td", {dataset: {label: "SHA-256"}, class: "mono small"}, p.sha256 ? el("span", {class: "digest", title: p.sha256}, p.sha256.slice(0, 16) + "…") : "—"))));
});
