// The switchboard console: reads /api/state, refreshes on the server's
// events, and posts the operator's actions with the token. Everything
// shown is put in the page as text (never as HTML).
"use strict";
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const token = (() => {
    const m = location.hash.match(/token=([0-9A-Za-z_-]+)/);
    if (m) { sessionStorage.setItem("sb-token", m[1]); history.replaceState(null, "", location.pathname); }
    return sessionStorage.getItem("sb-token") || "";
  })();
  let state = null, view = "agents", thread = null, canAct = false;

  // el builds an element: el("td", {class: "x", data: {id: 1}}, "text", child).
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "data") for (const [dk, dv] of Object.entries(v)) e.dataset[dk] = dv;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
    return e;
  }
  const badge = (text, cls) => el("span", { class: "badge " + (cls || "s-" + text) }, text);
  const age = (s) => s < 0 ? "—" : s < 60 ? Math.round(s) + "s" : s < 3600 ? Math.round(s / 60) + "m" : Math.round(s / 3600) + "h";
  const ago = (t) => age((Date.parse(state.now) - Date.parse(t)) / 1000);
  const time = (t) => new Date(t).toLocaleTimeString();
  const table = (heads, rows) => el("table", {}, el("thead", {}, el("tr", {}, heads.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows));
  const td = (label, ...kids) => el("td", { "data-label": label }, ...kids);
  const empty = (text) => el("p", { class: "muted" }, text);

  function notice(text, error) {
    const n = $("#notice");
    n.textContent = text; n.hidden = !text; n.className = error ? "error" : "";
  }

  async function act(name, body) {
    if (!canAct) { notice("read-only: open the address the console printed at start to act", true); return false; }
    const res = await fetch("/api/action/" + name, { method: "POST",
      headers: { "Content-Type": "application/json", "X-Console-Token": token }, body: JSON.stringify(body) });
    const out = await res.json().catch(() => ({ error: res.statusText }));
    notice(res.ok ? out.done : out.error, !res.ok);
    refresh();
    return res.ok;
  }
  const actButton = (label, cls, name, body, confirmText) => el("button", { type: "button", class: cls,
    disabled: !canAct, title: canAct ? null : "read-only session",
    on: { click: () => (!confirmText || confirm(confirmText)) && act(name, body) } }, label);

  const views = {
    agents() {
      if (!state.agents.length) return empty("No agents yet: start one (switchboard recv AGENT, or run).");
      return table(["Agent", "Status", "Load", "Capabilities", "Roles", "Heartbeat", "Inbox", "Oldest", ""],
        state.agents.map((a) => el("tr", { data: { agent: a.id } },
          td("Agent", el("strong", {}, a.id), a.description ? el("div", { class: "muted" }, a.description) : null),
          td("Status", badge(a.online ? a.status : "offline")),
          td("Load", a.registered ? a.tasks + "/" + a.max_tasks : "—"),
          td("Capabilities", a.capabilities.join(", ")), td("Roles", a.roles.join(", ")),
          td("Heartbeat", age(a.heartbeat_age)), td("Inbox", String(a.depth)), td("Oldest", age(a.oldest_age)),
          td("", a.online && a.status !== "draining" ? actButton("drain", "drain", "drain", { agent: a.id },
            "Drain " + a.id + "? It finishes its tasks, takes no new ones, then goes offline.") : null))));
    },
    threads() { renderThreads(); return null; },
    tasks() {
      if (!state.tasks.length) return empty("No tasks delegated yet.");
      const node = (t) => el("li", { class: "task", data: { task: t.id } }, el("div", {},
        el("div", {}, badge(t.state, "state s-" + t.state), " ", el("strong", {}, t.from + " → " + t.to), " ",
          el("span", { class: "mono" }, t.id)),
        el("div", {}, t.text),
        el("div", { class: "muted" }, "started " + time(t.created) + ", " + t.updates.map((u) => u.state + " " + time(u.time)).join(" · "),
          t.deadline ? ", due " + time(t.deadline) : "", t.reason ? " — " + t.reason : ""),
        t.origin ? el("div", { class: "muted" }, "from chat " + t.origin.channel + ":" + (t.origin.chat_id || "")) : null,
        t.stuck ? el("div", { class: "stuck" }, "waiting: " + t.stuck) : null,
        el("div", {}, el("button", { type: "button", on: { click: () => openThread(t.thread) } }, "conversation"), " ",
          ["completed", "failed", "rejected", "canceled"].includes(t.state) ? null :
            actButton("cancel", "cancel", "cancel", { task_id: t.id }, "Cancel task " + t.id + "?"))),
        t.children.length ? el("ul", { class: "tree" }, t.children.map(node)) : null);
      return el("ul", { class: "tree" }, state.tasks.map(node));
    },
    graph() { renderGraph(); return null; },
    setaside() {
      if (!state.set_aside.length) return empty("Nothing set aside.");
      return table(["Agent", "When", "Reason", "Message", ""], state.set_aside.map((s) => el("tr", { class: "setaside", data: { ref: s.ref, agent: s.agent } },
        td("Agent", s.agent), td("When", time(s.time)), td("Reason", s.reason || s.error || "—"),
        td("Message", s.id ? el("div", { class: "muted" }, s.type + " from " + s.from) : null, el("div", { class: "mono" }, s.text)),
        td("", s.can_redeliver ? actButton("redeliver", "redeliver", "redeliver", { agent: s.agent, ref: s.ref }) : null, " ",
          actButton("discard", "discard", "discard", { agent: s.agent, ref: s.ref }, "Discard this message for good?")))));
    },
    pending() {
      if (!state.pending.length) return empty("No replies owed.");
      return table(["Owed by", "To", "Asked", "Due", "About", ""], state.pending.map((p) => el("tr", { data: { id: p.id } },
        td("Owed by", p.to), td("To", p.from), td("Asked", time(p.sent_at) + " (" + ago(p.sent_at) + " ago)"),
        td("Due", p.due ? time(p.due) : "—", p.overdue ? [" ", badge("overdue")] : null),
        td("About", p.subject || p.task_id || p.type), td("", el("button", { type: "button", on: { click: () => openThread(p.thread) } }, "conversation"),
          " ", actButton("archive", "archive", "archive", { id: p.id })))));
    },
    audit() { renderAudit(); return null; },
    approvals() {
      if (!state.approvals.length) return empty("No approvals waiting.");
      return el("div", {}, table(["Agent", "Asks to", "Detail", "Chat", "Asked", "Deadline", ""], state.approvals.map((a) =>
        el("tr", { class: "approval" + (a.expired ? " expired" : ""), data: { approval: a.id } },
          td("Agent", el("strong", {}, a.agent)),
          td("Asks to", a.kind ? badge(a.kind, "kind") : null, " ", a.action),
          td("Detail", a.detail ? el("div", { class: "mono" }, a.detail) : "—"),
          td("Chat", a.chat ? el("span", { class: "mono" }, a.chat) : el("span", { class: "muted" }, "none (decide here or with the CLI)")),
          td("Asked", time(a.created)),
          td("Deadline", a.expired ? badge("expired", "s-overdue") : a.deadline ? el("span", { class: "countdown", data: { deadline: a.deadline } }, left(a.deadline)) : "—"),
          td("", canAct ? decideButtons(a) : el("span", { class: "muted" }, "read-only"))))),
        el("p", { class: "muted" }, state.approvals.some((a) => a.expired) ?
          "Expired: the agent stopped waiting (it stopped or crashed); the step counts as denied. Deny removes the record." :
          "No answer by the deadline denies the step. The first decision stands, from here, the chat or the command line."));
    },
    escalations() {
      const list = state.escalations || [];
      if (!list.length) return empty("No escalations waiting.");
      return el("div", {}, table(["Agent", "Task", "Trigger", "Asked", "Tried", "Level", "Time left", ""], list.map((e) =>
        el("tr", { class: "escalation", data: { escalation: e.id } },
          td("Agent", el("strong", {}, e.agent)),
          td("Task", el("span", { class: "mono" }, e.task_id)),
          td("Trigger", badge(e.trigger, "kind")),
          td("Asked", e.asked),
          td("Tried", (e.attempts || []).map((a) => a.agent + ": " + a.said + (a.reason ? " (" + a.reason + ")" : "")).join("; ")),
          td("Level", (e.levels || [])[e.level] || "—", e.asked_at ? " (" + e.asked_at + ")" : ""),
          td("Time left", e.decision ? badge("decided: " + e.decision.action, "kind") : el("span", { class: "countdown", data: { deadline: e.due } }, left(e.due))),
          td("", e.decision ? el("span", { class: "muted" }, "its agent acts on it") : canAct ? escalationButtons(e) : el("span", { class: "muted" }, "read-only"))))),
        el("p", { class: "muted" }, "The first decision stands, from here, the level's agent, the chat or the command line; the agent that escalated acts on it."));
    },
  };

  // escalationButtons are the operator's answers to an escalation of
  // stuck work: retry, reassign (to the agent asked for), cancel, take over.
  function escalationButtons(e) {
    const decide = (action, extra) => act("escalation", Object.assign({ id: e.id, action: action }, extra || {}));
    const reassign = () => { const to = prompt("Reassign task " + e.task_id + " to which agent?"); if (to) decide("reassign", { agent: to.trim() }); };
    return el("span", { class: "decide" },
      el("button", { type: "button", on: { click: () => decide("retry") } }, "Retry"), " ",
      el("button", { type: "button", on: { click: reassign } }, "Reassign…"), " ",
      el("button", { type: "button", class: "deny", on: { click: () => confirm("Cancel task " + e.task_id + "? The user is told.") && decide("cancel") } }, "Cancel"), " ",
      el("button", { type: "button", on: { click: () => decide("takeover") } }, "Take over"));
  }
  // decideButtons are the operator's answers to an approval: approve and
  // deny while its agent waits, only deny (which removes it) once expired.
  function decideButtons(a) {
    const what = a.action + " for " + a.agent;
    return el("span", { class: "decide" },
      a.expired ? null : el("button", { type: "button", class: "approve", "aria-label": "approve: " + what,
        on: { click: () => act("approve", { id: a.id }) } }, "Approve"), " ",
      el("button", { type: "button", class: "deny", "aria-label": (a.expired ? "remove (deny): " : "deny: ") + what,
        on: { click: () => act("deny", { id: a.id }) } }, a.expired ? "Remove" : "Deny"));
  }
  // left is the time until deadline t by the server's clock, "42s left".
  function left(t) {
    const s = (Date.parse(t) - (Date.now() + skew)) / 1000;
    return s <= 0 ? "due now" : age(s) + " left";
  }
  let skew = 0; // the server's clock minus the page's
  setInterval(() => { for (const e of document.querySelectorAll(".countdown")) e.textContent = left(e.dataset.deadline); }, 1000);

  function threadMatches(t, q) {
    if (!q) return true;
    const hay = [t.id, t.subject, ...t.participants, ...t.tasks, ...t.messages.map((m) => m.text + " " + m.id)].join(" ").toLowerCase();
    return q.toLowerCase().split(/\s+/).every((w) => hay.includes(w));
  }
  function renderThreads() {
    const list = $("#thread-list"), q = $("#q").value.trim();
    const shown = state.threads.filter((t) => threadMatches(t, q));
    list.replaceChildren(...shown.map((t) => el("li", {}, el("button", { type: "button", "aria-current": t.id === thread,
      data: { thread: t.id }, on: { click: () => openThread(t.id) } },
      el("strong", {}, t.subject || t.messages[0].text.slice(0, 40) || t.id), " ",
      t.owed ? badge(t.owed + " owed", "owed") : null,
      el("div", { class: "muted" }, t.participants.join(", ") + " · " + time(t.last))))));
    if (!shown.length) list.replaceChildren(el("li", { class: "muted" }, q ? "No conversation matches." : "No messages yet."));
    const t = state.threads.find((x) => x.id === thread) || null;
    $("#thread").replaceChildren(t ? el("div", { data: { thread: t.id } }, el("h2", {}, t.subject || "thread " + t.id),
      t.messages.map((m) => el("article", { class: "msg" + (m.from === "operator" ? " operator" : ""), data: { id: m.id } },
        el("header", {}, el("strong", {}, m.from + " → " + m.to), el("span", { class: "muted" }, time(m.time)),
          badge(m.type, "type"), m.task_state ? badge(m.task_state) : null,
          m.owed ? badge(m.overdue ? "reply overdue" : "reply owed", m.overdue ? "s-overdue" : "owed") : null,
          el("span", { class: "muted" }, m.box),
          canAct ? el("button", { type: "button", on: { click: () => replyTo(m) } }, "reply") : null),
        el("p", {}, m.text)))) : empty("Pick a conversation."));
    $("#send").hidden = !canAct;
  }
  function openThread(id) { thread = id; show("threads"); }
  function replyTo(m) {
    const f = $("#send");
    f.to.value = m.from === "operator" ? m.to : m.from; f.reply_to.value = m.id;
    $("#replying").textContent = "replying to " + m.id; f.text.focus();
  }
  function renderAudit() {
    const q = $("#aq").value.trim().toLowerCase();
    const rows = state.audit.slice().reverse().filter((e) => !q || JSON.stringify(e).toLowerCase().includes(q)).slice(0, 300);
    $("#audit").replaceChildren(rows.length ? table(["Time", "Kind", "Agent", "From", "Message", "Reason"], rows.map((e) => el("tr", { data: { kind: e.kind } },
      td("Time", time(e.time)), td("Kind", badge(e.kind, "kind")), td("Agent", e.agent), td("From", e.from || ""),
      td("Message", el("span", { class: "mono" }, e.message_id || e.ref || "")), td("Reason", e.reason || "")))) :
      empty(state.missing && state.missing.some((m) => m.includes("audit")) ? "This store keeps no audit log." : "No entries."));
  }
  // renderGraph draws the agents on a circle, an arrow per sender →
  // recipient, and places every label where it covers no other label nor
  // an agent: names outside the circle, each edge's label at the first
  // free point along its curve (measured in the page); a label that finds
  // no free point is listed under the graph instead.
  function renderGraph() {
    const box = $("#view-graph");
    const ids = [...new Set([...state.agents.map((a) => a.id), ...state.edges.flatMap((e) => [e.from, e.to])])];
    if (!ids.length) { box.replaceChildren(empty("No agents yet.")); return; }
    const ns = "http://www.w3.org/2000/svg", W = 720, H = 520, R = Math.min(W, H) / 2 - 70, node = 22;
    const svg = (tag, attrs, text) => { const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text) e.textContent = text; return e; };
    const pos = {}, dir = {}; ids.forEach((id, i) => { const a = 2 * Math.PI * i / ids.length - Math.PI / 2;
      dir[id] = [Math.cos(a), Math.sin(a)]; pos[id] = [W / 2 + R * dir[id][0], H / 2 + R * dir[id][1]]; });
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "messages between agents" });
    const defs = svg("defs", {}); const mk = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "28", refY: "5", markerWidth: "8", markerHeight: "8", orient: "auto" });
    mk.append(svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" })); defs.append(mk); root.append(defs);
    const edges = svg("g", {}), nodes = svg("g", {}), labels = svg("g", {});
    root.append(edges, nodes, labels);
    const unplaced = el("ul", { class: "muted graph-more" });
    box.replaceChildren(el("div", {}, root, unplaced,
      el("p", { class: "muted" }, "Line width: messages stored; label: recent rate over the last five minutes.")));
    const taken = [], pad = 3;
    const free = (b) => !taken.some((o) => b.x - pad < o.x + o.width && o.x - pad < b.x + b.width &&
      b.y - pad < o.y + o.height && o.y - pad < b.y + b.height);
    for (const id of ids) {
      const a = state.agents.find((x) => x.id === id), [x, y] = pos[id], [dx, dy] = dir[id];
      nodes.append(svg("circle", { cx: x, cy: y, r: node, class: "node" + (a && a.online ? "" : " off") }));
      taken.push({ x: x - node, y: y - node, width: 2 * node, height: 2 * node });
      const t = svg("text", { x: x + dx * (node + 8), y: y + dy * (node + 8) + (dy > 0.3 ? 10 : dy < -0.3 ? -2 : 4),
        "text-anchor": dx > 0.3 ? "start" : dx < -0.3 ? "end" : "middle", class: "name" }, id);
      labels.append(t); taken.push(t.getBBox());
    }
    const curves = state.edges.map((e) => {
      const [x1, y1] = pos[e.from], [x2, y2] = pos[e.to], bend = 18, len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const cx = (x1 + x2) / 2 + bend * (y2 - y1) / len, cy = (y1 + y2) / 2 - bend * (x2 - x1) / len;
      const g = svg("g", { "data-edge": e.from + ">" + e.to });
      g.append(svg("path", { d: `M${x1},${y1} Q${cx},${cy} ${x2},${y2}`, class: "edge" + (e.recent ? " hot" : ""),
        "stroke-width": String(1 + Math.min(5, Math.log2(1 + e.count))), "marker-end": "url(#arrow)" }));
      edges.append(g);
      const at = (t) => [(1 - t) * (1 - t) * x1 + 2 * (1 - t) * t * cx + t * t * x2, (1 - t) * (1 - t) * y1 + 2 * (1 - t) * t * cy + t * t * y2];
      return { e, g, at, text: e.from + " → " + e.to + ": " + e.count + " msg" + (e.recent ? ", " + e.per_minute.toFixed(1) + "/min" : "") };
    });
    curves.sort((a, b) => b.e.count - a.e.count); // the busiest first: they get the middle of their curves
    const along = [0.5, 0.42, 0.58, 0.34, 0.66, 0.27, 0.73, 0.2, 0.8];
    for (const c of curves) {
      const e = c.e, t = svg("text", { class: "rate", "text-anchor": "middle", "dominant-baseline": "central" },
        e.count + " msg" + (e.recent ? ", " + e.per_minute.toFixed(1) + "/min" : ""));
      c.g.append(t);
      const spot = along.find((k) => { const [x, y] = c.at(k); t.setAttribute("x", x); t.setAttribute("y", y); return free(t.getBBox()); });
      c.g.append(svg("title", {}, c.text));
      if (spot === undefined) { t.remove(); unplaced.append(el("li", {}, c.text)); continue; }
      labels.append(t); taken.push(t.getBBox());
    }
    const all = root.getBBox(), m = 4; // names may reach past the circle's box
    root.setAttribute("viewBox", `${Math.min(0, all.x - m)} ${Math.min(0, all.y - m)} ${Math.max(W, all.x + all.width + m) - Math.min(0, all.x - m)} ${Math.max(H, all.y + all.height + m) - Math.min(0, all.y - m)}`);
  }

  function show(name) {
    view = name;
    for (const b of document.querySelectorAll("nav button")) {
      const on = b.dataset.view === name; b.setAttribute("aria-selected", on); b.tabIndex = on ? 0 : -1;
    }
    for (const s of document.querySelectorAll("main section")) s.hidden = s.id !== "view-" + name;
    render();
    refresh(); // what the watch does not report (a message set aside, an audit entry) shows on a view's opening
  }
  function render() {
    if (!state) return;
    $("#store").textContent = state.store;
    $("#mode").textContent = canAct ? "operator" : "read-only";
    $("#mode").className = "badge " + (canAct ? "s-online" : "");
    const waiting = state.approvals.filter((a) => !a.expired).length;
    $("#approvals-count").textContent = waiting ? String(waiting) : "";
    $("#approvals-count").hidden = !waiting;
    const stuck = (state.escalations || []).filter((e) => !e.decision).length;
    $("#escalations-count").textContent = stuck ? String(stuck) : "";
    $("#escalations-count").hidden = !stuck;
    const out = views[view]();
    if (!out) return;
    // The view is built anew: a button the keyboard was on keeps the focus.
    const label = document.activeElement && document.activeElement.getAttribute("aria-label");
    $("#view-" + view).replaceChildren(out);
    const again = label && [...out.querySelectorAll("[aria-label]")].find((e) => e.getAttribute("aria-label") === label);
    if (again) again.focus();
  }
  let inflight = null, again = false;
  async function refresh() {
    if (inflight) { again = true; return inflight; }
    inflight = (async () => {
      try {
        const res = await fetch("/api/state", { headers: token ? { "X-Console-Token": token } : {} });
        const body = await res.json();
        if (!res.ok) { notice(body.error, true); return; }
        state = body; canAct = body.can_act; skew = Date.parse(body.now) - Date.now(); render();
        document.body.dataset.loaded = String(Date.now());
      } catch (err) { notice("cannot reach the console: " + err, true); }
    })();
    await inflight; inflight = null;
    if (again) { again = false; refresh(); }
  }
  function live() {
    const es = new EventSource("/api/events" + (token ? "?token=" + encodeURIComponent(token) : ""));
    es.addEventListener("ready", () => { $("#live").textContent = "● live"; $("#live").className = "badge s-online"; refresh(); });
    es.addEventListener("change", () => refresh());
    es.onerror = () => { $("#live").textContent = "○ reconnecting"; $("#live").className = "badge s-offline"; };
  }

  document.querySelector("nav").addEventListener("click", (e) => { const b = e.target.closest("button[data-view]"); if (b) show(b.dataset.view); });
  document.querySelector("nav").addEventListener("keydown", (e) => {
    const tabs = [...document.querySelectorAll("nav button")], i = tabs.indexOf(document.activeElement);
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (i < 0 || !step) return;
    e.preventDefault(); const next = tabs[(i + step + tabs.length) % tabs.length]; next.focus(); show(next.dataset.view);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.matches("input, textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
    const n = Number(e.key); const tabs = document.querySelectorAll("nav button");
    if (n >= 1 && n <= tabs.length) { tabs[n - 1].focus(); show(tabs[n - 1].dataset.view); }
    if (e.key === "/") { e.preventDefault(); show("threads"); $("#q").focus(); }
  });
  $("#q").addEventListener("input", () => render());
  $("#aq").addEventListener("input", () => render());
  $("#theme").addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    document.documentElement.dataset.theme = dark ? "light" : "dark"; localStorage.setItem("sb-theme", document.documentElement.dataset.theme);
  });
  if (localStorage.getItem("sb-theme")) document.documentElement.dataset.theme = localStorage.getItem("sb-theme");
  $("#send").addEventListener("submit", async (e) => {
    e.preventDefault(); const f = e.target;
    const ok = await act("send", { to: f.to.value, text: f.text.value, subject: f.subject.value, reply_to: f.reply_to.value,
      expects_reply: f.expects_reply.checked, task: f.task.checked });
    if (ok) { f.text.value = ""; f.reply_to.value = ""; $("#replying").textContent = ""; }
  });
  show("agents"); live();
})();
