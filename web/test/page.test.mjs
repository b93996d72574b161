// The judge's page in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core, which downloads no browser), served from a
// folder web/site assembled, by a static server on loopback:
//   node web/test/page.test.mjs SITE [TOOLCALL_MODEL_BIN]
// Each case fills the form as a team would and compares what the page
// shows with what the native `toolcall-model check` prints for the same
// file and flags, byte for byte: the README's setup (and the README's own
// text of the answer), a safe setup, a file Spring refuses. Prints the
// page's load and first-answer times (BENCHMARKS.md). Exit 1 on a failure.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { chromium } from "playwright-core";

const root = resolve(new URL("../..", import.meta.url).pathname);
const site = resolve(process.argv[2] ?? join(root, "target/site"));
const bin = resolve(process.argv[3] ?? join(root, "target/release/toolcall-model"));
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
for (const [what, path] of [["the site (web/site SITE)", join(site, "judge.wasm")], ["the command (cargo build --release)", bin], ["chromium", chromiumPath]]) {
  if (!existsSync(path)) {
    console.error(`FAIL: ${what} is missing: ${path}`);
    process.exit(1);
  }
}

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
const server = createServer((req, res) => {
  const name = new URL(req.url, "http://localhost").pathname.replace(/^\/$/, "/index.html");
  const path = join(site, name);
  if (!path.startsWith(site) || !existsSync(path) || !types[extname(path)]) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": types[extname(path)] }).end(readFileSync(path));
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${server.address().port}/`;

// The native command on the same file and flags, from a folder of its own
// so that it names the file as the page does.
function native(name, text, args) {
  const dir = mkdtempSync(join(tmpdir(), "judge-page-"));
  writeFileSync(join(dir, name), text);
  const sarif = join(dir, "check.sarif");
  try {
    const stdout = execFileSync(bin, ["check", name, ...args, "--sarif", sarif], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { exit: 0, stdout, stderr: "", sarif: JSON.parse(readFileSync(sarif, "utf8")) };
  } catch (e) {
    if (typeof e.status !== "number") throw e;
    const log = existsSync(sarif) ? JSON.parse(readFileSync(sarif, "utf8")) : null;
    return { exit: e.status, stdout: e.stdout, stderr: e.stderr, sarif: log };
  }
}

// The README's five-line file and its answer, as README.md shows them.
function readmeSetup() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const at = readme.indexOf("## Your setup");
  const blocks = [...readme.slice(at).matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]);
  return { file: blocks[0], answer: blocks[1] };
}

const failures = [];
function expect(name, ok, detail) {
  console.log(`${ok ? "ok" : "FAIL"}: ${name}`);
  if (!ok) failures.push(`${name}\n${detail}`);
}

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const context = await browser.newContext({ acceptDownloads: true });
const page = await context.newPage();
page.on("pageerror", (e) => failures.push(`page error: ${e}`));

const t0 = Date.now();
await page.goto(url);
await page.waitForFunction(() => window.judgeLoadedMs !== undefined);
const loadMs = Date.now() - t0;
const moduleMs = await page.evaluate(() => window.judgeLoadedMs);

// Fills the form, checks, and returns what the page shows and the time to it.
async function check(text, { format = "properties", memory = "none", tools = "mixed", provider = "gemini" } = {}) {
  await page.fill("#file", text);
  await page.selectOption("#format", format);
  await page.selectOption("#memory", memory);
  await page.selectOption("#provider", provider);
  await page.fill("#tools", tools);
  await page.evaluate(() => { document.getElementById("answer").textContent = ""; });
  const t = Date.now();
  await page.click("#check");
  await page.waitForFunction(() => document.getElementById("answer").textContent !== "");
  const ms = Date.now() - t;
  const shown = await page.textContent("#answer");
  const verdict = await page.textContent("#verdict");
  let sarif = null;
  if (await page.isVisible("#sarif")) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#sarif")]);
    sarif = JSON.parse(readFileSync(await download.path(), "utf8"));
  }
  return { shown, verdict, sarif, ms };
}

const args = (o) => ["--memory", o.memory ?? "none", "--provider", o.provider ?? "gemini", "--tools", o.tools ?? "mixed"];

// 1. The README's setup, memory inside: the README's verdict.
const readme = readmeSetup();
const first = await check(readme.file, { memory: "inside" });
const n1 = native("application.properties", readme.file, args({ memory: "inside" }));
expect("the README's setup: the command's answer", first.shown === n1.stdout + n1.stderr, `page:\n${first.shown}\ncommand:\n${n1.stdout}`);
expect("the README's setup: exit 1, as the README says", n1.exit === 1 && first.verdict.startsWith("exit 1"), first.verdict);
const readmeAnswer = readme.answer.replace(/^\S*application\.properties:/, "application.properties:");
expect("the README's setup: the README's text", first.shown.trimEnd() === readmeAnswer.trimEnd(), `page:\n${first.shown}\nREADME:\n${readmeAnswer}`);
expect("the README's setup: the command's SARIF log", first.sarif !== null && JSON.stringify(first.sarif) === JSON.stringify(n1.sarif), JSON.stringify(first.sarif)?.slice(0, 400));

// 2. A safe setup: tools that return JSON, a provider that takes messages as they are.
const safeFile = "spring:\n  ai:\n    tools:\n      limits:\n        max-calls-per-tool-default: 3\n";
const safe = await check(safeFile, { format: "yaml", tools: "json", provider: "none" });
const n2 = native("application.yml", safeFile, args({ tools: "json", provider: "none" }));
expect("a safe setup: safe", n2.exit === 0 && safe.verdict.startsWith("exit 0"), safe.verdict);
expect("a safe setup: the command's answer", safe.shown === n2.stdout, `page:\n${safe.shown}\ncommand:\n${n2.stdout}`);

// 3. A file Spring refuses: the command's error.
const broken = "spring.ai.tools.limits.on-limit-exceeded=SOMETIMES\n";
const refused = await check(broken);
const n3 = native("application.properties", broken, args({}));
expect("a broken file: no verdict", n3.exit === 2 && refused.verdict.startsWith("exit 2"), refused.verdict);
expect("a broken file: the command's error", refused.shown === n3.stdout + n3.stderr, `page:\n${refused.shown}\ncommand:\n${n3.stderr}`);
expect("a broken file: the command's SARIF log", refused.sarif !== null && JSON.stringify(refused.sarif) === JSON.stringify(n3.sarif), JSON.stringify(refused.sarif)?.slice(0, 400));

await browser.close();
server.close();
console.log(`page load to judge ready: ${loadMs} ms (module fetched and instantiated ${moduleMs.toFixed(0)} ms after the script started)`);
console.log(`first answer (README setup, memory inside): ${first.ms} ms; safe setup: ${safe.ms} ms; broken file: ${refused.ms} ms`);
if (failures.length) {
  console.error(`\n${failures.length} failed:\n\n${failures.join("\n\n")}`);
  process.exit(1);
}
