// The page's side: the form as check's arguments, the judge's module
// (judge.wasm, loaded once) as the command, its output shown as printed.
import { load } from "./judge.js";

const $ = (id) => document.getElementById(id);
const started = performance.now();

function args() {
  const a = [];
  for (const id of ["memory", "memory-window", "history", "provider", "processor", "rethrow", "tools"]) {
    a.push(`--${id}`, $(id).value.trim());
  }
  // Left empty, check answers for what the fix library installs (its
  // switches in the file), else upstream: as the command without --fixes.
  if ($("fixes").value.trim()) a.push("--fixes", $("fixes").value.trim());
  if ($("profile").value.trim()) a.push("--profile", $("profile").value.trim());
  for (const id of ["streaming", "all-sets", "strict-keys"]) {
    if ($(id).checked) a.push(`--${id}`);
  }
  for (const line of $("accepted").value.split("\n").map((l) => l.trim()).filter((l) => l)) {
    a.push("--accept-finding", line);
  }
  return a;
}

function fileName() {
  return $("format").value === "yaml" ? "application.yml" : "application.properties";
}

// A shell word as a reader would type it.
const word = (w) => (/^[\w.,=+:@\/-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

function show(out) {
  const verdict = $("verdict");
  const words = { 0: ["safe", "exit 0: safe under the set asked for"], 1: ["unsafe", "exit 1: not safe"], 2: ["none", "exit 2: no verdict"] };
  const [cls, text] = words[out.exit] ?? ["none", `exit ${out.exit}`];
  verdict.className = cls;
  verdict.textContent = text;
  $("answer").textContent = out.stdout + out.stderr;
  const link = $("sarif");
  if (link.href) URL.revokeObjectURL(link.href);
  if (out.sarif) {
    const blob = new Blob([JSON.stringify(out.sarif, null, 2) + "\n"], { type: "application/sarif+json" });
    link.href = URL.createObjectURL(blob);
    link.hidden = false;
  } else {
    link.removeAttribute("href");
    link.hidden = true;
  }
}

async function main() {
  const bytes = await (await fetch("judge.wasm")).arrayBuffer();
  const judge = await load(bytes);
  // For the page's test and its budget (BENCHMARKS.md).
  window.judgeLoadedMs = performance.now() - started;
  $("status").textContent = "";
  $("check").disabled = false;
  $("form").addEventListener("submit", (e) => {
    e.preventDefault();
    const a = args();
    $("command").textContent = ["toolcall-model", "check", fileName(), ...a].map(word).join(" ");
    const input = JSON.stringify({ files: [{ name: fileName(), text: $("file").value }], args: a });
    const answer = JSON.parse(judge.check(input));
    if (answer.error) {
      show({ exit: 2, stdout: "", stderr: `error: ${answer.error}\n`, sarif: null });
    } else {
      show(answer);
    }
  });
}

main().catch((e) => {
  $("status").textContent = `the judge did not load: ${e}`;
});
