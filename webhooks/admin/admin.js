"use strict";
// The operator page. Chat content is written by players and the model, so
// it is attacker-controlled: every string goes into the page as textContent,
// never as HTML.

const $ = (id) => document.getElementById(id);
const tokenKey = "botgw.admin.token";
let cursor = "";
let current = "";

// el builds an element whose children are elements or plain text.
function el(tag, className, ...children) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

class Unauthorized extends Error {}

// api calls the admin API with the token; a 401 sends the user back to
// the token form.
async function api(method, path, body) {
  const headers = {"Authorization": "Bearer " + sessionStorage.getItem(tokenKey)};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch("/v1/admin" + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await res.json().catch(() => ({}));
  if (res.status === 401) throw new Unauthorized(answer.error || "unauthorized");
  if (!res.ok) {
    const err = new Error(answer.error || ("HTTP " + res.status));
    err.status = res.status;
    throw err;
  }
  return answer;
}

const chatPath = (chat) => "/chats/" + encodeURIComponent(chat);

function showLogin(message) {
  sessionStorage.removeItem(tokenKey);
  $("app").hidden = true;
  $("logout").hidden = true;
  $("login").hidden = false;
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  $("token").focus();
}

// guard runs an action, shows its error, and turns a 401 into the token
// form.
async function guard(action) {
  $("notice").hidden = true;
  try {
    await action();
  } catch (e) {
    if (e instanceof Unauthorized) showLogin("That token was refused.");
    else notice(e.message);
  }
}

function notice(message) {
  $("notice").hidden = false;
  $("notice").textContent = message;
}

let listSeq = 0;

async function loadChats(more) {
  const seq = ++listSeq; // typing in the search box sends a request per key
  const page = await api("GET", "/chats?limit=50&cursor=" + encodeURIComponent(more ? cursor : "") + chatFilter());
  if (seq !== listSeq) return; // a newer listing is on its way
  if (!more) $("chats").replaceChildren();
  $("chats").dataset.filter = chatFilter(); // what the list shows (tests wait on it)
  const items = page.items || page.chats.map((chat) => ({chat}));
  for (const it of items) {
    const b = el("button", it.chat === current ? "chat selected" : "chat", it.chat);
    if (it.paused_until) b.append(el("span", "badge", "paused"));
    if (it.preview) b.append(el("span", "preview", it.preview));
    if (it.last_activity) b.title = "last activity " + new Date(it.last_activity).toLocaleString();
    b.type = "button";
    b.dataset.chat = it.chat;
    b.addEventListener("click", () => guard(() => openChat(it.chat)));
    $("chats").append(el("li", "", b));
  }
  cursor = page.next;
  $("more").hidden = !cursor;
  if (!$("chats").children.length) $("chats").append(el("li", "empty", "No conversations stored."));
}

function stat(label, value) {
  return el("span", "", label + " ", el("b", "", value));
}

function renderStats(v) {
  $("stats").replaceChildren(
    stat("expires in", v.ttl_left), stat("size", v.size_bytes + " B"), stat("turns", v.turns),
    stat("tokens", v.usage.in + " in / " + v.usage.out + " out"),
    stat("pending", v.pending), stat("outbox", v.outbox), stat("provider", v.provider || "–"));
  $("problem").hidden = !v.problem;
  $("problem").textContent = v.problem ? "Stored state unreadable: " + v.problem : "";
}

function renderMessage(m) {
  const when = m.at ? new Date(m.at).toLocaleString() : "";
  let label = m.role;
  if (m.event_key) label += " · key " + m.event_key;
  if (m.event_id) label += " · id " + m.event_id;
  const meta = el("span", "meta", label + (when ? " · " + when : ""));
  if (m.operator) meta.append(" · ", el("b", "", "operator " + m.operator));
  if (m.tap) meta.append(" · ", el("b", "tap", "tapped"));
  if (m.media) meta.append(" · ", el("b", "media", mediaLabels[m.media] || m.media));
  const div = el("div", "msg " + m.role, meta);
  const text = m.media ? withoutMarker(m.text || "") : m.text;
  if (text) div.append(text);
  if (m.location) div.append(" ", mapLink(m.location));
  if (m.choices && m.choices.length) {
    const row = el("div", "choices");
    for (const c of m.choices) row.append(el("span", "choice", c));
    div.append(row);
  }
  for (const tc of m.tool_calls || []) {
    const outcome = tc.error ? "error: " + tc.error : tc.result;
    div.append(el("div", tc.error ? "tool failed" : "tool", "↳ " + tc.name + "(" + tc.arguments + ") → " + outcome));
  }
  return div;
}

// mediaLabels are the compact labels of what a player sent besides text.
const mediaLabels = { photo: "📷 photo", voice: "🎙 voice note" };

// withoutMarker drops the "[photo]" or "[voice note]" marker the label
// stands for, keeping the caption or transcript.
function withoutMarker(text) {
  return text.replace(/^\[(photo|voice note)\]\s*/, "");
}

// degrees is a coordinate with at least 5 decimals, as the gateway writes it.
function degrees(v) {
  const s = String(v);
  return (s.split(".")[1] || "").length >= 5 ? s : v.toFixed(5);
}

// mapLink links a shared position on OpenStreetMap.
function mapLink(loc) {
  const lat = Number(loc.latitude), lon = Number(loc.longitude);
  if (!Number.isFinite(lat) || !Number.isFinite(lon)) return "";
  const a = el("a", "map", "📍 map");
  a.href = `https://www.openstreetmap.org/?mlat=${degrees(lat)}&mlon=${degrees(lon)}#map=17/${degrees(lat)}/${degrees(lon)}`;
  a.target = "_blank";
  a.rel = "noopener noreferrer";
  return a;
}

function renderList(id, messages, empty) {
  $(id).replaceChildren(...messages.map(renderMessage));
  if (!messages.length) $(id).append(el("p", "empty", empty));
}

async function openChat(chat) {
  current = chat;
  for (const b of document.querySelectorAll("#chats button")) b.classList.toggle("selected", b.dataset.chat === chat);
  $("pick").hidden = true;
  $("chat").hidden = false;
  $("confirm-box").hidden = true;
  $("chat-title").textContent = chat;
  try {
    const v = await api("GET", chatPath(chat));
    renderStats(v);
    renderList("events", v.events, "No app events.");
    renderList("history", v.history, "No messages.");
    renderPause(v);
    $("reset").disabled = false;
  } catch (e) {
    if (e.status !== 404) throw e;
    $("stats").replaceChildren();
    $("problem").hidden = true;
    renderList("events", [], "No app events.");
    renderList("history", [], "No conversation stored: it was reset or has expired.");
    renderPause({});
    $("reset").disabled = true;
  }
}

async function resetChat() {
  $("confirm-box").hidden = true;
  await api("POST", chatPath(current) + "/reset");
  await openChat(current);
  await loadChats(false);
  await loadAudit();
}

async function loadAudit() {
  const entries = await api("GET", "/audit");
  $("audit").replaceChildren(...entries.map((e) => el("tr", "audit-entry",
    el("td", "", new Date(e.at).toLocaleString()), el("td", "", e.actor), el("td", "", e.action),
    el("td", "", e.target), el("td", "", e.detail || ""), el("td", "", e.result || ""))));
  if (!entries.length) $("audit").append(el("tr", "", el("td", "empty", "No operator actions yet.")));
}

async function start() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("logout").hidden = false;
  await guard(async () => {
    await loadChannels();
    await loadChats(false);
    await loadDeadLetters(false);
    await loadWhatsApp();
    await loadAudit();
  });
}

$("login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  sessionStorage.setItem(tokenKey, $("token").value.trim());
  $("token").value = "";
  start();
});
$("logout").addEventListener("click", () => showLogin(""));
$("refresh").addEventListener("click", () => guard(() => loadChats(false)));
$("more").addEventListener("click", () => guard(() => loadChats(true)));
$("audit-refresh").addEventListener("click", () => guard(loadAudit));
$("reset").addEventListener("click", () => { $("confirm-box").hidden = false; });
$("cancel-reset").addEventListener("click", () => { $("confirm-box").hidden = true; });
$("confirm-reset").addEventListener("click", () => guard(resetChat));

initConsole();
initWhatsApp();
if (sessionStorage.getItem(tokenKey)) start();
else showLogin("");
