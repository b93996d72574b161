// Runs the judge's WebAssembly module under node on one input a line:
//   node judge/wasm/run.mjs MODULE.wasm judge|check < inputs > answers
// Each line of standard input is one JSON input; each line of standard
// output is the module's answer (compact JSON: one line). The
// differential test (judge/tests/differential.rs) drives it.
import { readFileSync } from "node:fs";
import { load } from "../../web/judge.js";

const [modulePath, exportName] = process.argv.slice(2);
if (!modulePath || !["judge", "check"].includes(exportName)) {
  console.error("usage: node run.mjs MODULE.wasm judge|check < inputs");
  process.exit(2);
}
const judge = await load(readFileSync(modulePath));
const inputs = readFileSync(0, "utf8").split("\n").filter((l) => l.length > 0);
const out = inputs.map((line) => judge[exportName](line));
process.stdout.write(out.map((a) => a + "\n").join(""));
