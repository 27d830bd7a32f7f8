#!/usr/bin/env bash
# Installs the Debian packages hwt needs. Idempotent: packages already
# present are left alone; safe to run again.
#   scripts/setup.sh            what the commands need to build and run (the
#                               main job: scripts/demo.sh, a user's build)
#   scripts/setup.sh --tests    that and what the tests need: kernels, QEMU
#                               system emulation, Chromium, cross toolchains,
#                               the oracles (scripts/build.sh, scripts/test.sh)
set -euo pipefail

tests=0
case "${1:-}" in
  --tests) tests=1 ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac

# The main job: build the commands and trace units, record, write lcov and HTML.
packages=(
  # build (the project is C and C++)
  build-essential cmake pkg-config g++
  # decoders and images
  libipt-dev libopencsd-dev libelf-dev libdwarf-dev libzstd-dev
  # software trace units: hwt's Valgrind tool (built against valgrind's
  # headers) and the QEMU TCG plugin (qemu-x86_64)
  valgrind qemu-user
  # genhtml for --html; git for --diff
  lcov git
)

# The tests, the benchmarks and CI: keep every package a test uses here.
test_packages=(
  # clang builds, hwt-pgo (clang-19, llvm-profdata), BOLT
  clang-19 llvm-19 lld-19
  libdw-dev libopencsd-bin
  # oracles
  libzydis-dev libcapstone-dev binutils gcc autofdo
  # the Arm path: aarch64 binutils (the A64 classifier's oracle), cross compiler and sysroot
  binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-arm64-cross
  libc6-dev-arm64-cross
  # instrumented PGO (-fprofile-instr-generate) for the PGO benchmark
  libclang-rt-19-dev
  # BOLT (llvm-bolt-19, perf2bolt-19): hwt report bolt's oracle (llvm-bolt -instrument),
  # hwt-pgo --bolt and the PGO benchmark
  bolt-19
  # kernel framework tests: Debian's 6.1, and the 6.12 of bookworm-backports (below);
  # dkms builds the modules as users would
  qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod dkms xz-utils
  # and the arm64 guest (qemu-system-aarch64; its kernel, headers and busybox:
  # scripts/setup_arm64.sh, below)
  qemu-system-arm
  # looking at pages: the flame graph and speedscope tests (tests/stacks/web,
  # whose npm packages scripts/setup_npm.sh installs; npm below)
  chromium nodejs
  # function names of libc and ld.so in flame graphs (and callgrind's)
  libc6-dbg
  # coverage in CI: the oracles (diff-cover, gcovr), the .deb (dpkg-shlibdeps),
  # the CI examples' YAML, the manual pages
  diff-cover gcovr dpkg-dev python3-yaml groff-base man-db
  # misc used by tests
  python3 file
  # fetching Debian sources (bench/select/real_suites.sh -f: cJSON's Unity for
  # lcov.per_test_function.unity, and the benchmarks' suites)
  curl gpgv xz-utils debian-archive-keyring
  # bench/select/real_suites.sh: bootstrapping the autotools projects it fetches
  autoconf automake libtool
  # bench/select/project_cost.sh: CPU time of a command (/usr/bin/time)
  time
  # perf.data: Linux perf (the oracle of the perf import and export)
  linux-perf
  # .ci/build-matrix.sh: the builds share compiled objects across CI runs
  ccache
  # per-test coverage inside processes: test frameworks whose tests are functions
  # (tests/lcov/per_test_function.py)
  libgtest-dev libcmocka-dev catch2 check libcunit1-dev
)
[ $tests = 0 ] || packages+=("${test_packages[@]}")

# The second kernel comes from bookworm-backports.
backports=/etc/apt/sources.list.d/bookworm-backports.sources
if [ $tests = 1 ] && ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  SUDO=
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
    $SUDO tee "$backports" >/dev/null
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
# npm: Debian's package, unless the nodejs installed already brings the
# command (NodeSource's does, and conflicts with Debian's npm).
[ $tests = 0 ] || command -v npm >/dev/null 2>&1 || installed npm || missing+=(npm)
# The 6.12 kernel (tests only): any installed linux-image-6.12.* with its headers will do.
kernel612=$((1 - tests))
[ $tests = 0 ] || for img in $(dpkg-query -W -f='${Package}\n' 'linux-image-6.12.*-amd64' 2>/dev/null); do
  installed "$img" && installed "${img/linux-image/linux-headers}" && kernel612=1
done

if [ ${#missing[@]} -eq 0 ] && [ $kernel612 = 1 ]; then
  echo "setup: all $((${#packages[@]} + 2 * tests)) packages present"
else
  SUDO=
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # Backports' kernel packages carry the ABI in their names, which changes with
  # uploads: take those its linux-image-amd64 and linux-headers-amd64 depend on
  # (the metapackages themselves stay bookworm's, the 6.1 kernel).
  if [ $kernel612 = 0 ]; then
    for meta in linux-image-amd64 linux-headers-amd64; do
      v=$(apt-cache madison "$meta" | awk '$0 ~ /bookworm-backports/ { print $3; exit }')
      dep=$(apt-cache show "$meta=$v" 2>/dev/null | sed -n 's/^Depends: \(linux-[a-z]*-6\.12[^ ,]*\).*/\1/p' | head -1)
      [ -n "$dep" ] || { echo "setup: no 6.12 kernel ($meta) in bookworm-backports" >&2; exit 1; }
      missing+=("$dep")
    done
  fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
  echo "setup: done"
fi
[ $tests = 0 ] || bash "$(dirname "$0")/setup_npm.sh"
[ $tests = 0 ] || bash "$(dirname "$0")/setup_arm64.sh"
# The Unity test framework is not packaged in Debian: cJSON's source package
# vendors it (tests/unity), and lcov.per_test_function.unity builds against it.
[ $tests = 0 ] || bash "$(dirname "$0")/../bench/select/real_suites.sh" -f cjson >/dev/null
