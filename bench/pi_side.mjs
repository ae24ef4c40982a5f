#!/usr/bin/env node
// Pi's own code on the benchmarks' inputs, timed inside Node: the other side of bench_real_shapes.py.
//
// It imports the published Pi package's compiled dist/ modules (folder from PI_PKG_DIR, default
// ~/.cache/pi-oracle/node_modules/@earendil-works/pi-coding-agent), the way the shared oracle
// does, calls one of Pi's functions RUNS times and prints one JSON line: the wall time of each run
// in milliseconds (and the CPU time of all of Node's threads), a summary of Pi's answer (to check that both sides did the same work), and the
// process's peak resident memory.
//
//   node pi_side.mjs load-skills DIR RUNS
//       loadSkillsFromDir({dir: DIR, source: "project"}) (Pi's walk, frontmatter, validation)
//   node pi_side.mjs prepare-compaction FILE RUNS KEEP_RECENT_TOKENS
//       what the oracle's prepare_compaction does with jsonlFile: readFileSync, parseSessionEntries,
//       migrateSessionEntries, prepareCompaction (header dropped)
//   node pi_side.mjs open-and-prepare FILE RUNS KEEP_RECENT_TOKENS
//       what Pi's /compact does: SessionManager.open(FILE), getBranch(), prepareCompaction

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG_DIR = path.resolve(
	process.env.PI_PKG_DIR ||
		path.join(os.homedir(), ".cache", "pi-oracle", "node_modules", "@earendil-works", "pi-coding-agent"),
);

async function imp(rel) {
	return import(pathToFileURL(path.join(PKG_DIR, "dist", rel)).href);
}

function timed(runs, work) {
	const times = [];
	const cpu = [];
	let summary = null;
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		const cpuStart = process.cpuUsage();
		summary = work();
		const used = process.cpuUsage(cpuStart);
		times.push(performance.now() - start);
		cpu.push((used.user + used.system) / 1000);
	}
	return { times, cpu, summary };
}

function prepSummary(prep) {
	if (!prep) return null;
	return {
		firstKeptEntryId: prep.firstKeptEntryId,
		tokensBefore: prep.tokensBefore,
		messagesToSummarize: prep.messagesToSummarize.length,
		turnPrefixMessages: prep.turnPrefixMessages.length,
	};
}

const [op, target, runsText, keepText] = process.argv.slice(2);
const runs = Number(runsText || "1");
const version = JSON.parse(fs.readFileSync(path.join(PKG_DIR, "package.json"), "utf-8")).version;
let result;
if (op === "load-skills") {
	const skills = await imp("core/skills.js");
	result = timed(runs, () => {
		const loaded = skills.loadSkillsFromDir({ dir: target, source: "project" });
		return { skills: loaded.skills.length, diagnostics: loaded.diagnostics.length };
	});
} else if (op === "prepare-compaction" || op === "open-and-prepare") {
	const session = await imp("core/session-manager.js");
	const compaction = await imp("core/compaction/compaction.js");
	const settings = { ...compaction.DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: Number(keepText || "20000") };
	result = timed(runs, () => {
		if (op === "open-and-prepare") {
			const manager = session.SessionManager.open(target);
			return prepSummary(compaction.prepareCompaction(manager.getBranch(), settings));
		}
		const fileEntries = session.parseSessionEntries(fs.readFileSync(target, "utf-8"));
		if (fileEntries.find((e) => e?.type === "session")) session.migrateSessionEntries(fileEntries);
		const entries = fileEntries.filter((e) => e?.type !== "session");
		return prepSummary(compaction.prepareCompaction(entries, settings));
	});
} else {
	console.error(`unknown op ${op}`);
	process.exit(2);
}
result.piVersion = version;
result.peakMb = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify(result));
