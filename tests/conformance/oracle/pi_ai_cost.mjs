// Our glue (not Pi's code): answers cost questions with pi-ai's own compiled functions, in the
// Pi oracle's envelope, one JSON request per stdin line -> one answer per line.
//   calculate_cost    {cost: model.cost, usage}            -> calculateCost(model, usage)
//   prompt_cache_ttl  {promptCache, cacheRetention?, env?}  -> getPromptCacheTtlMs(model, options)
// pi-ai is found under $PI_AI_DIR, else beside $PI_PKG_DIR, else in ~/.cache/pi-oracle.
import { createInterface } from "node:readline";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, dirname } from "node:path";
import { pathToFileURL } from "node:url";

const piAiDir =
  process.env.PI_AI_DIR ||
  (process.env.PI_PKG_DIR
    ? join(dirname(process.env.PI_PKG_DIR), "pi-ai")
    : join(homedir(), ".cache", "pi-oracle", "node_modules", "@earendil-works", "pi-ai"));
const version = JSON.parse(readFileSync(join(piAiDir, "package.json"), "utf8")).version;
const models = await import(pathToFileURL(join(piAiDir, "dist", "models.js")).href);
// getPromptCacheTtlMs is pi-ai's since Pi 1.5.1; before, the same function was the coding agent's.
const agentDir = process.env.PI_PKG_DIR || join(dirname(piAiDir), "pi-coding-agent");
const warmingModule = existsSync(join(piAiDir, "dist", "cache-warming.js"))
  ? join(piAiDir, "dist", "cache-warming.js")
  : join(agentDir, "dist", "core", "cache-warmer.js");
const warming = await import(pathToFileURL(warmingModule).href);

function answer(request) {
  const op = request.op;
  if (op === "calculate_cost") {
    const usage = structuredClone(request.usage);
    usage.cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    const cost = models.calculateCost({ cost: request.cost }, usage);
    return { cost: { input: cost.input, output: cost.output, cacheRead: cost.cacheRead, cacheWrite: cost.cacheWrite, total: cost.total } };
  }
  if (op === "prompt_cache_ttl") {
    const options = { env: request.env ?? {} };
    if (request.cacheRetention !== undefined) options.cacheRetention = request.cacheRetention;
    const ttl = warming.getPromptCacheTtlMs({ promptCache: request.promptCache }, options);
    return { ttlMs: ttl === undefined ? null : ttl };
  }
  throw new Error(`unknown op ${op}`);
}

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  try {
    console.log(JSON.stringify({ ok: true, op: request.op, piAiVersion: version, result: answer(request) }));
  } catch (error) {
    console.log(JSON.stringify({ ok: false, op: request.op, error: String(error?.message ?? error) }));
  }
}
