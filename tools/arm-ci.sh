#!/usr/bin/env bash
# ARM (aarch64) stage: cross-build hrw on this x86-64 Debian 12 host, run the test suite
# under qemu-user, then `hrw verify` under several emulated CPUs so that every Highway
# target compiled for aarch64 (NEON, SVE, SVE2, SVE_256, SVE2_128) is checked against the
# scalar reference. See docs/arm.md.
#
# Usage: tools/arm-ci.sh            (from anywhere; as root, or a user with sudo)
# Environment (all optional):
#   HRW_ARM64_CACHE       cache folder for the .debs and the staging prefix
#                         (default /var/cache/hrw-arm64 as root, else ~/.cache/hrw-arm64)
#   HRW_ARM_BUILD_DIR     build folder (default <repo>/build-arm64)
#   HRW_ARM_JOBS          build/test parallelism (default 2)
#   HRW_ARM_VERIFY_PAIRS  --pairs for each `hrw verify` run (default below)
#   HRW_ARM_VERIFY_SEED   --seed  for each `hrw verify` run (default 1)
#   HRW_ARM_CLEAN=1       wipe the build folder first
#   HRW_ARM_REFRESH=1     re-resolve and re-extract the arm64 packages
#   HRW_ARM_STRICT_TARGETS=0  don't fail when a CPU did not run the targets it should
#   HRW_ARM_PREPARE_ONLY=1    install the host tools and stage the arm64 packages, then stop
#                         (tools/test-all.sh runs this in the background while x86 builds)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -Eeuo pipefail
exec </dev/null  # CI has no stdin; nothing here may wait for one

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=${HRW_ARM_BUILD_DIR:-$REPO/build-arm64}
JOBS=${HRW_ARM_JOBS:-2}
PAIRS=${HRW_ARM_VERIFY_PAIRS:-4000000}
SEED=${HRW_ARM_VERIFY_SEED:-1}
TOOLCHAIN=$REPO/cmake/aarch64-toolchain.cmake
QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
if [[ $(id -u) -eq 0 ]]; then
  CACHE=${HRW_ARM64_CACHE:-/var/cache/hrw-arm64}
  SUDO=()
else
  CACHE=${HRW_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hrw-arm64}
  SUDO=(sudo -n)
fi
DEBS=$CACHE/debs
PREFIX=$CACHE/sysroot

# Host tools. g++-aarch64-linux-gnu brings the arm64 glibc/libstdc++ in /usr/aarch64-linux-gnu.
HOST_PKGS=(g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user cmake ninja-build)
# arm64 packages: downloaded and unpacked with `dpkg -x`, never installed (installing them
# pulls arm64 libudev and upgrades the host's systemd packages).
ARM64_PKGS=(libhwy-dev libhwy1 libtbb-dev libtbb12 libtbbmalloc2 libtbbbind-2-5 libhwloc15
            libbenchmark-dev libbenchmark1debian catch2 libfmt-dev libfmt9
            libxxhash-dev libxxhash0 zlib1g-dev zlib1g libzstd-dev libzstd1)
# Architecture: all (header-only); staged too so that find_package sees them under the
# find root path (the host copies in /usr/share/cmake are outside it).
ALL_PKGS=(nlohmann-json3-dev libcli11-dev)

# (name  qemu -cpu  Highway targets that must run there)
CPUS=(
  "neoverse-n1|neoverse-n1|NEON"
  "max|max|SVE2 SVE NEON"
  "max-sve256|max,sve-default-vector-length=32|SVE_256 SVE2 SVE NEON"
  "max-vq1|max,sve-max-vq=1|SVE2_128 SVE2 SVE NEON"
)

T0=${EPOCHREALTIME/[.,]/}
elapsed() { local us=$(( ${EPOCHREALTIME/[.,]/} - T0 )); printf '%d.%d' $(( us / 1000000 )) $(( us / 100000 % 10 )); }
log() { printf '[arm %6ss] %s\n' "$(elapsed)" "$*"; }
die() { log "error: $*" >&2; exit 1; }
trap 'rc=$?; if [[ $rc -ne 0 ]]; then log "ARM stage FAILED (exit $rc)" >&2; fi; exit $rc' EXIT

export DEBIAN_FRONTEND=noninteractive
APT=("${SUDO[@]}" apt-get -q -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
APT_UPDATED=0
apt_update() {
  if [[ $APT_UPDATED -eq 0 ]]; then
    log "apt-get update"
    "${APT[@]}" -qq update >/dev/null || die "apt-get update"
    APT_UPDATED=1
  fi
}
missing_pkgs() {  # prints the packages (host arch) that are not installed
  local p
  for p in "$@"; do
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || echo "$p"
  done
}

# ---- 1. host tools -------------------------------------------------------------------
mapfile -t missing < <(missing_pkgs "${HOST_PKGS[@]}")
if [[ ${#missing[@]} -gt 0 ]]; then
  log "installing host tools: ${missing[*]}"
  apt_update
  "${APT[@]}" -qq install -y --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]}"
fi
command -v qemu-aarch64 >/dev/null || die "qemu-aarch64 not found after installing qemu-user"
[[ -e $QEMU_LD_PREFIX/lib/ld-linux-aarch64.so.1 ]] || die "no $QEMU_LD_PREFIX/lib/ld-linux-aarch64.so.1"

# ---- 2. arm64 packages into the staging prefix (cached) ------------------------------
[[ $PREFIX != *" "* ]] || die "the cache path must not contain spaces: $PREFIX"
STAMP_WANT="arm64: ${ARM64_PKGS[*]} | all: ${ALL_PKGS[*]} | v1"
stage_cached() {
  [[ ${HRW_ARM_REFRESH:-0} != 1 && -f $PREFIX/.hrw-stamp && \
     "$(head -n1 "$PREFIX/.hrw-stamp")" == "$STAMP_WANT" ]]
}
WANT=()
for p in "${ARM64_PKGS[@]}"; do WANT+=("$p:arm64"); done
WANT+=("${ALL_PKGS[@]}")
# Resolves WANT to .deb file names (FILES) and downloads those not in $DEBS yet.
fetch_debs() {
  local uris _url file n w need=() dl=()
  uris=$(apt-get -q --print-uris download "${WANT[@]}" 2>&1) || { echo "$uris" >&2; return 1; }
  FILES=()
  while read -r _url file _; do
    FILES+=("$file")
    [[ -s $DEBS/$file ]] || need+=("${file%%_*}")
  done < <(printf '%s\n' "$uris" | grep "^'")
  [[ ${#FILES[@]} -eq ${#WANT[@]} ]] || { echo "apt listed ${#FILES[@]} of ${#WANT[@]} .debs" >&2; return 1; }
  [[ ${#need[@]} -gt 0 ]] || return 0
  for n in "${need[@]}"; do  # back to what we asked for: name:arm64 or the plain name
    for w in "${WANT[@]}"; do [[ ${w%:arm64} == "$n" ]] && dl+=("$w"); done
  done
  log "apt-get download ${#dl[@]} packages into $DEBS"
  (cd "$DEBS" && "${APT[@]}" -qq download "${dl[@]}" >/dev/null)
}
if stage_cached; then
  log "arm64 staging prefix cached: $PREFIX"
else
  mkdir -p "$DEBS"
  exec 9>"$CACHE/.lock"
  flock -w 1800 9 || die "another run holds $CACHE/.lock"
  if stage_cached; then
    log "arm64 staging prefix made by a concurrent run: $PREFIX"
  else
    log "preparing arm64 staging prefix in $PREFIX"
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
      log "dpkg --add-architecture arm64"
      "${SUDO[@]}" dpkg --add-architecture arm64
      APT_UPDATED=0  # an update made before this has no arm64 lists
      apt_update
    fi
    # apt drops to _apt for downloads as root: the folder must be writable by it.
    if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt:root "$DEBS"; fi
    # Lists that predate the arm64 architecture, or stale ones (a version since replaced on
    # the mirror), fail here: refresh them once and try again.
    if ! fetch_debs 2>/dev/null; then
      apt_update
      fetch_debs || die "cannot download the arm64 packages: ${WANT[*]}"
    fi
    tmp=$PREFIX.tmp.$$
    rm -rf "$tmp"
    mkdir -p "$tmp"
    for f in "${FILES[@]}"; do
      [[ -s $DEBS/$f ]] || die "missing $DEBS/$f"
      dpkg -x "$DEBS/$f" "$tmp"
    done
    { echo "$STAMP_WANT"; printf '%s\n' "${FILES[@]}"; } > "$tmp/.hrw-stamp"
    rm -rf "$PREFIX"
    mv "$tmp" "$PREFIX"
    # Old versions left behind by a Debian update are of no further use.
    for f in "$DEBS"/*.deb; do
      [[ -e $f ]] || continue
      grep -qxF "$(basename "$f")" "$PREFIX/.hrw-stamp" || rm -f "$f"
    done
    log "staged ${#FILES[@]} packages ($(du -sh "$PREFIX" | cut -f1))"
  fi
  exec 9>&-
fi
LIBDIR=$PREFIX/usr/lib/aarch64-linux-gnu
if [[ ${HRW_ARM_PREPARE_ONLY:-0} == 1 ]]; then
  log "prepared: host tools and $PREFIX"
  exit 0
fi

# ---- 3. configure and build ------------------------------------------------------------
if [[ ${HRW_ARM_CLEAN:-0} == 1 ]]; then rm -rf "$BUILD"; fi
if [[ -f $BUILD/CMakeCache.txt ]]; then
  # A build folder configured for another source tree, generator or prefix is started over.
  cache_get() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
  if [[ "$(cache_get CMAKE_HOME_DIRECTORY)" != "$REPO" || "$(cache_get CMAKE_GENERATOR)" != Ninja \
        || "$(cache_get HRW_ARM64_PREFIX)" != "$PREFIX" ]]; then
    log "stale $BUILD: starting it over"
    rm -rf "$BUILD"
  fi
fi
log "configure $BUILD"
mkdir -p "$BUILD"
cmake -S "$REPO" -B "$BUILD" -G Ninja --log-level=WARNING \
  -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
  -DHRW_ARM64_PREFIX="$PREFIX" \
  -DHRW_QEMU_CPU=neoverse-n1 \
  -DCMAKE_BUILD_TYPE=Release \
  -DHRW_BUILD_TESTS=ON \
  -DHRW_BUILD_BENCH=OFF >"$BUILD/arm-ci-configure.log" 2>&1 \
  || { cat "$BUILD/arm-ci-configure.log" >&2; die "cmake configure"; }
log "build (-j$JOBS)"
cmake --build "$BUILD" -j "$JOBS" || die "build"
aarch64-linux-gnu-readelf -h "$BUILD/hrw" | grep -q 'Machine:.*AArch64' \
  || die "$BUILD/hrw is not an aarch64 binary"

# ---- 4. test suite under qemu (-cpu neoverse-n1: NEON) ----------------------------------
log "ctest under qemu-aarch64 -cpu neoverse-n1"
# The slowest test takes ~35 s under qemu. On one host (AMD Zen 5, Debian's qemu 7.2) three
# tests spun in the emulator until a 1,200 s timeout, passing on every other host: a test
# that hangs is stopped after 300 s and run once more, so a hang costs minutes, not CI's
# whole time budget.
ctest --test-dir "$BUILD" --output-on-failure --no-tests=error -j "$JOBS" --timeout 300 \
  --repeat after-timeout:2 \
  || die "ctest under qemu (-cpu neoverse-n1)"

# ---- 5. hrw verify under each emulated CPU ---------------------------------------------
fails=() summary=()
for entry in "${CPUS[@]}"; do
  IFS='|' read -r name cpu expect <<<"$entry"
  log "hrw verify --pairs $PAIRS --seed $SEED   [qemu -cpu $cpu; must run: $expect]"
  t=$(date +%s)
  set +e
  out=$(timeout 1200 qemu-aarch64 -cpu "$cpu" -L "$QEMU_LD_PREFIX" -E "LD_LIBRARY_PATH=$LIBDIR" \
          "$BUILD/hrw" verify --pairs "$PAIRS" --seed "$SEED" 2>&1)
  rc=$?
  set -e
  printf '%s\n' "$out" | sed "s/^/    [$name] /"
  # hrw's CPU detection (kernels/cpu_targets.cc) against Highway's, on this CPU too.
  # (Catch2 v2 exits 0 when no test matches: the pass line is what counts.)
  detect=$(timeout 600 qemu-aarch64 -cpu "$cpu" -L "$QEMU_LD_PREFIX" -E "LD_LIBRARY_PATH=$LIBDIR" \
             "$BUILD/tests/hrw_tests" "[cpu-detection]" 2>&1) || true
  if grep -q "^All tests passed" <<<"$detect"; then
    printf '%s\n' "$detect" | tail -n 1 | sed "s/^/    [$name detection] /"
  else
    printf '%s\n' "$detect" | sed "s/^/    [$name detection] /"
    fails+=("-cpu $cpu: hrw's target detection differs from Highway's (tests/engine/targets.cpp)")
  fi
  ran=()
  for tgt in SVE2_128 SVE_256 SVE2 SVE NEON; do
    grep -qw -- "$tgt" <<<"$out" && ran+=("$tgt")
  done
  status=ok
  if [[ $rc -ne 0 ]]; then
    status="FAILED (exit $rc)"
    fails+=("$cpu: exit $rc")
  else
    for tgt in $expect; do
      if ! grep -qw -- "$tgt" <<<"$out"; then
        status="MISSING $tgt"
        if [[ ${HRW_ARM_STRICT_TARGETS:-1} != 0 ]]; then
          hint=""
          [[ $tgt == SVE_256 || $tgt == SVE2_128 ]] && hint=" (kernels/cpu_targets.cc: the SVE vector length)"
          fails+=("-cpu $cpu: target $tgt did not run$hint")
        fi
      fi
    done
  fi
  summary+=("$(printf '%-40s %4ss  %-24s %s' "-cpu $cpu" "$(( $(date +%s) - t ))" "${ran[*]:-none}" "$status")")
done

log "summary: hrw verify --pairs $PAIRS --seed $SEED under qemu (emulator speeds, not hardware)"
printf '    %-40s %5s  %-24s %s\n' "qemu CPU" "time" "targets run" "result"
printf '    %s\n' "${summary[@]}"
if [[ ${#fails[@]} -gt 0 ]]; then
  printf '    failure: %s\n' "${fails[@]}" >&2
  die "hrw verify under qemu"
fi
log "hrw bench --quick [qemu -cpu max; function, not speed]"; timeout 600 qemu-aarch64 -cpu max -L "$QEMU_LD_PREFIX" -E "LD_LIBRARY_PATH=$LIBDIR" "$BUILD/hrw" bench --quick | sed 's/^/    [bench] /' || die "hrw bench --quick under qemu"
log "ARM stage passed"
