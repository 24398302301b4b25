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
    if (res.ok && body.reply) { add("bot", body.reply); offer(body.choices, body.ask_location); }
    else if (res.status === 202) add("error", "Still working on it; the reply will appear here.");
    else add("error", body.error || ("Error " + res.status));
  } catch (e) {
    add("error", "Network error: " + e.message);
  } finally {
    typing.remove();
  }
}

// Choices under a reply: one button each; a tap sends the choice's label
// as the player's words. Any message sent clears the buttons.
function offer(choices, askLocation) {
  if (!(choices && choices.length) && !askLocation) return;
  const row = document.createElement("div");
  row.className = "choices";
  for (const label of choices || []) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "choice";
    b.textContent = label;
    b.addEventListener("click", () => say(label));
    row.appendChild(b);
  }
  if (askLocation && navigator.geolocation) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "choice location";
    b.textContent = "📍 Share my location";
    b.addEventListener("click", () => shareLocation());
    row.appendChild(b);
  }
  messages.appendChild(row);
  messages.scrollTop = messages.scrollHeight;
}

function clearChoices() {
  for (const row of messages.querySelectorAll(".choices")) row.remove();
}

async function say(text) {
  clearChoices();
  add("me", text);
  send.disabled = true;
  await post({text});
  send.disabled = false;
}

// shareLocation sends the browser's position (Geolocation API) as a pin.
function shareLocation() {
  if (!navigator.geolocation) { add("error", "This browser cannot share a location."); return; }
  locate.disabled = true;
  navigator.geolocation.getCurrentPosition(async (pos) => {
    clearChoices();
    const location = {latitude: pos.coords.latitude, longitude: pos.coords.longitude};
    add("me", "📍 " + location.latitude.toFixed(5) + ", " + location.longitude.toFixed(5));
    await post({location});
    locate.disabled = false;
  }, (err) => {
    add("error", "Location not shared: " + err.message);
    locate.disabled = false;
  }, {enableHighAccuracy: true, timeout: 15000, maximumAge: 0});
}

document.getElementById("form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  await say(text);
  input.focus();
});

// The "share my location" button beside Send.
const locate = document.getElementById("locate");
locate.addEventListener("click", shareLocation);

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
    // A POST, so the request carries the page's Origin (a same-origin GET
    // does not, and the gateway treats a request without one as a server's).
    const res = await fetch("/v1/chat/poll", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({chat}),
    });
    const body = await res.json();
    for (const r of body.replies || []) { add("bot", r.text); offer(r.choices, r.ask_location); }
  } catch (e) { /* the next poll retries */ }
}, 3000);
