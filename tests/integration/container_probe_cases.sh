# The container-probe cases every runtime must pass (sourced after container_probe_lib.sh).
# The caller defines:
#   RT=(...)                 gpuqual runtime flags, e.g. (--runtime docker --socket /tmp/x/docker.sock)
#   IMG                      the imported busybox image
#   IMG_CUDA                 the same with CUDA_VERSION=12.4.1 and NVIDIA_REQUIRE_CUDA of nvidia/cuda:12.4.1
#   IMG_GLIBC                busybox plus the host's glibc (runs gpuqual's self-probe program)
#   rt_count FILTER...       prints how many containers match `--filter` FILTERs (all states)
#   rt_orphan NAME OWNER RUN creates and starts a container labelled gpuqual.owner=OWNER and
#                            gpuqual.run=RUN, running sleep
#   rt_exists NAME           succeeds while container NAME exists

# run_has RUN N [FILTER...]: exactly N containers of run RUN (evaluated each time wait_until polls).
run_has() {
  local run=$1 n=$2
  shift 2
  [[ $(rt_count "label=gpuqual.run=$run" "$@") -eq $n ]]
}

run_common_cases() {
  local tag=$1 run
  expect_gq "$tag success" 0 'container: PASS' -- probe container "${RT[@]}" --image "$IMG" --expect-output '^hello$' -- echo hello
  expect_gq "$tag env passed as argv" 0 'PASS' -- probe container "${RT[@]}" --image "$IMG" --env 'GQ_A=b c; $(id)' \
    --expect-output '^b c; \$\(id\)$' -- sh -c 'echo "$GQ_A"'
  expect_gq "$tag non-zero exit" 1 'FAIL — .*exit code 3, expected 0' -- probe container "${RT[@]}" --image "$IMG" -- sh -c 'echo bad; exit 3'
  expect_gq "$tag expected non-zero exit" 0 'PASS' -- probe container "${RT[@]}" --image "$IMG" --expect-exit 3 -- sh -c 'exit 3'
  expect_gq "$tag missing command" 1 'FAIL — .*did not start: .*(not found|no such file)' -- probe container "${RT[@]}" --image "$IMG" -- /no/such/command
  expect_gq "$tag unknown image" 2 'ERROR — .*gq-no-such-image:1 is not present' -- probe container "${RT[@]}" --image gq-no-such-image:1 -- true
  expect_gq "$tag output mismatch" 1 'FAIL — .*output does not match /hello/' -- probe container "${RT[@]}" --image "$IMG" --expect-output hello -- echo goodbye
  expect_gq "$tag GPU requested on a GPU-less host" 2 'SKIP — .*GPU requested \(all\) but this node has no GPU' -- probe container "${RT[@]}" --image "$IMG" --gpus all -- true

  # The image's CUDA requirement, judged before anything starts: on a driver too old (what-if
  # flags; this host has no driver) it fails early and creates no container.
  run="compat-$tag-$$"
  expect_gq "$tag CUDA image, driver too old" 1 'FAIL — .*refuses it: NVIDIA_REQUIRE_CUDA: unsatisfied condition: cuda>=12.4' -- \
    probe container "${RT[@]}" --image "$IMG_CUDA" --run-id "$run" --assume-driver 525.60.13 --assume-cuda 12.0 -- true
  grep -q 'compat.require_unsatisfied' <<<"$LAST_OUT" || fail "$tag CUDA image: no compat.require_unsatisfied finding"
  if grep -q '\.container ' <<<"$LAST_OUT"; then fail "$tag CUDA image: a container was created"; fi
  expect_gq "$tag CUDA image, driver new enough" 0 'cuda_compat +pass: ' -- \
    probe container "${RT[@]}" --image "$IMG_CUDA" --assume-driver 570.133.20 --assume-cuda 12.8 -- true
  expect_gq "$tag CUDA image on this driver-less host" 0 'cuda_compat +skip: .*no driver|cuda_compat +skip: .*driver' -- \
    probe container "${RT[@]}" --image "$IMG_CUDA" -- true

  # The self-probe: gpuqual's program inside the container, mounted read-only.
  expect_gq "$tag self-probe, no GPU asked" 0 'inside\.visible_gpus +0' -- probe container "${RT[@]}" --image "$IMG_GLIBC" --self-probe
  grep -q 'inside\.libcuda .*libcuda\.so\.1' <<<"$LAST_OUT" || fail "$tag self-probe: libcuda not reported"
  expect_gq "$tag self-probe, GPU asked on a GPU-less host" 2 'SKIP — .*no GPU' -- probe container "${RT[@]}" --image "$IMG_GLIBC" --self-probe --gpus all
  expect_gq "$tag self-probe in an image without glibc" 2 "ERROR — .*gpuqual's probe program" -- probe container "${RT[@]}" --image "$IMG" --self-probe
  expect_gq "$tag self-probe with a command" 3 'give no command' -- probe container "${RT[@]}" --image "$IMG_GLIBC" --self-probe -- true

  # Huge output: bounded capture, the probe still ends quickly and judges what it kept.
  local t0=$SECONDS
  expect_gq "$tag huge output" 0 'output_truncated +true' -- probe container "${RT[@]}" --image "$IMG" --max-output 65536 \
    --expect-output '^x{100}' -- sh -c 'yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 8000000'
  (( SECONDS - t0 < 60 )) || fail "$tag huge output took $((SECONDS - t0)) s"

  # Metrics in the run record's JSON shape.
  expect_gq "$tag json metrics" 0 '"name": "container\.hello\.start_latency"' -- probe container "${RT[@]}" --image "$IMG" --name hello --format json -- true
  grep -q '"unit": "ms"' <<<"$LAST_OUT" || fail "$tag json metrics: no ms unit"

  # The image's own figures: gpuqual-metric lines become container.<probe>.<name> metrics; a
  # malformed line is a finding (warn), never a crash; past the line limit the rest is ignored.
  expect_gq "$tag image metrics" 0 '"name": "container\.smoke\.step_time"' -- probe container "${RT[@]}" --image "$IMG" \
    --name smoke --format json -- sh -c 'echo warming up; echo "gpuqual-metric {\"name\": \"step_time\", \"unit\": \"ms\", \"direction\": \"lower\", \"samples\": [41.5, 42.5, 43]}"; echo "gpuqual-metric {\"name\": \"tokens_per_s\", \"unit\": \"tokens/s\", \"direction\": \"higher\", \"value\": 1873}"'
  grep -q '"median": 42.5' <<<"$LAST_OUT" || fail "$tag image metrics: step_time median is not 42.5"
  grep -q '"name": "container\.smoke\.tokens_per_s"' <<<"$LAST_OUT" || fail "$tag image metrics: no tokens_per_s"
  expect_gq "$tag image metric malformed" 0 'WARN — .*gpuqual-metric' -- probe container "${RT[@]}" --image "$IMG" --name bad -- \
    sh -c 'echo "gpuqual-metric {\"name\": \"ttft\", \"unit\": \"ms\", \"direction\": \"lower\", \"value\": 80}"; echo "gpuqual-metric {oops"'
  grep -q 'container\.metric_malformed: bad: line 2: not JSON' <<<"$LAST_OUT" || fail "$tag image metric malformed: no finding for line 2"
  grep -Eq 'metric container\.bad\.ttft +80\.000 ms' <<<"$LAST_OUT" || fail "$tag image metric malformed: the good line was lost"
  expect_gq "$tag image metrics past the limit" 0 'container\.metric_limit: many: more than 5 gpuqual-metric lines; line 6' -- \
    probe container "${RT[@]}" --image "$IMG" --name many --max-metric-lines 5 -- \
    sh -c 'i=0; while [ $i -lt 40 ]; do echo "gpuqual-metric {\"name\": \"m$i\", \"unit\": \"count\", \"direction\": \"higher\", \"value\": $i}"; i=$((i+1)); done'
  grep -q 'metric_lines  *5$' <<<"$LAST_OUT" || fail "$tag image metrics past the limit: not 5 lines read"
  if grep -q 'container\.many\.m5 ' <<<"$LAST_OUT"; then fail "$tag image metrics past the limit: line 6 was read"; fi

  # A hang past the timeout: fail, and the container is gone afterwards.
  run="timeout-$tag-$$"
  expect_gq "$tag timeout" 1 'FAIL — .*timed out: still running after 1 s' -- probe container "${RT[@]}" --image "$IMG" --run-id "$run" --timeout 1 -- sleep 300
  [[ $(rt_count "label=gpuqual.run=$run") -eq 0 ]] && ok "$tag timeout: container removed" || fail "$tag timeout: container left behind"

  # gpuqual SIGKILLed while its container runs: the janitor removes the container.
  run="killed-$tag-$$"
  "$GQ" probe container "${RT[@]}" --image "$IMG" --run-id "$run" --timeout 300 -- sleep 300 >/dev/null 2>&1 &
  local gq=$!
  if wait_until 60 run_has "$run" 1 status=running; then
    kill -KILL "$gq"
    wait "$gq" 2>/dev/null || true
    if wait_until 20 run_has "$run" 0; then
      ok "$tag killed gpuqual: container removed"
    else
      fail "$tag killed gpuqual: container still there 20 s after the kill"
    fi
  else
    kill -KILL "$gq" 2>/dev/null || true
    fail "$tag killed gpuqual: the container never ran"
  fi

  # SIGTERM: gpuqual stops the probe, removes the container itself and says so.
  run="term-$tag-$$"
  "$GQ" probe container "${RT[@]}" --image "$IMG" --run-id "$run" --timeout 300 -- sleep 300 >"$WORK/term.out" 2>&1 &
  gq=$!
  if wait_until 60 run_has "$run" 1 status=running; then
    kill -TERM "$gq"
    local rc=0
    wait "$gq" || rc=$?
    if [[ $rc -eq 2 ]] && grep -q 'stopped' "$WORK/term.out" && [[ $(rt_count "label=gpuqual.run=$run") -eq 0 ]]; then
      ok "$tag SIGTERM: stopped, container removed"
    else
      fail "$tag SIGTERM: exit $rc, containers $(rt_count "label=gpuqual.run=$run"):"$'\n'"$(cat "$WORK/term.out")"
    fi
  else
    kill -KILL "$gq" 2>/dev/null || true
    fail "$tag SIGTERM: the container never ran"
  fi

  # The sweep: a container of a dead gpuqual process goes, one of a live process stays.
  local boot dead live
  boot=$(cut -c1-8 /proc/sys/kernel/random/boot_id)
  true & dead=$!
  wait "$dead"
  live="$(hostname)/$boot/$$/$(awk '{print $22}' /proc/$$/stat)"
  rt_orphan "gq-orphan-$tag-$$" "$(hostname)/$boot/$dead/1" "orphan-run-$$"
  rt_orphan "gq-alive-$tag-$$" "$live" "alive-run-$$"
  expect_gq "$tag cleanup sweep" 0 "removed gq-orphan-$tag-$$" -- probe cleanup "${RT[@]}"
  if rt_exists "gq-orphan-$tag-$$"; then fail "$tag cleanup: orphan still there"; fi
  if rt_exists "gq-alive-$tag-$$"; then ok "$tag cleanup spares a live owner's container"; else fail "$tag cleanup removed a live owner's container"; fi
  expect_gq "$tag cleanup by run id" 0 "removed gq-alive-$tag-$$" -- probe cleanup "${RT[@]}" --run-id "alive-run-$$"
}
