#!/usr/bin/env bash
# scripts/build.sh as a person sees it (docs/building.md), with a fake ninja first on PATH: the
# compiler's output goes to BUILD_DIR/build.log only; the terminal shows the progress lines; a
# failed build shows the log's last 40 lines and the log's path, and fails.
#   test_build_script.sh SCRIPTS_DIR
set -uo pipefail
scripts=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=0
fail() { echo "FAIL: $*"; problems=$((problems + 1)); }

mkdir -p "$work/bin" "$work/b"
# A configured build dir, so build.sh does not run cmake.
: >"$work/b/build.ninja"
echo "GPUQUAL_WERROR:BOOL=ON" >"$work/b/CMakeCache.txt"
# The fake ninja: 100 steps, each with a compiler line; FAKE_NINJA_FAIL=1 fails at the end.
cat >"$work/bin/ninja" <<'EOF'
#!/usr/bin/env bash
for i in $(seq 1 100); do
  echo "[$i/100] Building CXX object step$i.o"
  echo "step$i.cpp:1:1: warning: compiler line $i [-Wfake]" >&2
done
if [[ ${FAKE_NINJA_FAIL:-0} == 1 ]]; then
  echo "FAILED: step100.o" && echo "step100.cpp:2:2: error: the last compiler line" >&2
  exit 1
fi
EOF
chmod +x "$work/bin/ninja"

run() {  # run ENV... : build.sh with the fake ninja; sets out, rc
  out=$(env PATH="$work/bin:$PATH" GPUQUAL_BUILD_DIR="$work/b" GPUQUAL_BUILD_PROGRESS=1 "$@" \
    bash "$scripts/build.sh" 2>&1)
  rc=$?
}

run FAKE_NINJA_FAIL=0
[[ $rc -eq 0 ]] || fail "a build that succeeds exited $rc"
grep -q "warning:" <<<"$out" && fail "compiler output reached the terminal: $(grep -m1 warning: <<<"$out")"
grep -q "^build.sh: 100% (100 of 100 steps)$" <<<"$out" || fail "no progress line for the last step: $out"
[[ $(grep -c "warning: compiler line" "$work/b/build.log") -eq 100 ]] ||
  fail "build.log lacks the compiler lines"
[[ $(grep -c '^build.sh: ' <<<"$out") -eq $(wc -l <<<"$out") ]] || fail "lines other than progress: $out"

run FAKE_NINJA_FAIL=1
[[ $rc -ne 0 ]] || fail "a failed build exited 0"
grep -q "error: the last compiler line" <<<"$out" || fail "the failure's last line is not shown: $out"
grep -q "$work/b/build.log" <<<"$out" || fail "the log's path is not shown: $out"
# The log's last 40 lines, and not the line before them.
[[ $out == *"$(tail -n 40 "$work/b/build.log")"* ]] || fail "the log's last 40 lines are not shown: $out"
before_tail=$(tail -n 41 "$work/b/build.log" | head -n 1)
grep -qF -- "$before_tail" <<<"$out" && fail "more than the log's last 40 lines are shown"
grep -q "error: the last compiler line" "$work/b/build.log" || fail "build.log lacks the failure"

if ((problems)); then exit 1; fi
echo "PASS: build.sh logs the compiler output, shows progress, and the log's tail on a failure"
