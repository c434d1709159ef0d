// hello in the browser (its IWebView.script): who sits where, who said what; the
// action is a text. Replays rebuild the view from the events.
"use strict";
window.GameRenderers = window.GameRenderers || {};
window.GameRenderers.hello = {
  board(ctx) {
    const {el} = Hub;
    const v = ctx.view || {};
    return [
      el("ul", {class: "hello-seats"}, (v.seats || []).map(s => el("li", {class: "hello-seat"},
        el("b", {}, s.name || "free seat"), " ",
        s.said !== null && s.said !== undefined ? el("q", {class: "speech"}, s.said)
          : el("i", {class: "muted"}, (v.pending || []).includes(s.seat) ? "has not said hello yet" : "")))),
      (v.lines || []).length ? el("div", {class: "hello-lines"}, v.lines.map(line => el("p", {class: "hello-line"}, line))) : null,
    ];
  },
  describe(event, names) {
    const d = event.data || {};
    switch (event.kind) {
      case "hello": return d.line || (d.name || names[d.seat]) + " says " + d.text;
      case "seated": return d.name + " sits down at seat " + d.seat;
      case "left": return (names[d.seat] || "seat " + d.seat) + " left without saying hello";
      default: return null;
    }
  },
  replay: {
    apply(view, event) {
      const d = event.data || {};
      const seats = view.seats.map(s => Object.assign({}, s));
      const v = Object.assign({}, view, {seats});
      if (event.kind === "seated") seats[d.seat].name = d.name;
      if (event.kind === "hello") {
        seats[d.seat].said = d.text;
        v.lines = (view.lines || []).concat([d.line]);
        v.pending = (view.pending || []).filter(s => s !== d.seat);
      }
      if (event.kind === "state" && d.state === "running") v.pending = seats.map(s => s.seat).filter(s => seats[s].said === null);
      return v;
    },
  },
};
