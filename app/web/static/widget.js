/* shopdesk: the shop's assistant on the shop's own pages.
 *
 *   <script src="https://ASSISTANT-HOST/widget.js" data-product="SKU or page URL" async></script>
 *
 * adds a launcher button and a chat panel (in a shadow root: the page's CSS does not reach it, and
 * its CSS does not reach the page). It talks only to the JSON/SSE API of the host it was loaded
 * from; the page's origin must be in that host's SHOPDESK_WIDGET_ORIGINS. The product is the
 * script's data-product, else <meta name="shopdesk:product" content="...">, else none. The session
 * id is kept in localStorage, so the conversation follows the shopper from page to page.
 * Server text is only ever set as textContent.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src || window.__shopdeskWidget) return;
  window.__shopdeskWidget = true;

  var API = new URL(script.src, location.href).origin;
  var KEY = "shopdesk:" + API;
  var TITLE = script.getAttribute("data-title") || "Ask us anything";
  var UNREACHABLE =
    "We can't reach our assistant from this page right now. Please try again later, " +
    "or contact us another way.";
  var ICONS = {
    chat: "M4 4h16v11H8l-4 4z",
    close: "M6 6l12 12M18 6L6 18",
    send: "M4 12l16-8-6 16-2-6z",
    up: "M7 11v9H4v-9zm0 0l4-8c1.7 0 2.5 1 2.2 2.6L12.6 9H19a2 2 0 0 1 2 2.3l-1.2 6.9A2 2 0 0 1 17.8 20H7",
    down: "M7 13V4H4v9zm0 0l4 8c1.7 0 2.5-1 2.2-2.6l-.6-3.4H19a2 2 0 0 0 2-2.3l-1.2-6.9A2 2 0 0 0 17.8 4H7",
  };

  // --- state kept across pages ------------------------------------------------------------
  function load() {
    try {
      return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
    } catch (e) {
      return {};
    }
  }
  function save() {
    try {
      localStorage.setItem(KEY, JSON.stringify({ session: state.session, open: state.open }));
    } catch (e) {
      /* storage off: the conversation lasts for this page only */
    }
  }
  var saved = load();
  var state = { session: saved.session || null, open: !!saved.open, busy: false, lastQuestion: "" };
  var inFlight = null; // the AbortController of the answer being streamed

  function pageProduct() {
    var meta = document.querySelector('meta[name="shopdesk:product"]');
    var value = script.getAttribute("data-product") || (meta && meta.getAttribute("content"));
    return value && value.trim() ? value.trim() : null;
  }

  // --- the API ----------------------------------------------------------------------------
  function WidgetError(message) {
    this.message = message;
  }

  async function call(path, options) {
    var response;
    try {
      response = await fetch(API + path, Object.assign({ credentials: "omit" }, options || {}));
    } catch (e) {
      if (e && e.name === "AbortError") throw e;
      throw new WidgetError(UNREACHABLE); // offline, or this site is not allowed (no CORS)
    }
    if (!response.ok && response.status !== 404) throw new WidgetError(await problem(response));
    return response;
  }

  async function problem(response) {
    var detail = null;
    try {
      detail = (await response.json()).detail;
    } catch (e) {
      /* not JSON */
    }
    if (Array.isArray(detail)) detail = detail.map(function (d) { return d.msg; }).join(" ");
    if (typeof detail === "string" && detail) return detail;
    if (response.status === 429) return "You're sending messages very quickly; please wait a moment.";
    if (response.status === 503) return "Our assistant is busy right now; please try again in a minute.";
    return "Sorry, something went wrong (" + response.status + "). Please try again.";
  }

  function postJSON(path, body, signal) {
    return call(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: signal,
    });
  }

  async function ensureSession() {
    if (state.session) return state.session;
    var response = await call("/api/sessions", { method: "POST" }); // no body: no preflight
    if (!response.ok) throw new WidgetError(await problem(response));
    state.session = (await response.json()).session_id;
    save();
    return state.session;
  }

  /** POST to this session's `path`; a session the service no longer knows is started anew. */
  async function sessionPost(path, body, signal) {
    await ensureSession();
    var response = await postJSON(sessionPath(path), body, signal);
    if (response.status === 404 && path !== "/feedback") {
      forget();
      await ensureSession();
      response = await postJSON(sessionPath(path), body, signal);
    }
    if (!response.ok) throw new WidgetError(await problem(response));
    return response;
  }

  function sessionPath(path) {
    return "/api/sessions/" + encodeURIComponent(state.session) + path;
  }

  function forget() {
    state.session = null;
    save();
  }

  /** Server-sent events of a fetch response: calls on(event, data) for each. */
  async function readEvents(response, on) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
      var end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        var block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        var event = "message";
        var data = [];
        block.split("\n").forEach(function (line) {
          if (line.indexOf("event:") === 0) event = line.slice(6).trim();
          else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
        });
        if (data.length) on(event, JSON.parse(data.join("\n")));
      }
    }
  }

  // --- building the panel -----------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else if (name === "class") node.className = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) {
      node.append(child);
    });
    return node;
  }

  function icon(name) {
    var svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    var path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICONS[name]);
    svg.append(path);
    return svg;
  }

  var host = el("shopdesk-widget", { style: "all:initial !important" }); // no `div` rule reaches it
  var root = host.attachShadow({ mode: "open" });
  var launcher = el("button", {
    class: "launcher",
    type: "button",
    "aria-haspopup": "dialog",
    "aria-expanded": "false",
    "aria-controls": "panel",
  }, [icon("chat"), el("span", { text: "Ask us" })]);
  var closeButton = el("button", { class: "icon", type: "button", "aria-label": "Close chat", title: "Close (Esc)" }, [icon("close")]);
  var log = el("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" });
  var notice = el("p", { class: "notice", role: "alert" });
  var box = el("textarea", { id: "message", rows: "1", placeholder: "Type your question", "aria-label": "Your question", enterkeyhint: "send" });
  var sendButton = el("button", { class: "send", type: "submit", "aria-label": "Send" }, [icon("send")]);
  var form = el("form", { class: "composer" }, [box, sendButton]);
  var humanButton = el("button", { class: "link", type: "button", text: "Talk to a person" });
  var newButton = el("button", { class: "link", type: "button", text: "New conversation" });
  var panel = el("section", { class: "panel", id: "panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "title", hidden: "" }, [
    el("header", {}, [
      el("div", {}, [
        el("h2", { id: "title", text: TITLE }),
        el("p", { text: "Answers from our help pages, with their sources." }),
      ]),
      closeButton,
    ]),
    log,
    notice,
    form,
    el("div", { class: "actions" }, [humanButton, newButton]),
  ]);
  notice.hidden = true;

  function greet() {
    log.replaceChildren(el("p", { class: "greeting", text: "Hi! How can we help today?" }));
  }

  // --- messages ---------------------------------------------------------------------------
  /** The answer's text: paragraphs, "> " lines as quotes, "| a | b |" lines as a table (the
   * row above a "| --- |" rule as its header), [n] markers as small citations. */
  function formatted(text) {
    var out = document.createDocumentFragment();
    var quote = null;
    var table = null;
    var lines = text.split("\n");
    lines.forEach(function (line, i) {
      if (/^\|/.test(line)) {
        quote = null;
        if (/^\|?\s*:?-{3,}/.test(line)) return; // the rule under the header row
        if (!table) out.append((table = el("table")));
        var header = /^\|?\s*:?-{3,}/.test(lines[i + 1] || "");
        var cells = line.trim().replace(/^\||\|$/g, "").split("|").map(function (cell) {
          return el(header ? "th" : "td", header ? { scope: "col" } : {}, cited(cell.trim()));
        });
        table.append(el("tr", {}, cells));
      } else if (/^>\s?/.test(line)) {
        table = null;
        if (!quote) out.append((quote = el("blockquote")));
        quote.append(el("p", {}, cited(line.replace(/^>\s?/, ""))));
      } else {
        quote = table = null;
        if (line.trim()) out.append(el("p", {}, cited(line)));
      }
    });
    return out;
  }

  function cited(line) {
    // the pages' **bold** (a heading, an address) as bold, citation markers as superscripts
    var nodes = [];
    line.split(/(\*\*[^*]+\*\*)/).forEach(function (part) {
      var bold = /^\*\*([^*]+)\*\*$/.exec(part);
      if (bold) return nodes.push(el("strong", { text: bold[1] }));
      part.split(/(\[\d+\])/).forEach(function (piece) {
        var marker = /^\[(\d+)\]$/.exec(piece);
        nodes.push(marker ? el("sup", { class: "cite", text: marker[1] }) : document.createTextNode(piece));
      });
    });
    return nodes;
  }

  function addUser(text) {
    var bubble = el("div", { class: "msg user" }, [el("p", { text: text })]);
    appendMessage(bubble);
    return bubble;
  }

  function addBot(text, kind) {
    var body = el("div", { class: "text" });
    var bubble = el("div", { class: "msg bot" + (kind ? " " + kind : "") }, [body]);
    if (text === null) body.append(el("span", { class: "typing", "aria-label": "Answering" }, [el("i"), el("i"), el("i")]));
    else body.append(formatted(text));
    appendMessage(bubble);
    return bubble;
  }

  function appendMessage(node) {
    var greeting = log.querySelector(".greeting");
    if (greeting) greeting.remove();
    log.append(node);
    scrollDown();
  }

  var asked = null; // the latest question: an answer taller than the panel scrolls only up to it

  function scrollDown() {
    var top = asked && asked.isConnected ? asked.offsetTop - log.offsetTop - 8 : Infinity;
    log.scrollTop = Math.min(log.scrollHeight, top);
  }

  function setText(bubble, text) {
    bubble.querySelector(".text").replaceChildren(formatted(text));
    scrollDown();
  }

  function finish(bubble, done) {
    setText(bubble, done.answer);
    var sources = done.answered ? done.sources.filter(function (s) { return s.number; }) : [];
    if (done.answered && !sources.length) sources = done.sources.slice(0, 3);
    if (sources.length) bubble.append(el("p", { class: "sources-title", text: "Sources" }), sourceList(sources));
    // rated by its turn key, known even while the transcript database is down
    if (typeof done.turn_index === "number") bubble.append(ratings(done.turn_index));
    scrollDown();
  }

  /** One line per page cited, with the answer's [n] markers that point at it. */
  function sourceList(sources) {
    var pages = [];
    sources.forEach(function (source, i) {
      var section = String(source.section || "").split(" › ").pop();
      var label = source.title + (section && section !== source.title ? " — " + section : "");
      var href = /^https?:\/\//.test(source.citation) ? source.citation : null;
      var same = pages.filter(function (p) { return p.label === label && p.href === href; })[0];
      if (same) same.numbers.push(source.number || i + 1);
      else pages.push({ label: label, href: href, numbers: [source.number || i + 1] });
    });
    return el("ul", { class: "sources" }, pages.map(function (page) {
      var name = page.href
        ? el("a", { href: page.href, target: "_blank", rel: "noopener noreferrer", text: page.label })
        : el("span", { text: page.label });
      return el("li", {}, [el("span", { class: "cite", text: page.numbers.join(", ") }), name]);
    }));
  }

  function ratings(turnIndex) {
    var thanks = el("span", { class: "thanks", "aria-live": "polite" });
    var up = el("button", { type: "button", class: "rate", "aria-label": "Helpful", "aria-pressed": "false", title: "Helpful" }, [icon("up")]);
    var down = el("button", { type: "button", class: "rate", "aria-label": "Not helpful", "aria-pressed": "false", title: "Not helpful" }, [icon("down")]);
    function rate(button, rating) {
      up.disabled = down.disabled = true;
      sessionPost("/feedback", { turn_index: turnIndex, rating: rating })
        .then(function () {
          button.setAttribute("aria-pressed", "true");
          thanks.textContent = "Thanks for the feedback!";
        })
        .catch(function (e) {
          up.disabled = down.disabled = false;
          showNotice(e.message);
        });
    }
    up.addEventListener("click", function () { rate(up, 1); });
    down.addEventListener("click", function () { rate(down, -1); });
    return el("div", { class: "rating" }, [up, down, thanks]);
  }

  function showNotice(message) {
    notice.textContent = message || "";
    notice.hidden = !message;
  }

  function setBusy(busy) {
    state.busy = busy;
    sendButton.disabled = busy;
    log.setAttribute("aria-busy", String(busy));
  }

  // --- what the shopper does --------------------------------------------------------------
  async function ask(text) {
    if (state.busy || !text.trim()) return;
    showNotice("");
    box.value = "";
    grow();
    var question = addUser(text);
    asked = question;
    var bubble = addBot(null);
    var answer = "";
    var ended = false;
    setBusy(true);
    inFlight = new AbortController();
    try {
      var response = await sessionPost("/messages", { message: text, product: pageProduct() }, inFlight.signal);
      state.lastQuestion = text;
      await readEvents(response, function (event, data) {
        if (event === "delta") {
          answer += data.text;
          setText(bubble, answer);
        } else if (event === "done") {
          ended = true;
          finish(bubble, data);
        } else if (event === "error") {
          ended = true;
          bubble.classList.add("failed");
          setText(bubble, data.detail);
        }
      });
      if (!ended) setText(bubble, (answer ? answer + "\n" : "") + "(The answer was cut off; please ask again.)");
      bubble.setAttribute("data-state", "finished");
    } catch (e) {
      if (e && e.name === "AbortError") return;
      if (!answer) {
        question.remove(); // nothing was answered: the shopper keeps the question to send again
        bubble.remove();
        if (!box.value) box.value = text;
        if (!log.children.length) greet();
      }
      showNotice(e instanceof WidgetError ? e.message : UNREACHABLE);
    } finally {
      inFlight = null;
      setBusy(false);
    }
  }

  async function askForPerson() {
    showNotice("");
    humanButton.disabled = true;
    try {
      var response = await sessionPost("/escalate", { reason: state.lastQuestion || "" });
      addBot((await response.json()).message, "handoff");
    } catch (e) {
      showNotice(e.message || UNREACHABLE);
    } finally {
      humanButton.disabled = false;
    }
  }

  function startOver() {
    if (inFlight) inFlight.abort();
    forget();
    state.lastQuestion = "";
    showNotice("");
    greet();
    box.focus();
  }

  async function restore() {
    if (!state.session) return greet();
    try {
      var response = await call(sessionPath("/messages"));
      if (response.status === 404) {
        forget();
        return greet();
      }
      var turns = await response.json();
      if (!turns.length) return greet();
      log.replaceChildren();
      turns.forEach(function (turn) {
        addUser(turn.question);
        finish(addBot(turn.answer), turn); // with its sources and thumbs, as it was first shown
        state.lastQuestion = turn.question;
      });
    } catch (e) {
      greet();
      showNotice(e.message || UNREACHABLE);
    }
  }

  function open(focus) {
    asked = null;
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    host.setAttribute("data-open", "");
    state.open = true;
    save();
    scrollDown();
    if (focus) box.focus();
  }

  function close() {
    panel.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    host.removeAttribute("data-open");
    state.open = false;
    save();
    launcher.focus();
  }

  function grow() {
    box.style.height = "auto";
    box.style.height = Math.min(box.scrollHeight, 120) + "px";
  }

  launcher.addEventListener("click", function () {
    if (panel.hidden) open(true);
    else close();
  });
  closeButton.addEventListener("click", close);
  panel.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
  });
  box.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      ask(box.value);
    }
  });
  box.addEventListener("input", grow);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    ask(box.value);
  });
  humanButton.addEventListener("click", askForPerson);
  newButton.addEventListener("click", startOver);

  // --- styles (adopted where possible: a page's CSP on inline styles does not apply) -------
  var CSS = [
    ":host{all:initial}",
    "*{box-sizing:border-box}",
    "[hidden]{display:none!important}",
    ".launcher,.panel{position:fixed;z-index:2147483000;font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2a30}",
    ".launcher{right:20px;bottom:20px;display:flex;align-items:center;gap:8px;padding:12px 18px;border:0;border-radius:999px;background:#047857;color:#fff;font-weight:600;cursor:pointer;box-shadow:0 6px 20px rgba(0,0,0,.22)}",
    ".launcher:hover{background:#065f46}",
    "button:focus-visible,a:focus-visible,.log:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}",
    "textarea:focus-visible{outline:2px solid #047857;outline-offset:0;border-color:#047857}",
    "svg{width:20px;height:20px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}",
    ".panel{right:20px;bottom:84px;width:380px;height:min(620px,calc(100vh - 110px));display:flex;flex-direction:column;background:#fff;border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.28);overflow:hidden}",
    "header{display:flex;align-items:flex-start;gap:8px;padding:14px 14px 12px 18px;background:#047857;color:#fff}",
    "header div{flex:1}",
    "h2{margin:0;font-size:17px;line-height:1.3}",
    "header p{margin:2px 0 0;font-size:13px;opacity:.9}",
    ".icon{border:0;background:transparent;color:inherit;padding:6px;border-radius:8px;cursor:pointer;display:flex}",
    ".icon:hover{background:rgba(255,255,255,.15)}",
    ".log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:10px;background:#f6f8f7}",
    ".greeting{color:#5b6770;margin:auto 0 0}",
    ".msg{max-width:88%;padding:9px 12px;border-radius:12px;overflow-wrap:anywhere}",
    ".msg p{margin:0 0 6px}.msg p:last-child{margin-bottom:0}",
    ".user{align-self:flex-end;background:#047857;color:#fff;border-bottom-right-radius:4px;white-space:pre-wrap}",
    ".bot{align-self:flex-start;background:#fff;border:1px solid #dfe5e2;border-bottom-left-radius:4px}",
    ".bot.failed{border-color:#f3c7c7;background:#fff7f7}",
    ".bot.handoff{border-color:#b7dfcd;background:#ecfdf5}",
    "blockquote{margin:6px 0;padding:2px 0 2px 10px;border-left:3px solid #10b981;color:#33424a}",
    "blockquote p{margin:0 0 4px}",
    "table{border-collapse:collapse;margin:6px 0;font-size:13px;display:block;overflow-x:auto}",
    "th,td{border:1px solid #d5dde1;padding:3px 6px;text-align:left;vertical-align:top}",
    "th{background:#eef3f1}",
    ".cite{font-size:11px;color:#047857;font-weight:700;margin-left:2px}",
    ".sources-title{margin:8px 0 2px!important;font-size:12px;font-weight:700;color:#5b6770;text-transform:uppercase;letter-spacing:.04em}",
    ".sources{margin:0;padding:0;list-style:none;font-size:13px}",
    ".sources li{margin:3px 0;display:flex;gap:6px;align-items:baseline}",
    ".sources .cite{margin:0;min-width:14px}",
    ".sources a{color:#047857}",
    ".rating{display:flex;align-items:center;gap:4px;margin-top:6px}",
    ".rate{border:1px solid #dfe5e2;background:#fff;color:#5b6770;border-radius:8px;padding:4px 6px;cursor:pointer;display:flex}",
    ".rate svg{width:16px;height:16px}",
    ".rate:hover:not(:disabled){color:#047857;border-color:#047857}",
    ".rate[aria-pressed=true]{color:#fff;background:#047857;border-color:#047857}",
    ".rate:disabled{cursor:default}",
    ".thanks{font-size:12px;color:#5b6770;margin-left:4px}",
    ".typing{display:inline-flex;gap:4px;padding:4px 0}",
    ".typing i{width:7px;height:7px;border-radius:50%;background:#9aa8a2;animation:blink 1.2s infinite}",
    ".typing i:nth-child(2){animation-delay:.2s}.typing i:nth-child(3){animation-delay:.4s}",
    "@keyframes blink{0%,80%,100%{opacity:.25}40%{opacity:1}}",
    "@media (prefers-reduced-motion:reduce){.typing i{animation:none}}",
    ".notice{margin:0;padding:8px 14px;background:#fef2f2;color:#991b1b;font-size:14px;border-top:1px solid #f3c7c7}",
    ".composer{display:flex;gap:8px;padding:10px 12px 6px;border-top:1px solid #e5eae7;background:#fff}",
    "textarea{flex:1;resize:none;font:inherit;color:inherit;padding:9px 11px;border:1px solid #c9d3ce;border-radius:10px;max-height:120px}",
    ".send{border:0;border-radius:10px;background:#047857;color:#fff;padding:0 12px;cursor:pointer;display:flex;align-items:center}",
    ".send:disabled{background:#9aa8a2;cursor:wait}",
    ".actions{display:flex;justify-content:space-between;padding:2px 12px 10px;background:#fff}",
    ".link{border:0;background:transparent;color:#047857;font:inherit;font-size:13px;font-weight:600;padding:4px 2px;cursor:pointer;text-decoration:underline;text-underline-offset:2px}",
    ".link:disabled{color:#9aa8a2}",
    "@media (max-width:480px){.panel{inset:0;width:100%;height:100%;border-radius:0}" +
      ":host([data-open]) .launcher{display:none}}",
  ].join("\n");

  function addStyles() {
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      root.adoptedStyleSheets = [sheet];
    } catch (e) {
      root.append(el("style", { text: CSS }));
    }
  }

  function mount() {
    addStyles();
    root.append(launcher, panel);
    document.body.append(host);
    restore();
    if (state.open) open(false);
  }

  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount);
})();
