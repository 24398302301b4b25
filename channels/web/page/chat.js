// The web chat page's script, served as a file so the page's
// Content-Security-Policy can forbid inline script.
"use strict";
const messages = document.getElementById("messages");
const input = document.getElementById("input");
const send = document.getElementById("send");

function session() {
  let s = localStorage.getItem("botgw.chat");
  if (!s) {
    // 128 random bits: nobody can guess another visitor's chat.
    const b = crypto.getRandomValues(new Uint8Array(16));
    s = "web:" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("botgw.chat", s);
  }
  return s;
}
let chat = session();
document.getElementById("session").textContent = chat;

// The page keeps its own transcript so a reload shows the conversation the
// gateway still remembers (the last 100 bubbles).
function saved() {
  try { return JSON.parse(localStorage.getItem("botgw.log." + chat)) || []; } catch (e) { return []; }
}
function save(kind, text) {
  if (kind === "error") return;
  const log = saved();
  log.push([kind, text]);
  localStorage.setItem("botgw.log." + chat, JSON.stringify(log.slice(-100)));
}

function add(kind, text, restoring) {
  if (!restoring) save(kind, text);
  const div = document.createElement("div");
  div.className = "msg " + kind;
  div.textContent = text;           // never innerHTML: replies are plain text
  messages.appendChild(div);
  messages.scrollTop = messages.scrollHeight;
  return div;
}

// post sends one message: {text} or {location}.
async function post(msg) {
  const typing = document.createElement("div");
  typing.className = "typing";
  typing.textContent = "…thinking";
  messages.appendChild(typing);
  try {
    const res = await fetch("/v1/chat", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(Object.assign({chat}, msg)),
    });
    const body = await res.json().catch(() => ({}));
    if (res.ok && body.reply) add("bot", body.reply);
    else if (res.status === 202) add("error", "Still working on it; the reply will appear here.");
    else add("error", body.error || ("Error " + res.status));
  } catch (e) {
    add("error", "Network error: " + e.message);
  } finally {
    typing.remove();
  }
}

document.getElementById("form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  add("me", text);
  send.disabled = true;
  await post({text});
  send.disabled = false;
  input.focus();
});

// "Share my location": the browser's Geolocation API, sent as a pin.
const locate = document.getElementById("locate");
locate.addEventListener("click", () => {
  if (!navigator.geolocation) { add("error", "This browser cannot share a location."); return; }
  locate.disabled = true;
  navigator.geolocation.getCurrentPosition(async (pos) => {
    const location = {latitude: pos.coords.latitude, longitude: pos.coords.longitude};
    add("me", "📍 " + location.latitude.toFixed(5) + ", " + location.longitude.toFixed(5));
    await post({location});
    locate.disabled = false;
  }, (err) => {
    add("error", "Location not shared: " + err.message);
    locate.disabled = false;
  }, {enableHighAccuracy: true, timeout: 15000, maximumAge: 0});
});

input.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey) {
    ev.preventDefault();
    document.getElementById("form").requestSubmit();
  }
});

for (const [kind, text] of saved()) add(kind, text, true);

document.getElementById("new").addEventListener("click", () => {
  localStorage.removeItem("botgw.log." + chat);
  localStorage.removeItem("botgw.chat");
  chat = session();
  document.getElementById("session").textContent = chat;
  messages.replaceChildren();
});

// Replies nobody waited for (an app event with respond: true).
setInterval(async () => {
  try {
    const res = await fetch("/v1/chat?chat=" + encodeURIComponent(chat));
    const body = await res.json();
    for (const m of body.messages || []) add("bot", m);
  } catch (e) { /* the next poll retries */ }
}, 3000);
