#!/usr/bin/env python3
"""Side-by-side table of one run of conformance/bench/run.

Reads RUN/jmh.json (JMH, -rf json) and RUN/criterion/**/new/{benchmark,
estimates}.json (criterion, CRITERION_HOME=RUN/criterion) and prints
Markdown tables: Java time, Rust time, and Java time / Rust time.

Error bars as each tool reports them: JMH's score error is the half-width of
its 99.9% confidence interval (Student's t over the measurement iterations);
criterion's bracket is the 95% confidence interval of its estimate (the
slope of the linear sampling, or the mean where criterion has no slope).
"""
import json
import math
import pathlib
import sys


def fmt(ns):
    """A time in ns, printed with 3 significant digits in a fitting unit."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0)):
        if ns >= scale or unit == "ns":
            v = ns / scale
            digits = 2 if v < 10 else 1 if v < 100 else 0
            return f"{v:.{digits}f} {unit}", scale, digits
    raise AssertionError


def java_cell(r):
    if r is None:
        return "n/a"
    text, scale, digits = fmt(r["score"])
    err = r["error"]
    if err is None or math.isnan(err):
        return text
    return f"{text} ± {err / scale:.{digits}f}"


def rust_cell(r):
    if r is None:
        return "n/a"
    text, scale, digits = fmt(r["est"])
    return f"{text} [{r['lo'] / scale:.{digits}f}, {r['hi'] / scale:.{digits}f}]"


def ratio(j, r):
    if j is None or r is None:
        return "n/a"
    x = j["score"] / r["est"]
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:,.0f}"


def load_jmh(run):
    out = {}
    for b in json.loads((run / "jmh.json").read_text()):
        if b["primaryMetric"]["scoreUnit"] != "ns/op":
            raise SystemExit(f"unexpected unit {b['primaryMetric']['scoreUnit']}")
        name = b["benchmark"].rsplit(".", 2)[-2]
        key = (name,) + tuple(sorted(b.get("params", {}).items()))
        err = b["primaryMetric"]["scoreError"]
        out[key] = {
            "score": b["primaryMetric"]["score"],
            "error": None if err in (None, "NaN") else float(err),
            "cnt": len(b["primaryMetric"]["rawData"][0]),
        }
    return out


def load_criterion(run):
    out = {}
    for bj in (run / "criterion").glob("**/new/benchmark.json"):
        meta = json.loads(bj.read_text())
        est = json.loads((bj.parent / "estimates.json").read_text())
        e = est.get("slope") or est["mean"]
        out[meta["full_id"]] = {
            "est": e["point_estimate"],
            "lo": e["confidence_interval"]["lower_bound"],
            "hi": e["confidence_interval"]["upper_bound"],
        }
    return out


def j(jmh, name, **params):
    return jmh.get((name,) + tuple(sorted((k, str(v)) for k, v in params.items())))


def main():
    run = pathlib.Path(sys.argv[1])
    jmh = load_jmh(run)
    cr = load_criterion(run)
    print("### Manager: one batch of N calls over M tools at turn length L\n")
    print("| N | M | L | Java `executeToolCalls` | Rust recount (2.0.1's algorithm) | Java ÷ recount "
          "| Rust incremental (this project) | Java ÷ incremental |")
    print("|---|---|---|---|---|---|---|---|")
    for n in (1, 10, 150):
        for m in (1, 100):
            for l in (0, 100, 10_000):
                jv = j(jmh, "ManagerBench", n=n, m=m, l=l)
                rc = cr.get(f"manager/recount/N={n}/M={m}/L={l}")
                inc = cr.get(f"manager/incremental/N={n}/M={m}/L={l}")
                print(f"| {n} | {m} | {l:,} | {java_cell(jv)} | {rust_cell(rc)} | {ratio(jv, rc)} "
                      f"| {rust_cell(inc)} | {ratio(jv, inc)} |")
    print("\n### Conversion of one tool response (upstream)\n")
    print("| input | Java `messageToGeminiParts` | Rust `parse_json_to_map` (upstream-lenient) | Java ÷ Rust |")
    print("|---|---|---|---|")
    for name in ("object-1KB", "nested-100KB", "text-200B", "object-10MB"):
        jv = j(jmh, "ConvertBench", input=name)
        rv = cr.get(f"convert/upstream-lenient/{name}")
        print(f"| {name} | {java_cell(jv)} | {rust_cell(rv)} | {ratio(jv, rv)} |")
    print("\n### Every request of an R-round turn, each rebuilt from its whole history\n")
    print("| R | Java `createGeminiRequest` ×R | Rust `build_request` ×R, upstream | Java ÷ Rust "
          "| Rust `build_request` ×R, all fixes | Java ÷ Rust |")
    print("|---|---|---|---|---|---|")
    for r in (1, 10, 50):
        jv = j(jmh, "RequestBench", rounds=r)
        up = cr.get(f"tool_loop/reconvert-every-round-upstream/{r}")
        fx = cr.get(f"tool_loop/reconvert-every-round/{r}")
        print(f"| {r} | {java_cell(jv)} | {rust_cell(up)} | {ratio(jv, up)} | {rust_cell(fx)} | {ratio(jv, fx)} |")


if __name__ == "__main__":
    main()
