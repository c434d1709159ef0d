// hello: who sits where, who said what; the action is a text.
"use strict";
window.GameRenderers = window.GameRenderers || {};
window.GameRenderers.hello = {
  board(ctx) {
    const {el} = Hub;
    const v = ctx.view || {};
    return [
      el("ul", {class: "hello-seats"}, (v.seats || []).map(s => el("li", {},
        "Seat " + s.seat + ": " + (s.name || "free") + " — ",
        s.said !== null && s.said !== undefined ? el("q", {}, s.said)
          : el("i", {class: "muted"}, (v.pending || []).includes(s.seat) ? "has not said hello yet" : "")))),
      el("div", {class: "hello-lines"}, (v.lines || []).map(line => el("p", {class: "hello-line"}, line))),
    ];
  },
};
