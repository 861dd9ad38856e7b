// The status page: polls /status (the daemon's JSON status) and fills the tables. Every value taken from the
// status is set as text (textContent), never parsed as HTML, so a cartridge name or a reason that looks like
// markup is shown as it is. No other request than /status; nothing is fetched from elsewhere.
"use strict";

const LIMIT = 100;
const refreshSeconds = Math.max(1, Number(new URLSearchParams(location.search).get("refresh")) || 5);

function size(bytes) {
  const units = ["B", "kB", "MB", "GB", "TB", "PB"];
  let u = 0;
  while (bytes >= 1000 && u < units.length - 1) { bytes /= 1000; u++; }
  return u === 0 ? bytes.toFixed(0) + " B" : bytes.toFixed(1) + " " + units[u];
}

function mbps(bytesPerSecond) {
  return (bytesPerSecond / 1e6).toFixed(1);
}

/** "showing 100 of 250 cartridge(s)": a list the page shows only the first entries of says so plainly. */
function shown(count, total, what) {
  return "showing " + count + " of " + total + " " + what;
}

function text(value) {
  return value === null || value === undefined ? "" : String(value);
}

/** Replaces the table's rows: a header, then one row per item; a cell is a string or {text, num}. */
function fill(id, header, rows, rowClass) {
  const table = document.getElementById(id);
  table.replaceChildren();
  const head = table.insertRow();
  for (const h of header) {
    const th = document.createElement("th");
    th.textContent = h;
    head.appendChild(th);
  }
  rows.forEach((cells, i) => {
    const tr = table.insertRow();
    tr.className = rowClass ? rowClass(i) : "";
    for (const c of cells) {
      const td = tr.insertCell();
      const num = typeof c === "number";
      td.textContent = num ? String(c) : text(c);
      if (num) { td.className = "num"; }
    }
  });
  if (rows.length === 0) {
    table.insertRow().insertCell().textContent = "none";
  }
}

function render(st) {
  const s = st.scheduler || {};
  const counters = s.counters || {};
  document.getElementById("summary").textContent = "version " + text(st.version) + ", time " + text(st.time)
      + ", up since " + text(st.started) + ", policy " + text(s.policy)
      + ", catalog " + (st.catalog && st.catalog.reachable ? "answers" : "does not answer: " + text(st.catalog && st.catalog.reason));
  const problem = document.getElementById("problem");
  problem.textContent = s.robot ? "mounts paused: " + s.robot : "";
  problem.hidden = !s.robot;

  const r = st.rates || {};
  fill("rates", ["staged files/s", "read MB/s", "flushed files/s", "written MB/s"],
      [[(r.files_staged || 0).toFixed(1), mbps(r.bytes_read || 0), (r.files_flushed || 0).toFixed(1), mbps(r.bytes_written || 0)]]);

  const drives = s.drives || [];
  const driveRates = st.driveRates || {};
  // A down drive's activity already holds its reason ("down: by administrator: ..."): each reason once.
  fill("drives", ["drive", "state", "cartridge", "activity", "since", "MB/s", "errors", "group", "last error"],
      drives.map(d => [d.id, d.state, d.cartridge, d.activity, d.sinceTime, mbps(driveRates[d.id] || 0), d.errors, d.group,
        d.reason && !text(d.activity).includes(d.reason) ? d.reason : ""]),
      i => drives[i].state === "down" ? "bad" : "");

  const queues = s.queues || [];
  document.getElementById("queues-note").textContent = shown(queues.length, s.queueCount || 0, "queue(s) with work")
      + " (" + (s.readyQueues || 0) + " ready, " + (s.waitingQueues || 0) + " waiting)";
  fill("queues", ["queue", "group", "state", "files", "bytes", "oldest request", "why it waits"],
      queues.map(q => [q.name, q.group, q.state, q.files, size(q.bytes), q.oldestArrivalTime, q.reason]),
      i => queues[i].state === "blocked" ? "bad" : queues[i].state === "mounted" ? "" : "warn");

  const load = st.load || {};
  const loadRows = [];
  for (const [kind, map] of [["group", load.groups || {}], ["family", load.families || {}]]) {
    for (const [name, l] of Object.entries(map)) {
      loadRows.push([kind, name, l.queues, l.files, size(l.bytes), l.oldestArrivalTime]);
    }
  }
  fill("load", ["kind", "name", "queues", "files", "bytes", "oldest request"], loadRows);

  const carts = s.cartridges || [];
  const byState = Object.entries(s.cartridgesByState || {}).map(([k, v]) => v + " " + k).join(", ");
  document.getElementById("cartridges-note").textContent = shown(carts.length, s.cartridgeCount || 0, "cartridge(s)")
      + (byState ? " (" + byState + ")" : "");
  fill("cartridges", ["cartridge", "family", "state", "fill", "used", "mounts", "reason"],
      carts.map(c => [c.barcode, c.family, c.state + (c.disabled ? " (disabled)" : ""),
        c.capacityBytes > 0 ? (100 * c.usedBytes / c.capacityBytes).toFixed(1) + " %" : "",
        size(c.usedBytes) + " of " + size(c.capacityBytes), c.mountCount, c.reason]),
      i => carts[i].disabled || carts[i].state === "suspect" ? "bad" : "");

  const faults = [];
  for (const [k, v] of Object.entries(counters)) {
    if (k.startsWith("faults_") && v > 0) { faults.push(["fault", k.substring(7), v, ""]); }
  }
  for (const [k, b] of Object.entries(s.blocked || {})) {
    if (b.requests > 0) { faults.push(["blocked", k, b.requests, "since " + text(b.sinceTime)]); }
  }
  for (const c of s.attention || []) {
    faults.push(["cartridge", c.barcode, c.state + (c.disabled ? " (disabled)" : ""), c.reason]);
  }
  for (const d of drives) {
    if (d.errors > 0) { faults.push(["drive", d.id, d.errors + " error(s)", d.reason]); }
  }
  for (const dir of st.directories || []) {
    for (const p of dir.parked || []) { faults.push(["parked flush", p.pnfsid, dir.name, p.reason]); }
  }
  fill("faults", ["kind", "what", "count / state", "detail"], faults);

  const recent = s.recentFaults || [];
  const total = Object.entries(counters).filter(([k]) => k.startsWith("faults_")).reduce((a, [, v]) => a + v, 0);
  document.getElementById("recent-faults-note").textContent = "the last " + recent.length + " of " + total
      + " fault(s) since the daemon started, newest first";
  fill("recent-faults", ["time", "kind", "drive", "cartridge", "reason"],
      recent.map(f => [f.atTime, f.kind, f.drive, f.cartridge, f.reason]));

  const dirs = st.directories || [];
  fill("directories", ["name", "path", "requests", "in scheduler", "oldest", "stage buffer", "rejected", "stopped"],
      dirs.map(d => [d.name, d.path, Object.entries(d.requests || {}).filter(([, v]) => v > 0).map(([k, v]) => v + " " + k).join(", "),
        d.inScheduler, d.oldest, size(d.bufferReserved) + " of " + size(d.bufferCapacity), d.rejected, d.stopped]),
      i => dirs[i].stopped ? "bad" : "");
}

async function refresh() {
  const problem = document.getElementById("problem");
  try {
    const response = await fetch("/status?limit=" + LIMIT, {cache: "no-store"});
    if (!response.ok) { throw new Error("HTTP " + response.status); }
    render(await response.json());
    document.getElementById("updated").textContent = new Date().toISOString();
  } catch (e) {
    problem.textContent = "cannot read /status: " + e.message;
    problem.hidden = false;
  }
  setTimeout(refresh, refreshSeconds * 1000);
}

document.getElementById("refresh").textContent = refreshSeconds;
refresh();
