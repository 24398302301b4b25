"use strict";
// The operator console's actions: filter the chat list, take a chat over
// (pause, talk as the assistant, resume), inject an app event, keep the
// open chat up to date, and act on dead letters. Loaded before admin.js,
// whose helpers ($, el, api, guard, openChat, loadChats, loadAudit) these
// functions use when called; initConsole wires the buttons.

const operatorKey = "botgw.admin.operator";
const pollMs = 2000;
let deadCursor = "";
let poller = 0;

// chatFilter is the list's query string for the channel and search boxes.
function chatFilter() {
  let q = "";
  if ($("channel").value) q += "&channel=" + encodeURIComponent($("channel").value);
  if ($("search").value.trim()) q += "&prefix=" + encodeURIComponent($("search").value.trim());
  return q;
}

async function loadChannels() {
  const chans = await api("GET", "/channels").catch(() => ({}));
  const keep = $("channel").value;
  $("channel").replaceChildren(el("option", "", "all channels"));
  $("channel").firstChild.value = "";
  for (const name of Object.keys(chans).sort()) {
    const o = el("option", "", name);
    o.value = name;
    $("channel").append(o);
  }
  $("channel").value = keep;
}

function operatorName() {
  return $("operator").value.trim();
}

function renderPause(v) {
  const paused = Boolean(v.paused_until);
  $("pause-state").className = paused ? "paused" : "";
  $("pause-state").textContent = paused
    ? "Paused until " + new Date(v.paused_until).toLocaleString() + (v.paused_by ? " by " + v.paused_by : "") + ": the assistant is quiet, you talk."
    : "Not paused: the assistant answers.";
  $("pause").disabled = !v.chat;
  $("resume").disabled = !paused;
}

// refreshOpen re-reads the open chat while the page shows it, so new
// messages and the pause state appear without a click.
function refreshOpen() {
  if (!current || document.hidden || $("app").hidden || !$("confirm-box").hidden) return;
  guard(() => openChat(current));
}

async function act(method, suffix, body, check) {
  if (check) {
    const problem = check();
    if (problem) return notice(problem);
  }
  await api(method, chatPath(current) + suffix, body);
  await openChat(current);
  await loadAudit();
}

function pauseChat() {
  const body = {operator: operatorName()};
  if ($("pause-for").value.trim()) body.for = $("pause-for").value.trim();
  return act("POST", "/pause", body);
}

function sendAsOperator() {
  const text = $("say-text").value;
  const body = {text, operator: operatorName()};
  const choices = $("say-choices").value.split("\n").map((c) => c.trim()).filter((c) => c);
  if (choices.length) body.choices = choices;
  return act("POST", "/messages", body, () => {
    if (!operatorName()) return "Type your name first: the history records who spoke.";
    if (!text.trim()) return "Write a message first.";
    $("say-text").value = "";
    $("say-choices").value = "";
    return "";
  });
}

function injectEvent() {
  const text = $("event-text").value;
  return act("POST", "/events", {text, operator: operatorName()}, () => {
    if (!text.trim()) return "Write the event first.";
    $("event-text").value = "";
    return "";
  });
}

async function loadDeadLetters(more) {
  if (!more) {
    deadCursor = "";
    $("dead").replaceChildren();
  }
  const page = await api("GET", "/dead-letters?limit=50&cursor=" + encodeURIComponent(deadCursor));
  for (const d of page.items) {
    const retry = el("button", "retry", "Retry");
    const discard = el("button", "discard danger", "Discard");
    retry.type = discard.type = "button";
    retry.dataset.id = discard.dataset.id = d.id;
    retry.addEventListener("click", () => guard(() => deadAction("POST", d.id, "/retry")));
    discard.addEventListener("click", () => guard(() => deadAction("DELETE", d.id, "")));
    $("dead").append(el("tr", "dead-letter", el("td", "", new Date(d.at).toLocaleString()),
      el("td", "", d.chat), el("td", "", d.kind), el("td", "", d.reason), el("td", "", d.attempts),
      el("td", "", d.text), el("td", "", retry, " ", discard)));
  }
  deadCursor = page.next;
  $("dead-more").hidden = !deadCursor;
  if (!$("dead").children.length) $("dead").append(el("tr", "", el("td", "empty", "Nothing undelivered or unprocessed.")));
}

async function deadAction(method, id, suffix) {
  const who = operatorName() ? "?operator=" + encodeURIComponent(operatorName()) : "";
  await api(method, "/dead-letters/" + encodeURIComponent(id) + suffix + who);
  await loadDeadLetters(false);
  await loadAudit();
}

function initConsole() {
  $("operator").value = sessionStorage.getItem(operatorKey) || "";
  $("operator").addEventListener("change", () => sessionStorage.setItem(operatorKey, operatorName()));
  $("filter").addEventListener("submit", (ev) => { ev.preventDefault(); guard(() => loadChats(false)); });
  let typing = 0; // one listing when the operator pauses typing, not one per key
  $("search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => guard(() => loadChats(false)), 200);
  });
  $("channel").addEventListener("change", () => guard(() => loadChats(false)));
  $("pause").addEventListener("click", () => guard(pauseChat));
  $("resume").addEventListener("click", () => guard(() => act("POST", "/resume", {operator: operatorName()})));
  $("say").addEventListener("click", () => guard(sendAsOperator));
  $("inject").addEventListener("click", () => guard(injectEvent));
  $("dead-refresh").addEventListener("click", () => guard(() => loadDeadLetters(false)));
  $("dead-more").addEventListener("click", () => guard(() => loadDeadLetters(true)));
  clearInterval(poller);
  poller = setInterval(refreshOpen, pollMs);
}
