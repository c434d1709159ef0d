// Account: create, log in/out, change password, delete, balance (the hub's store).
"use strict";
(() => {
  const {el, clear} = Hub;
  const $ = id => document.getElementById(id);

  function form(id, title, fields, submit, onSubmit, danger) {
    const inputs = fields.map(([name, label, type]) => [name,
      el("input", {id: id + "-" + name, name, type: type || "text", required: true, maxlength: 128,
        autocomplete: type === "password" ? (name === "new" || id === "create" ? "new-password" : "current-password") : "username"}), label]);
    const f = el("form", {id, class: "panel", onsubmit: async ev => {
      ev.preventDefault();
      const body = {};
      for (const [name, input] of inputs) body[name] = input.value;
      const button = f.querySelector("button");
      button.disabled = true;
      try { await onSubmit(body); f.reset(); } catch (e) { Hub.error(e, f); }
      finally { button.disabled = false; }
    }}, el("h2", {}, title),
      inputs.map(([name, input, label]) => [el("label", {for: input.id}, label), input]),
      el("div", {class: "row"}, el("button", {type: "submit", class: danger ? "danger" : ""}, submit)));
    return f;
  }

  async function render() {
    const s = await Hub.getSession(true);
    if (s.logged_in) {
      let info = null;
      try { info = await Hub.request("GET", "/api/account"); } catch (e) { Hub.error(e, $("status")); }
      clear($("status"), el("p", {}, "Logged in as ", el("b", {id: "account-name"}, s.name),
        info ? [" (" + info.type + ") · balance ", el("b", {id: "balance"}, info.balance), " chips"] : ""),
        el("button", {id: "logout", class: "secondary", onclick: async () => {
          try { Hub.setSession(await Hub.write("DELETE", "/api/session")); await render(); Hub.ok("Logged out", $("status")); }
          catch (e) { Hub.error(e, $("status")); }
        }}, "Log out"));
      clear($("forms"),
        form("password", "Change password", [["old", "Current password", "password"], ["new", "New password", "password"]],
          "Change password", async body => { await Hub.write("POST", "/api/account/password", body); Hub.ok("Password changed", $("password")); }),
        form("delete", "Delete this account", [["password", "Password", "password"]], "Delete account",
          async body => {
            if (!confirm("Delete the account " + s.name + " for good?")) return;
            Hub.setSession(await Hub.write("DELETE", "/api/account", body));
            await render(); Hub.ok("Account deleted", $("status"));
          }, true));
    } else {
      clear($("status"), el("p", {}, "You play as the guest ", el("b", {id: "account-name"}, s.name),
        ". Log in or create an account (the same accounts as the XML clients) to keep a balance."));
      clear($("forms"),
        form("login", "Log in", [["name", "Name"], ["password", "Password", "password"]], "Log in",
          async body => { Hub.setSession(await Hub.write("POST", "/api/session", body)); await render(); Hub.ok("Logged in as " + body.name, $("status")); }),
        form("create", "Create an account", [["name", "Name"], ["password", "Password", "password"]], "Create account",
          async body => { Hub.setSession(await Hub.write("POST", "/api/accounts", body)); await render(); Hub.ok("Account " + body.name + " created", $("status")); }));
    }
  }

  document.addEventListener("DOMContentLoaded", () => { Hub.nav("/account"); render().catch(e => Hub.error(e)); });
})();
