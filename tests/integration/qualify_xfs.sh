#!/bin/bash
# SPDX-License-Identifier: MIT
# Description: awr qualify on scratch XFS: --quick -o json passes with a valid JSON report and a
# verdict whose scope is the filesystem's software path only (a loop device below), and
# --require-hardware makes that a FAIL with what to do; --crash runs the crash check, an in-use
# device is refused, a raw loop device (no atomic support) fails discovery, each FAIL with what to
# do, and skips the write checks.
#
#   qualify_xfs.sh AWR   (run under with-scratch-xfs.sh)
set -u

awr=$1
dir=${AWR_SCRATCH_DIR:?run under with-scratch-xfs.sh}
dev=${AWR_SCRATCH_DEV:?run under with-scratch-xfs.sh}
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed (reads the JSON)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/awr-qualify-test.XXXXXX") || exit 2
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 2

# --quick -o json on the scratch filesystem: exit 0, valid JSON, every check PASS or SKIP
start=$(date +%s)
"$awr" qualify "$dir" --quick -o json --report "$work/report.json" >"$work/out.json"
rc=$?
took=$(($(date +%s) - start))
[ "$rc" = 0 ] || { cat "$work/out.json"; fail "qualify --quick exited $rc"; }
python3 - "$work/out.json" "$work/report.json" "$dev" <<'PY' || fail "JSON report"
import json, os, sys
out, rep = (json.load(open(p)) for p in sys.argv[1:3])
assert out == rep, "stdout JSON and --report differ"
assert out["verdict"] == "pass", out["verdict"]
names = [c["name"] for c in out["checks"]]
assert names == ["discovery", "size_sweep", "kernel_refusals", "concurrent_torn", "crash",
                 "performance", "hardware_path"], names
res = {c["name"]: c["result"] for c in out["checks"]}
for n in ("discovery", "size_sweep", "kernel_refusals", "concurrent_torn"):
    assert res[n] == "pass", (n, res[n])
assert res["performance"] == "info", res["performance"]   # speed is measured, never judged
assert out["info"] == 1 and out["passed"] == 4, (out["passed"], out["info"])
assert res["crash"] == "skip", res["crash"]
hw = [c for c in out["checks"] if c["name"] == "hardware_path"][0]
assert hw["result"] == "skip" and "no hardware atomics below" in hw["reason"], hw   # a loop device
sweep = out["checks"][1]["figures"]["writes"]
assert [w["size"] for w in sweep] == [4096 << i for i in range(9)], sweep
assert all(w["read_back"] == "intact" for w in sweep)
refused = out["checks"][2]["figures"]["cases"]
assert all(c["kernel"] == c["predicted"] != "0" for c in refused), refused
perf = out["checks"][5]["figures"]
assert all(perf[m]["pages"] > 0 and perf[m]["error"] is None
           for m in ("atomic", "plain", "doublewrite")), perf
views = out["checks"][0]["figures"]["views"]
assert views["statx"]["atomic_reported"] and views["statx"]["unit_min"] == 4096, views
# untorn is not durable: the loop device's write cache as its sysfs says, read here
q = "/sys/block/%s/queue/" % os.path.basename(sys.argv[3])
wc, fua = open(q + "write_cache").read().strip(), open(q + "fua").read().strip() == "1"
assert [views["sysfs"][k] for k in ("write_cache", "write_cache_volatile", "fua")] == \
    [wc, wc == "write back", fua], (views["sysfs"], wc, fua)
crash = out["checks"][4]["figures"]
assert "RWF_DSYNC" in crash["proves"] and "power cut" in crash["cannot_prove"], crash
assert crash["target_write_cache"]["disk"] == views["sysfs"]["disk"], crash
v = out["checks"][3]["figures"]["verify"]
assert v["counts"]["torn"] == 0 and v["lost"] == 0 and v["acked_writes"] > 0, v
# the verdict's scope: a loop device below has no atomic writes, so XFS writes them by software
assert out["scope"] == "software_only", out["scope"]
assert "software path only, no hardware atomics below" in out["scope_text"], out["scope_text"]
assert "require" not in out, out.get("require")
assert all(c["what_to_do"] is None for c in out["checks"]), [c["what_to_do"] for c in out["checks"]]
print("quick: verdict", out["verdict"], "in", round(out["seconds"], 1), "s;", out["scope_text"])
PY
[ "$took" -lt 30 ] || echo "note: qualify --quick took $took s (target: under 30 s)"
ls "$dir" | grep -q awr-qualify && fail "qualify left its scratch file in $dir"

# --crash: the filesystem is shut down, mounted again and verified; this run also writes the
# node_exporter textfile format (-o prometheus), read by the Prometheus parser against its report
"$awr" qualify "$dir" --quick --crash -o prometheus --report "$work/crash.json" >"$work/crash.prom"
rc=$?
[ "$rc" = 0 ] || { cat "$work/crash.prom" "$work/crash.json"; fail "qualify --crash exited $rc"; }
python3 "$(dirname "$0")/../prom_check.py" qualify "$work/crash.prom" "$work/crash.json" ||
	fail "qualify -o prometheus against its report"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d['checks'] if c['name'] == 'crash'][0]
assert c['result'] == 'pass', c
assert c['figures']['cycles'][0]['verify']['counts']['torn'] == 0
# what it proves and what it cannot, in the figures and a note
assert 'nor a power cut' in c['reason'], c['reason']
assert [n for n in d['notes'] if n.startswith('crash check: proves that ')
        and 'cannot prove a power cut' in n
        and c['figures']['target_write_cache']['disk'] + ': ' in n], d['notes']
print('crash:', c['reason'])" "$work/crash.json" || fail "crash check"
mountpoint -q "$dir" || fail "the scratch filesystem is not mounted again after the crash check"

# --require-hardware: the same software path is a FAIL, saying why and what to do (the scope's
# negative control: without it the run above passes); its text gives sizes and times in human units
"$awr" qualify "$dir" --quick --require-hardware --report "$work/hw.json" >"$work/hw.out"
rc=$?
cat "$work/hw.out"
[ "$rc" = 1 ] || fail "qualify --require-hardware on a software-only target exited $rc, expected 1"
grep -q "^verdict: FAIL (4 passed, 0 failed, .*hardware atomic writes required" "$work/hw.out" ||
	fail "the text verdict does not say the hardware requirement failed it"
grep -q "^scope: atomic writes by the filesystem's software path only" "$work/hw.out" ||
	fail "the text gives no scope"
grep -q "^what to do: put the data on a device with atomic writes" "$work/hw.out" ||
	fail "the text gives no what to do for the requirement"
# numbers for people in the text: sizes as 16 KiB, latencies as 72.9 ms (JSON keeps them exact)
grep -Eq "^  INFO  performance +16 KiB pages, .* \(p99 [0-9.]+ (us|ms|s), [0-9.]+ (us|ms|s), " \
	"$work/hw.out" || fail "the performance line gives no p99 in human units"
grep -Eq "^  PASS  size_sweep +9 sizes from 4 KiB to 1 MiB " "$work/hw.out" ||
	fail "the size sweep's line gives no sizes in human units"
python3 - "$work/hw.json" <<'PY' || fail "--require-hardware JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "fail" and d["failed"] == 0 and d["scope"] == "software_only", d
r = d["require"]
assert r["hardware"] is True and r["met"] is False, r
assert "software path only" in r["reason"] and r["what_to_do"].startswith("put the data"), r
PY

# a mounted device is refused without --force, nothing written
"$awr" qualify "$dev" --quick >"$work/refused.out" 2>&1
rc=$?
[ "$rc" = 2 ] ||
	{ cat "$work/refused.out"; fail "qualify of the mounted $dev exited $rc, expected 2"; }
grep -q "refusing to write" "$work/refused.out" ||
	{ cat "$work/refused.out"; fail "no refusal message"; }

# a file holding data is not overwritten without --force
head -c 8192 /dev/urandom >"$dir/data.file"
cp "$dir/data.file" "$work/data.copy"
"$awr" qualify "$dir/data.file" --quick >"$work/file.out" 2>&1
rc=$?
[ "$rc" = 2 ] ||
	{ cat "$work/file.out"; fail "qualify of a file with data exited $rc, expected 2"; }
cmp -s "$dir/data.file" "$work/data.copy" || fail "qualify changed a file it refused"

# a raw loop device: no atomic support, so discovery fails and the write checks skip
truncate -s 64M "$work/raw.img" || exit 2
loop=$(losetup -f --show "$work/raw.img") || { echo "SKIP: no free loop device"; exit 77; }
"$awr" qualify "$loop" --quick --report "$work/raw.json" >"$work/raw.out" 2>&1
rc=$?
cat "$work/raw.out"
[ "$rc" = 1 ] || fail "qualify of a raw loop device exited $rc, expected 1"
grep -q "FAIL  discovery" "$work/raw.out" || fail "discovery did not fail on $loop"
grep -q "SKIP  size_sweep" "$work/raw.out" || fail "the size sweep did not skip on $loop"
grep -q "verdict: FAIL" "$work/raw.out" || fail "no FAIL verdict on $loop"
# every FAIL says what to do: in the text, the line under it; in the JSON, what_to_do
awk '/^  FAIL  / { f++; getline; if ($0 ~ /^        what to do: [a-z]/) w++ }
     END { exit !(f > 0 && f == w) }' "$work/raw.out" || fail "a FAIL without what to do (text)"
python3 - "$work/raw.json" <<'PY' || fail "a FAIL without what to do (JSON)"
import json, sys
d = json.load(open(sys.argv[1]))
fails = [c for c in d["checks"] if c["result"] == "fail"]
assert fails and all(len(c["what_to_do"] or "") > 20 for c in fails), fails
assert all(c["what_to_do"] is None for c in d["checks"] if c["result"] != "fail"), d["checks"]
assert d["verdict"] == "fail" and d["scope"] == "none", (d["verdict"], d["scope"])
PY
grep -q "hardware_path" "$work/raw.out" &&
	fail "a block device's qualify lists the file-only hardware_path check"
echo "qualify_xfs: ok"
