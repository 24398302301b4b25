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
async function api(method, path) {
  const res = await fetch("/v1/admin" + path, {
    method, headers: {"Authorization": "Bearer " + sessionStorage.getItem(tokenKey)},
  });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401) throw new Unauthorized(body.error || "unauthorized");
  if (!res.ok) {
    const err = new Error(body.error || ("HTTP " + res.status));
    err.status = res.status;
    throw err;
  }
  return body;
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

async function loadChats(more) {
  if (!more) {
    cursor = "";
    $("chats").replaceChildren();
  }
  const page = await api("GET", "/chats?limit=50&cursor=" + encodeURIComponent(cursor));
  for (const chat of page.chats) {
    const b = el("button", chat === current ? "chat selected" : "chat", chat);
    b.type = "button";
    b.dataset.chat = chat;
    b.addEventListener("click", () => guard(() => openChat(chat)));
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
  const div = el("div", "msg " + m.role, el("span", "meta", label + (when ? " · " + when : "")));
  if (m.text) div.append(m.text);
  for (const tc of m.tool_calls || []) {
    const outcome = tc.error ? "error: " + tc.error : tc.result;
    div.append(el("div", tc.error ? "tool failed" : "tool", "↳ " + tc.name + "(" + tc.arguments + ") → " + outcome));
  }
  return div;
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
    $("reset").disabled = false;
  } catch (e) {
    if (e.status !== 404) throw e;
    $("stats").replaceChildren();
    $("problem").hidden = true;
    renderList("events", [], "No app events.");
    renderList("history", [], "No conversation stored: it was reset or has expired.");
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
    el("td", "", e.target), el("td", "", e.result || ""))));
  if (!entries.length) $("audit").append(el("tr", "", el("td", "empty", "No operator actions yet.")));
}

async function start() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("logout").hidden = false;
  await guard(async () => {
    await loadChats(false);
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

if (sessionStorage.getItem(tokenKey)) start();
else showLogin("");
