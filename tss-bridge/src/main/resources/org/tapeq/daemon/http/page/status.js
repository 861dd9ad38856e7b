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

/**
 * Background jobs (verifications, repacks, and any other kind the status lists the same way): every array of
 * objects under "scheduler" whose entries have a "state" and at least one pair of counts named xDone and xTotal
 * (filesDone/filesTotal, bytesDone/bytesTotal, aggregatesDone/aggregatesTotal). The kind is the array's name
 * without its plural "s"; the cartridge is the entry's "barcode" or "source" ({@link jobCartridge}). The automatic
 * reclamation, when on or paused, is a row of its own after them ({@link reclaimRow}).
 */
function backgroundJobs(s) {
  const jobs = [];
  for (const [key, list] of Object.entries(s)) {
    if (!Array.isArray(list)) { continue; }
    for (const j of list) {
      if (j === null || typeof j !== "object" || typeof j.state !== "string" || counts(j).length === 0) { continue; }
      jobs.push({kind: key.endsWith("s") ? key.slice(0, -1) : key, job: j});
    }
  }
  return jobs;
}

/** The job's xDone/xTotal pairs, in the order the status lists them (an unknown total, -1, is left out). */
function counts(j) {
  const pairs = [];
  for (const [k, total] of Object.entries(j)) {
    if (!k.endsWith("Total")) { continue; }
    const what = k.slice(0, -5);
    const done = j[what + "Done"];
    if (typeof total === "number" && typeof done === "number" && total >= 0) { pairs.push({what, done, total}); }
  }
  return pairs;
}

function amount(what, n) {
  return what === "bytes" ? size(n) : n + " " + what;
}

/** "3 of 10 files": a count of a total. */
function of(done, total, what) {
  return amount(what, done) + " of " + amount(what, total);
}

/** The mean rate of a job's bytes moved from its start to its end (or to now while it runs), or "". */
function rate(bytes, started, ended, now) {
  const millis = (ended > 0 ? ended : now) - started;
  return bytes > 0 && millis > 0 && started > 0 ? size(bytes * 1000 / millis) + "/s" : "";
}

/** The repack of {@code barcode} among the status's repacks that has not ended, or null. */
function runningRepack(s, barcode) {
  return (s.repacks || []).find(r => r.source === barcode && !(r.ended > 0)) || null;
}

/** The cartridge a job is about: a verification's, a repack's source, the cartridge a migration moves now. */
function jobCartridge(kind, j) {
  return kind === "migration" ? j.current : j.barcode || j.source;
}

/** What the kinds this page knows say besides their counts; other kinds show their error only. */
function jobDetail(kind, j, s) {
  const parts = [];
  if (kind === "repack") {
    parts.push("to family " + text(j.targetFamily) + (j.target ? ", writing to " + j.target : ""));
    const r = rate(j.bytesDone, j.started, j.ended, s.now);
    if (r) { parts.push(r + " since asked for"); }
    if (j.spooledFiles > 0) { parts.push(j.spooledFiles + " in the spool (" + size(j.spooledBytes || 0) + ")"); }
    if (j.filesFailed > 0) { parts.push(j.filesFailed + " failed (they stay)"); }
    if (j.emptied) { parts.push("source EMPTY"); }
  } else if (kind === "verification") {
    // Unchecked files were read whole but their catalog checksum is not an Adler-32: not known good.
    parts.push((j.filesGood || 0) + " good, " + (j.filesUnchecked || 0) + " unchecked, " + (j.filesBad || 0)
        + " bad, " + (j.filesUnreadable || 0) + " unreadable" + (j.sampled ? " (sample)" : ""));
  } else if (kind === "migration") {
    parts.push(text(j.fromMedia) + " to " + text(j.toMedia) + (j.family ? ", family " + j.family : ""));
    for (const b of (j.moving || (j.current ? [j.current] : []))) {
      const r = runningRepack(s, b);
      parts.push("now " + b + (r ? " (" + r.state + "): " + of(r.filesDone, r.filesTotal, "files") + ", "
          + of(r.bytesDone, r.bytesTotal, "bytes") + (r.target ? ", writing to " + r.target : "") : ""));
    }
    if (j.rateBytesPerSecond > 0) { parts.push("measured " + size(j.rateBytesPerSecond) + "/s"); }
    if (j.state === "running") {
      parts.push(j.etaMillis > 0 ? "estimated end " + text(j.etaTime) : "no estimate until bytes have moved");
    }
    if (j.cartridgesFailed > 0) { parts.push(j.cartridgesFailed + " not emptied"); }
  }
  if (j.error) { parts.push(j.error); }
  return parts.join("; ");
}

/** The automatic reclamation as a row of the background table, or null when it is off. */
function reclaimRow(rc) {
  if (!rc || !rc.state || rc.state === "off") { return null; }
  const parts = [];
  if (rc.state === "paused") {
    parts.push("paused" + (rc.pausedSinceTime ? " since " + rc.pausedSinceTime : "") + ": " + text(rc.reason));
  }
  parts.push(rc.candidates + " candidate(s) below " + (100 * rc.threshold).toFixed(0) + " % live"
      + ((rc.listed || []).length > 0 ? ": " + rc.listed.join(" ") + (rc.candidates > rc.listed.length ? " ..." : "") : ""));
  parts.push(rc.queued + " repack(s) queued or running, " + rc.started + " started in this run");
  if ((rc.needOperator || []).length > 0) { parts.push("left for an operator: " + rc.needOperator.join(" ")); }
  if (rc.lastLookTime) { parts.push("last look " + rc.lastLookTime); }
  return ["reclamation", "", rc.state, "", "", "", parts.join("; ")];
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

  const bg = s.background || {};
  const jobs = backgroundJobs(s);
  const reclaimRows = [reclaimRow(s.reclaim)].filter(r => r !== null);
  document.getElementById("background-note").textContent = (bg.running || 0) + " running (of at most "
      + (bg.maxDrives || 0) + " drive(s)), " + (bg.waiting || 0) + " waiting for a drive; this run's jobs, the"
      + " running ones and the last ended ones";
  fill("background", ["job", "cartridge", "state", "progress", "done", "left", "detail"],
      jobs.map(({kind, job}) => {
        const c = counts(job);
        const main = c.find(p => p.what === "bytes") || c[0];
        return [kind, jobCartridge(kind, job), job.state,
          main.total > 0 ? (100 * main.done / main.total).toFixed(1) + " %" : "",
          c.map(p => of(p.done, p.total, p.what)).join(", "),
          c.map(p => amount(p.what, Math.max(0, p.total - p.done))).join(", "),
          jobDetail(kind, job, s)];
      }).concat(reclaimRows),
      i => i >= jobs.length ? (s.reclaim.state === "paused" ? "warn" : "")
          : jobs[i].job.state === "failed" || jobs[i].job.filesBad > 0 || jobs[i].job.filesUnreadable > 0
          || jobs[i].job.filesFailed > 0 || jobs[i].job.cartridgesFailed > 0 ? "bad" : "");

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
