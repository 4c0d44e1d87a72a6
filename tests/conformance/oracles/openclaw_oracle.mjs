#!/usr/bin/env node
// openclaw_oracle.mjs — ask OpenClaw's OWN dist code what it injects from a workspace.
//
// Usage (node >= 24; see agents_setup.sh for the binary):
//   NODE=/work/cache/agents/node24/node_modules/node/bin/node
//   $NODE openclaw_oracle.mjs [WORKSPACE] [options]
//
//   WORKSPACE            the workspace folder.  Default: the agent's workspace as OpenClaw resolves it
//                        from the config and env (resolveAgentWorkspaceDir).
//   --config PATH        openclaw.json to use (sets OPENCLAW_CONFIG_PATH before OpenClaw loads).
//                        Default: OpenClaw's own lookup (OPENCLAW_CONFIG_PATH; else $OPENCLAW_STATE_DIR/openclaw.json
//                        or clawdbot.json there; else ~/.openclaw/openclaw.json, legacy clawdbot.json, ~/.clawdbot).
//                        An invalid config (OpenClaw would refuse it) is reported in config_diagnostics and the
//                        defaults are used, as OpenClaw's read-only resolver does.
//   --no-config          use an empty config object (OpenClaw's defaults)
//   --agent ID           agent id (default: OpenClaw's default agent for the config, usually "main")
//   --session-key KEY    session key, e.g. agent:main:subagent:x or a cron key (default: none = main chat)
//   --chat-type T        direct | group | channel (group/channel drop MEMORY.md like OpenClaw does)
//   --now ISO|MS         clock for the /new prelude (default: now)
//   --tz ZONE            process time zone (sets TZ) when the config has no agents.defaults.userTimezone
//   --action new|reset   which bare command the prelude is for (default new)
//   --no-prompt          skip building the full system prompt (faster; prompt_* fields are omitted)
//   --batch FILE         no workspace: run OpenClaw's budgeter on the cases in FILE (see the batch section)
//   --pkg DIR            the openclaw package dir (default $OPENCLAW_PKG or
//                        /work/cache/agents/openclaw-2026.9.6/node_modules/openclaw)
//   Env OPENCLAW_STATE_DIR / OPENCLAW_HOME / HOME / OPENCLAW_PROFILE / OPENCLAW_WORKSPACE_DIR are honoured as
//   OpenClaw honours them.  The state database is only read (readOnly), never created.
//
// Prints JSON:
//   version, config_path, config (the bits that matter), workspace, agent_id, limits {maxChars,totalMaxChars}
//   files:   [{name, path, missing, raw_length (JS length = UTF-16 units, before trimEnd), trimmed_length,
//              injected (the text OpenClaw put in the context file), injected_length, truncated}]  — in
//              OpenClaw's injection order; files dropped for budget/session/eligibility are absent;
//              loaded_files lists what was read before budgeting.
//   prompt_order: the files as the system prompt lists them (sorted by OpenClaw's CONTEXT_FILE_ORDER)
//   prompt_files: {path: text exactly as it appears under "## <path>" in the system prompt}
//   project_context: the "# Project Context" section of the system prompt, up to its cache boundary
//   prelude: {applies, bootstrap_status, text}  — the startup context OpenClaw prepends on a bare /new or /reset
//
// Not modelled: registered "agent:bootstrap" hooks (e.g. bootstrap-extra-files), the truncation notice section,
// sandbox/remote workspaces, contextInjection/continuation-skip (reported in config only).
//
// How it reaches the code: every function is taken from the dist chunk that defines it, found by scanning
// dist/*.mjs for "function <name>(" and picking the export whose Function.name matches.  Functions that are
// not exported (the /new prelude) are loaded by cutting their "//#region" out of the chunk and importing it
// with the chunk's own imports, as a temporary module next to the chunk (removed again at once).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// ---------- arguments (before any OpenClaw import: its paths are fixed at module load) ----------
const argv = process.argv.slice(2);
const opt = {};
const pos = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--no-config" || a === "--no-prompt" || a === "--serve") opt[a.slice(2)] = true;
  else if (a.startsWith("--")) opt[a.slice(2)] = argv[++i];
  else pos.push(a);
}
if (opt.config) process.env.OPENCLAW_CONFIG_PATH = path.resolve(opt.config);
if (opt.tz) process.env.TZ = opt.tz;
const PKG = path.resolve(opt.pkg || process.env.OPENCLAW_PKG || "");
const DIST = path.join(PKG, "dist");

// ---------- locating OpenClaw's functions ----------
const distFiles = fs.readdirSync(DIST).filter((f) => f.endsWith(".mjs")).sort();
const textCache = new Map();
const readChunk = (f) => {
  if (!textCache.has(f)) textCache.set(f, fs.readFileSync(path.join(DIST, f), "utf8"));
  return textCache.get(f);
};
function chunksDefining(name, hint) {
  const re = new RegExp(`^(?:async )?function ${name.replace(/\$/g, "\\$")}\\(`, "m");
  const preferred = hint ? distFiles.filter((f) => f.startsWith(hint)) : [];
  for (const group of [preferred, distFiles]) {
    const found = group.filter((f) => re.test(readChunk(f)));
    if (found.length) return found;
  }
  throw new Error(`no dist chunk defines function ${name}`);
}
async function exported(name, hint) {
  for (const f of chunksDefining(name, hint)) {
    const mod = await import(pathToFileURL(path.join(DIST, f)).href);
    const fn = Object.values(mod).find((v) => typeof v === "function" && v.name === name);
    if (fn) return fn;
  }
  return null;
}
// A function that is not exported: import its //#region (plus the regions of the same chunk it needs).
async function fromRegion(name, hint) {
  const file = chunksDefining(name, hint)[0];
  const text = readChunk(file);
  const lines = text.split("\n");
  const imports = [];
  for (const l of lines) {
    const m = /^import\s+(.+?)\s+from\s+"([^"]+)";$/.exec(l);
    if (!m) continue;
    const spec = m[2].startsWith(".") ? pathToFileURL(path.join(DIST, m[2])).href : m[2];
    const clause = m[1];
    const locals = [];
    const named = /\{([^}]*)\}/.exec(clause);
    if (named) for (const part of named[1].split(",")) {
      const p = part.trim(); if (!p) continue;
      const mm = /^(\S+)\s+as\s+(\S+)$/.exec(p);
      locals.push(mm ? { imported: mm[1], local: mm[2] } : { imported: p, local: p });
    }
    const def = /^([A-Za-z_$][\w$]*)\s*(,|$)/.exec(clause);
    const ns = /\*\s+as\s+([A-Za-z_$][\w$]*)/.exec(clause);
    imports.push({ spec, locals, def: def ? def[1] : null, ns: ns ? ns[1] : null });
  }
  // regions: [start,end) line ranges
  const regions = [];
  let start = null;
  lines.forEach((l, i) => {
    if (l.startsWith("//#region")) start = i;
    else if (l.startsWith("//#endregion") && start !== null) { regions.push([start, i + 1]); start = null; }
  });
  const declRe = (n) => new RegExp(`^(?:async function|function|const|let|var|class)\\s+${n.replace(/\$/g, "\\$")}\\b`, "m");
  const regionOf = (n) => regions.find(([a, b]) => declRe(n).test(lines.slice(a, b).join("\n")));
  const wanted = [regionOf(name)];
  if (!wanted[0]) throw new Error(`no region for ${name} in ${file}`);
  const importedNames = new Map();
  for (const im of imports) {
    for (const l of im.locals) importedNames.set(l.local, im);
    if (im.def) importedNames.set(im.def, im);
    if (im.ns) importedNames.set(im.ns, im);
  }
  const used = new Set();
  for (let k = 0; k < wanted.length; k++) {
    const body = lines.slice(...wanted[k]).join("\n");
    for (const id of new Set(body.match(/[A-Za-z_$][\w$]*/g) || [])) {
      if (importedNames.has(id)) { used.add(id); continue; }
      if (declRe(id).test(body)) continue;
      const r = regionOf(id);
      if (r && !wanted.includes(r)) wanted.push(r);
    }
  }
  const importLines = [];
  for (const im of imports) {
    const locals = im.locals.filter((l) => used.has(l.local));
    const parts = [];
    if (im.def && used.has(im.def)) parts.push(im.def);
    if (im.ns && used.has(im.ns)) parts.push(`* as ${im.ns}`);
    if (locals.length) parts.push(`{ ${locals.map((l) => `${l.imported} as ${l.local}`).join(", ")} }`);
    if (parts.length) importLines.push(`import ${parts.join(", ")} from ${JSON.stringify(im.spec)};`);
  }
  wanted.sort((a, b) => a[0] - b[0]);
  const src = [...importLines, ...wanted.map((r) => lines.slice(...r).join("\n")), `export { ${name} };`].join("\n");
  const tmp = path.join(DIST, `.oracle-${name}-${process.pid}.mjs`);
  fs.writeFileSync(tmp, src);
  try {
    return (await import(pathToFileURL(tmp).href))[name];
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

// A bare package as OpenClaw's own chunks resolve it (from dist/).
async function importFromDist(spec) {
  const tmp = path.join(DIST, `.oracle-reexport-${process.pid}.mjs`);
  fs.writeFileSync(tmp, `export * from ${JSON.stringify(spec)};\n`);
  try { return await import(pathToFileURL(tmp).href); } finally { fs.rmSync(tmp, { force: true }); }
}

// ---------- batch mode: OpenClaw's budgeter on given texts, no workspace ----------
// --batch CASES.json: [{files:[{name, path?, content?, missing?}], maxChars?, totalMaxChars?}, ...]
// prints [[{path, content}], ...] — buildBootstrapContextFiles (trimBootstrapContent, the AGENTS.md digest,
// the USER.md cap, the 64-char rule, clamping) exactly as OpenClaw runs it.
if (opt.batch) {
  const buildBootstrapContextFiles = await exported("buildBootstrapContextFiles", "bootstrap-");
  const cases = JSON.parse(fs.readFileSync(opt.batch, "utf8"));
  const res = cases.map((c) => {
    const w = [];
    const files = c.files.map((f) => ({ missing: false, path: `/ws/${f.name}`, ...f }));
    const r = buildBootstrapContextFiles(files, { maxChars: c.maxChars, totalMaxChars: c.totalMaxChars, warn: (m) => w.push(m) });
    return { files: r, warnings: w };
  });
  await new Promise((r) => process.stdout.write(JSON.stringify(res) + "\n", r));
  process.exit(0);
}

// ---------- loading OpenClaw's functions once ----------
const pkgJson = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8"));
const readCurrentConfigForResolution = await exported("readCurrentConfigForResolution", "io.runtime-");
const resolveConfigPath = await exported("resolveConfigPath", "paths-");
const resolveAgentWorkspaceDir = await exported("resolveAgentWorkspaceDir", "agent-scope-config-");
const resolveDefaultAgentId = await exported("resolveDefaultAgentId", "agent-scope-config-");
const resolveBootstrapMaxChars = await exported("resolveBootstrapMaxChars", "bootstrap-");
const resolveBootstrapTotalMaxChars = await exported("resolveBootstrapTotalMaxChars", "bootstrap-");
const resolveBootstrapFilesForPreparation = await exported("resolveBootstrapFilesForPreparation", "bootstrap-files-");
const buildBootstrapContextForFiles = await exported("buildBootstrapContextForFiles", "bootstrap-files-");
const resolveWorkspaceBootstrapStatus = await exported("resolveWorkspaceBootstrapStatus", "workspace-");

const readConfigFileSnapshot = await exported("readConfigFileSnapshot", "io.runtime-");
const tryResolveAmbientOwnerAgentId = await exported("tryResolveAmbientOwnerAgentId", "agent-scope-config-");
const buildConfiguredAgentSystemPrompt = await exported("buildConfiguredAgentSystemPrompt", "system-prompt-params-");
const { SYSTEM_PROMPT_CACHE_BOUNDARY } = await importFromDist("@openclaw/ai/internal/shared").catch(() => ({}));
const buildSessionStartupContextPrelude = await fromRegion("buildSessionStartupContextPrelude", "get-reply-");
const shouldApplyStartupContext = await fromRegion("shouldApplyStartupContext", "get-reply-");

// ---------- one inspection: what OpenClaw injects from one workspace ----------
async function inspect(opt, pos) {
  const warnings = [];
  const warn = (m) => warnings.push(String(m));
  const configPath = resolveConfigPath();
  let config = {};
  let configDiagnostics = null;
  if (!opt["no-config"]) {
    const origWarn = console.warn, origLog = console.log, origErr = console.error;
    console.warn = console.log = console.error = (...a) => warn(a.join(" "));  // keep stdout pure JSON
    try {
      const r = readCurrentConfigForResolution({});
      config = r.config; configDiagnostics = r.configDiagnostics;
      if (configDiagnostics) {
        // why: OpenClaw's validating snapshot reader (read-only: observe false, no recovery)
        const snap = await readConfigFileSnapshot({ observe: false });
        configDiagnostics = { ...configDiagnostics, exists: snap.exists, valid: snap.valid, issues: snap.issues };
      }
    } finally { console.warn = origWarn; console.log = origLog; console.error = origErr; }
  }
  // Default agent: the configured system/ambient owner (agents.defaults.systemAgent.agentId, which the loader
  // derives from a legacy `default: true` entry), else the sole agent, else the legacy default; else "main".
  let agentId = opt.agent;
  if (!agentId) {
    try { agentId = tryResolveAmbientOwnerAgentId?.(config) ?? resolveDefaultAgentId(config); }
    catch (e) { agentId = "main"; warn(`default agent: ${e.message}`); }
  }
  const workspace = path.resolve(pos[0] || resolveAgentWorkspaceDir(config, agentId));

  const params = { workspaceDir: workspace, config, agentId, warn,
    ...(opt["session-key"] ? { sessionKey: opt["session-key"] } : {}),
    ...(opt["chat-type"] ? { chatType: opt["chat-type"] } : {}) };
  const bootstrapFiles = await resolveBootstrapFilesForPreparation(params);
  const contextFiles = buildBootstrapContextForFiles(bootstrapFiles, params);

  const byPath = new Map(contextFiles.map((f) => [f.path, f]));
  const files = bootstrapFiles.filter((f) => byPath.has(f.path)).map((f) => {
    const injected = byPath.get(f.path).content;
    const raw = f.content ?? "";
    return { name: f.name, path: f.path, missing: !!f.missing, raw_length: f.missing ? 0 : raw.length,
      trimmed_length: f.missing ? 0 : raw.trimEnd().length, injected, injected_length: injected.length,
      truncated: !f.missing && injected !== raw.trimEnd() };
  });
  const out = {
    version: pkgJson.version,
    config_path: configPath,
    config_loaded: !opt["no-config"] && !configDiagnostics,
    config_diagnostics: configDiagnostics,
    config: { agents_defaults: {
      workspace: config?.agents?.defaults?.workspace, bootstrapMaxChars: config?.agents?.defaults?.bootstrapMaxChars,
      bootstrapTotalMaxChars: config?.agents?.defaults?.bootstrapTotalMaxChars,
      userTimezone: config?.agents?.defaults?.userTimezone, startupContext: config?.agents?.defaults?.startupContext,
      contextInjection: config?.agents?.defaults?.contextInjection } },
    workspace, agent_id: agentId,
    limits: { maxChars: resolveBootstrapMaxChars(config, agentId), totalMaxChars: resolveBootstrapTotalMaxChars(config, agentId) },
    loaded_files: bootstrapFiles.map((f) => ({ name: f.name, path: f.path, missing: !!f.missing,
      raw_length: f.missing ? 0 : (f.content ?? "").length })),
    files,
  };

  // ---------- the system prompt's Project Context ----------
  if (!opt["no-prompt"]) {
    try {
      const prompt = buildConfiguredAgentSystemPrompt({ config, agentId, workspaceDir: workspace, contextFiles, toolNames: [] });
      const start = prompt.indexOf("# Project Context\n");
      const boundary = SYSTEM_PROMPT_CACHE_BOUNDARY ?? "\n<!-- OPENCLAW_CACHE_BOUNDARY -->\n";
      if (start >= 0) {
        const end = prompt.indexOf(boundary, start);
        const section = prompt.slice(start, end < 0 ? undefined : end);
        out.project_context = section;
        // files in prompt order: "## <path>" headers, in OpenClaw's sort; walk them in order
        const headers = [];
        let at = 0;
        // candidates are the injected paths; take them in the order they occur
        const paths = contextFiles.map((f) => f.path);
        for (;;) {
          let best = null;
          for (const p of paths) {
            if (headers.some((h) => h.path === p)) continue;
            const i = section.indexOf(`\n## ${p}\n`, at);
            if (i >= 0 && (best === null || i < best.i)) best = { i, p };
          }
          if (!best) break;
          headers.push({ path: best.p, i: best.i });
          at = best.i + 1;
        }
        out.prompt_order = headers.map((h) => h.path);
        out.prompt_files = {};
        headers.forEach((h, k) => {
          const from = h.i + `\n## ${h.path}\n`.length;
          const to = k + 1 < headers.length ? headers[k + 1].i : section.length;
          // the last file is followed by "\n" + boundary (which itself starts with "\n"): drop that one "\n"
          const text = section.slice(from, to);
          out.prompt_files[h.path] = k + 1 < headers.length ? text : text.replace(/\n$/, "");
        });
      } else out.project_context = null;
    } catch (e) {
      out.prompt_error = String(e?.stack || e);
    }
  }

  // ---------- the /new or /reset startup prelude ----------
  try {
    let nowMs = Date.now();
    if (opt.now) nowMs = /^\d+$/.test(opt.now) ? Number(opt.now) : Date.parse(opt.now);
    const action = opt.action || "new";
    let status = null;
    try { status = await resolveWorkspaceBootstrapStatus(workspace, { readOnly: true }); } catch (e) { warn(`bootstrap status: ${e.message}`); }
    const applies = shouldApplyStartupContext({ cfg: config, action }) && status !== "pending";
    out.prelude = { action, now: new Date(nowMs).toISOString(), bootstrap_status: status, applies,
      text: applies ? await buildSessionStartupContextPrelude({ workspaceDir: workspace, cfg: config, nowMs }) : null };
  } catch (e) {
    out.prelude = { error: String(e?.stack || e) };
  }
  out.warnings = warnings;
  return out;
}

// ---------- serve mode: many inspections in one process (OpenClaw's dist is imported once) ----------
// --serve: each stdin line is {"args": [...], "env": {NAME: value or null}}; each answer is one stdout line
// "@@oracle@@" + JSON ({"ok": out} or {"error": text}). Other output OpenClaw prints is not on such a line.
if (opt.serve) {
  const base = { ...process.env };
  const readline = await import("node:readline");
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let answer;
    try {
      const req = JSON.parse(line);
      for (const k of Object.keys(process.env)) if (!(k in base)) delete process.env[k];
      Object.assign(process.env, base);
      for (const [k, v] of Object.entries(req.env || {})) { if (v === null) delete process.env[k]; else process.env[k] = v; }
      const o = {}; const p = [];
      const a = req.args || [];
      for (let i = 0; i < a.length; i++) {
        if (a[i] === "--no-config" || a[i] === "--no-prompt") o[a[i].slice(2)] = true;
        else if (a[i].startsWith("--")) o[a[i].slice(2)] = a[++i];
        else p.push(a[i]);
      }
      if (o.config) process.env.OPENCLAW_CONFIG_PATH = path.resolve(o.config);
      answer = { ok: await inspect(o, p) };
    } catch (e) { answer = { error: String(e?.stack || e) }; }
    await new Promise((r) => process.stdout.write("@@oracle@@" + JSON.stringify(answer) + "\n", r));
  }
  process.exit(0);
}

const out = await inspect(opt, pos);
await new Promise((r) => process.stdout.write(JSON.stringify(out, null, 1) + "\n", r));  // flush pipes
process.exit(0);
