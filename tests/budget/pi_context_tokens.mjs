// Test helper: asks Pi's own code for the context tokens of session files.
//
// stdin: one JSON request per line, {"path": "<session.jsonl>"} or {"jsonl": "<text>"}, with an
// optional "leafId".
// stdout: one JSON answer per line, {"tokens", "usageTokens", "trailingTokens", "lastUsageIndex"}
// as Pi's estimateProjectedContextTokens(sessionManager.buildSessionProjection(), getBranch())
// returns them, or {"error": "..."}. The file is parsed in memory (never rewritten).
// PI_PKG_DIR: Pi's package folder (default: ~/.cache/pi-oracle/.../pi-coding-agent).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

const pkg =
	process.env.PI_PKG_DIR ??
	path.join(os.homedir(), ".cache/pi-oracle/node_modules/@earendil-works/pi-coding-agent");
const load = (rel) => import(pathToFileURL(path.join(pkg, "dist", rel)).href);
const session = await load("core/session-manager.js");
const compaction = await load("core/compaction/index.js");

function answer(request) {
	const text = request.jsonl ?? fs.readFileSync(request.path, "utf-8");
	const entries = session.parseSessionEntries(text);
	session.migrateSessionEntries(entries);
	const body = entries.filter((entry) => entry.type !== "session");
	const manager = session.SessionManager.inMemory("/p", undefined, body);
	if (request.leafId) manager.branch(request.leafId);
	const estimate = compaction.estimateProjectedContextTokens(manager.buildSessionProjection(), manager.getBranch());
	return estimate;
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
	if (!line.trim()) continue;
	let out;
	try {
		out = answer(JSON.parse(line));
	} catch (error) {
		out = { error: String(error?.message ?? error) };
	}
	process.stdout.write(JSON.stringify(out) + "\n");
}
