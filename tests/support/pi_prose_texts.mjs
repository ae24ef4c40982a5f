// Print, as one JSON object, the long prose an installed Pi package writes into a model's prompt:
// its default system prompt's built-in sections (preamble, tool snippets, rules, docs), the skills
// introduction, its tools' descriptions, and its summary instructions (compaction, branch summary).
//
// Usage: node pi_prose_texts.mjs <Pi package folder>
//
// The texts are taken from Pi's own code at run time, so pi-context's repository never holds them:
// tests/test_pi_prose.py turns them into sentences and fails when a committed file carries one.
// Everything is asked of Pi's exported functions where one exists; the summary prompts are module
// constants Pi does not export, so they are read from the source as the template literals of every
// `const <NAME>_PROMPT = ` in Pi's compaction modules. Text Pi interpolates (paths) is cut out.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = process.argv[2];
if (!pkg) {
	process.stderr.write("usage: node pi_prose_texts.mjs <Pi package folder>\n");
	process.exit(2);
}
const load = (relative) => import(pathToFileURL(join(pkg, "dist", relative)).href);

const { buildSystemPromptSections } = await load("core/system-prompt.js");
const { formatSkillsForPrompt } = await load("core/skills.js");
const { getDocsPath, getExamplesPath, getReadmePath } = await load("config.js");
const tools = await load("core/tools/index.js");
const { SUMMARIZATION_SYSTEM_PROMPT } = await load("core/compaction/utils.js");

const CUT = "\u0000"; // where Pi interpolated a value: the texts are split there
const cwd = "/pi-prose-probe/cwd";
const interpolated = [getReadmePath(), getDocsPath(), getExamplesPath(), cwd].sort((a, b) => b.length - a.length);
const withoutValues = (text) => interpolated.reduce((out, value) => out.split(value).join(CUT), text);

// Every tool Pi has, with its own snippet and guidelines; each subset of reader tools Pi words
// differently (buildRules picks its file-operation rule from the tools present).
const names = [...tools.allToolNames];
const definitions = Object.fromEntries(names.map((name) => [name, tools.createToolDefinition(name, cwd)]));
const snippets = {};
const guidelines = {};
for (const [name, definition] of Object.entries(definitions)) {
	if (definition.promptSnippet) snippets[name] = definition.promptSnippet;
	if (definition.promptGuidelines) guidelines[name] = [...definition.promptGuidelines];
}
const toolSets = [names, ["read", "bash", "edit", "write"], ["bash"], ["powershell"], ["bash", "powershell"]];
const systemPrompt = new Set();
for (const selectedTools of toolSets) {
	const sections = buildSystemPromptSections({
		selectedTools,
		toolSnippets: snippets,
		toolGuidelines: guidelines,
		cwd,
	});
	for (const name of ["preamble", "tools", "rules", "docs"]) {
		if (sections[name]) systemPrompt.add(withoutValues(sections[name]));
	}
}

const skill = { name: "probe", description: CUT, filePath: `${cwd}/SKILL.md`, disableModelInvocation: false };
const skillsIntro = new Set(
	["read", "bash", "indirect"].map((reader) => formatSkillsForPrompt([skill], reader).split("<available_skills>")[0]),
);

const toolDescriptions = new Set();
const collectDescriptions = (value) => {
	if (Array.isArray(value)) value.forEach(collectDescriptions);
	else if (value && typeof value === "object") {
		for (const [key, item] of Object.entries(value)) {
			if (key === "description" && typeof item === "string") toolDescriptions.add(item);
			else collectDescriptions(item);
		}
	}
};
for (const definition of Object.values(definitions)) {
	toolDescriptions.add(definition.description);
	collectDescriptions(definition.parameters);
}

const summaryInstructions = new Set([SUMMARIZATION_SYSTEM_PROMPT]);
const compactionDir = join(pkg, "dist", "core", "compaction");
for (const file of readdirSync(compactionDir).filter((name) => name.endsWith(".js"))) {
	const source = readFileSync(join(compactionDir, file), "utf8");
	for (const match of source.matchAll(/const [A-Z_]+_PROMPT = `((?:[^`\\]|\\.)*)`/g)) {
		summaryInstructions.add(match[1].replace(/\$\{[^}]*\}/g, CUT));
	}
}

// One system message as Pi records it for the coding tools and a skill, for checking a scrub on Pi's own text.
const coding = ["read", "bash", "edit", "write"];
const sample = {
	role: "system",
	content: "",
	sections: buildSystemPromptSections({
		selectedTools: coding,
		toolSnippets: snippets,
		toolGuidelines: guidelines,
		cwd,
		skills: [{ ...skill, description: "Probe the prose scrubber." }],
	}),
	timestamp: 0,
	toolsAdded: coding.map((name) => ({
		name,
		description: definitions[name].description,
		parameters: JSON.parse(JSON.stringify(definitions[name].parameters)),
	})),
};

process.stdout.write(
	JSON.stringify({
		version: JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version,
		systemPrompt: [...systemPrompt],
		skillsIntroduction: [...skillsIntro],
		toolDescriptions: [...toolDescriptions],
		summaryInstructions: [...summaryInstructions],
		sample,
	}),
);
