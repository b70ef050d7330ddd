"""The WebChat page: one small HTML file with its script inline (no CDN, nothing fetched from elsewhere).

The session token lives in the URL fragment (``#t=…``), which a browser never
sends to a server or puts in a Referer; the page asks its own server for one
(``POST /session``, same origin only) when the fragment has none, and presents
it as a WebSocket subprotocol (``token.<t>``), so the upgrade itself is refused
without it.
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agentdesk WebChat</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'">
<style>body{font:15px sans-serif;max-width:40em;margin:1em auto}#log div{margin:.3em 0;white-space:pre-wrap}
.me{text-align:right;color:#245}.agent{color:#222}.note{color:#777;font-style:italic}</style></head>
<body><h1>Agentdesk</h1><div id="log"></div>
<form id="f"><input id="text" autocomplete="off" size="50" aria-label="message">
<input id="pic" type="file" accept="image/png,image/jpeg,image/webp,image/gif" aria-label="picture"><button>Send</button></form>
<script>
(async () => {
  const log = document.getElementById("log");
  function show(cls, text, id) {
    let el = id ? document.getElementById("m-" + id) : null;
    if (!el) { el = document.createElement("div"); if (id) el.id = "m-" + id; log.appendChild(el); }
    el.className = cls; el.textContent = text;
  }
  let token = new URLSearchParams(location.hash.slice(1)).get("t");
  if (!token) {
    const r = await fetch("/session", {method: "POST"});
    token = (await r.json()).token;
    history.replaceState(null, "", "#t=" + token);
  }
  const ws = new WebSocket("ws://" + location.host + "/ws", ["agentdesk", "token." + token]);
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "message" || m.type === "edit") show("agent", m.text, m.id);
    else if (m.type === "typing") show("note", "typing…", "typing");
    else if (m.type === "file") {
      const bytes = Uint8Array.from(atob(m.data), (c) => c.charCodeAt(0));
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([bytes], {type: "application/octet-stream"}));
      a.download = m.name; a.textContent = "📎 " + m.name + (m.caption ? " — " + m.caption : "");
      const el = document.createElement("div"); el.className = "agent"; el.appendChild(a); log.appendChild(el);
    }
  };
  ws.onopen = () => { document.body.dataset.ready = "1"; };
  ws.onclose = () => { document.body.dataset.closed = "1"; };
  let n = 0;
  const picture = (file) => new Promise((resolve) => {
    if (!file) { resolve(null); return; }
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => resolve(null);
    reader.readAsDataURL(file);
  });
  document.getElementById("f").onsubmit = async (e) => {
    e.preventDefault();
    const input = document.getElementById("text"), pic = document.getElementById("pic");
    const image = await picture(pic.files[0]);
    if (!input.value && !image) return;
    const id = Date.now() + "-" + (n++);
    const m = {type: "message", id: id, text: input.value};
    if (image) m.image = image;
    ws.send(JSON.stringify(m));
    show("me", input.value + (image ? " [picture]" : "")); input.value = ""; pic.value = "";
  };
})();
</script></body></html>
"""
