# Shared by the container-probe integration tests (sourced). Needs $GQ (the gpuqual binary).

# A busybox image rootfs as a tar, from Debian's busybox-static: /bin/busybox and its applets.
make_busybox_tar() {
  local out=$1 root
  local bb
  bb=$(dpkg -L busybox-static 2>/dev/null | grep -m1 '/bin/busybox$' || true)
  [[ -n "$bb" && -x "$bb" ]] || { echo "FAIL: busybox-static is not installed (scripts/install-deps.sh installs it; see docs/architecture.md)" >&2; exit 1; }
  root=$(mktemp -d "${TMPDIR:-/tmp}/gq-bbroot.XXXXXX")
  mkdir -p "$root/bin" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/etc"
  cp "$bb" "$root/bin/busybox"
  for applet in sh echo cat sleep head tr true false yes printf env ls wc; do
    ln -s busybox "$root/bin/$applet"
  done
  tar -C "$root" -cf "$out" .
  rm -rf "$root"
}

# NVIDIA_REQUIRE_CUDA of nvidia/cuda:12.4.1 (`docker image inspect`, Config.Env; first clauses).
REQUIRE_12_4_1='cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536'

# The busybox rootfs plus the host's glibc (libc.so.6 and the dynamic loader): enough for
# gpuqual's own probe program (dynamically linked against glibc, nothing else).
make_glibc_tar() {
  local out=$1 root libc loader
  libc=$(ldd /bin/true | awk '/libc\.so\.6/ {print $3}')
  loader=$(ldd /bin/true | awk '/ld-linux/ {print $1}')
  [[ -f "$libc" && -f "$loader" ]] || { echo "FAIL: cannot find the host's glibc" >&2; exit 1; }
  root=$(mktemp -d "${TMPDIR:-/tmp}/gq-glibcroot.XXXXXX")
  tar -C "$root" -xf "$2"
  mkdir -p "$root$(dirname "$libc")" "$root$(dirname "$loader")"
  cp -L "$libc" "$root$libc"
  cp -L "$loader" "$root$loader"
  tar -C "$root" -cf "$out" .
  rm -rf "$root"
}

FAILURES=0
PASSES=0

fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }
ok() { echo "ok: $*"; PASSES=$((PASSES + 1)); }

# expect_gq NAME EXPECTED_EXIT REGEX -- gpuqual args...: runs gpuqual, checks the exit code and
# that the output (stdout+stderr) matches REGEX (grep -E). Output is kept in $LAST_OUT.
expect_gq() {
  local name=$1 want=$2 regex=$3
  shift 4
  local rc=0
  LAST_OUT=$("$GQ" "$@" 2>&1) || rc=$?
  if [[ $rc -ne $want ]]; then
    fail "$name: exit $rc, expected $want; output:"$'\n'"$LAST_OUT"
  elif ! grep -Eq -- "$regex" <<<"$LAST_OUT"; then
    fail "$name: output does not match /$regex/:"$'\n'"$LAST_OUT"
  else
    ok "$name"
  fi
}

# wait_until SECONDS CMD...: polls CMD every 0.1 s.
wait_until() {
  local secs=$1
  shift
  local end=$((SECONDS + secs))
  while (( SECONDS <= end )); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# Unmounts what a daemon left under DIR (deepest first), then removes DIR.
remove_tree() {
  local dir=$1
  [[ -n "$dir" && -d "$dir" ]] || return 0
  awk -v d="$dir" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf "$dir" 2>/dev/null || true
}

summary() {
  echo "$PASSES passed, $FAILURES failed"
  [[ $FAILURES -eq 0 ]]
}
