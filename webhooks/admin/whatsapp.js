"use strict";
// The WhatsApp panel of the operator page: the session's state, the
// number's hold and the day's sends (GET /v1/admin/whatsapp), with the
// operator's two actions: reconnect after stream_replaced, lift the hold.
// Loaded before admin.js, whose helpers ($, el, api, guard) it uses.

async function loadWhatsApp() {
  const v = await api("GET", "/whatsapp").catch((e) => {
    if (e.status === 404) return null; // no WhatsApp channel
    throw e;
  });
  $("wa-section").hidden = !v;
  if (!v) return;
  const s = v.status || {};
  const rows = [
    ["State", s.state + (v.healthy ? "" : " (not ready)")],
    ["Number", s.jid || "not linked"],
    ["Since", s.since ? new Date(s.since).toLocaleString() : ""],
    ["Sent today (UTC)", s.sent_today + " of " + s.daily_cap],
  ];
  if (s.reconnects) rows.push(["Reconnect attempts", String(s.reconnects)]);
  if (s.ban_expires) rows.push(["Ban ends", new Date(s.ban_expires).toLocaleString()]);
  $("wa-state").replaceChildren(...rows.map(([k, val]) => el("tr", "", el("th", "", k), el("td", "", val))));
  $("wa-detail").textContent = s.detail || v.problem || "";
  const h = s.hold;
  $("wa-hold").hidden = !h;
  if (h) {
    $("wa-hold-text").textContent = "Number held until " + new Date(h.until).toLocaleString() +
      " (" + h.code + ": " + h.reason + "). Nothing is sent from it meanwhile; replies wait.";
  }
  $("wa-reconnect").hidden = s.state !== "stream_replaced";
}

async function whatsAppAction(action) {
  await api("POST", "/whatsapp/" + action);
  await loadWhatsApp();
}

function initWhatsApp() {
  $("wa-refresh").addEventListener("click", () => guard(loadWhatsApp));
  $("wa-lift").addEventListener("click", () => guard(() => whatsAppAction("lift-hold")));
  $("wa-reconnect").addEventListener("click", () => guard(() => whatsAppAction("reconnect")));
}
