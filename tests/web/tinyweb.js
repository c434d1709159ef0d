// The page script of the test game "press" (served from the plugin's own package).
"use strict";
window.GameRenderers = window.GameRenderers || {};
window.GameRenderers.press = {
  board(ctx) {
    const {el} = Hub;
    return [el("p", {id: "press-board"}, ctx.view.pressed ? "pressed" : "not pressed yet")];
  },
  actions(ctx) {
    const {el} = Hub;
    return ctx.legal.length ? [el("button", {id: "press-button", onclick: () => ctx.act({press: true})}, "Press")] : [];
  },
};
