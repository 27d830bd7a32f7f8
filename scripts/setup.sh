#!/usr/bin/env bash
# Installs every Debian package hwt needs to build, run and test. Idempotent:
# packages already present are left alone; safe to run again.
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config g++ clang-19 llvm-19 lld-19
  # trace unit: Valgrind tool built out of tree
  valgrind
  # the QEMU trace unit (qemu-x86_64 and hwt's TCG plugin)
  qemu-user
  # decoders and images
  libipt-dev libopencsd-dev libopencsd-bin libelf-dev libdwarf-dev libdw-dev
  # oracles
  libzydis-dev libcapstone-dev binutils lcov gcc autofdo
  # the Arm path: aarch64 binutils (the A64 classifier's oracle), cross compiler and sysroot
  binutils-aarch64-linux-gnu gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-arm64-cross
  libc6-dev-arm64-cross
  # instrumented PGO (-fprofile-instr-generate) for the PGO benchmark
  libclang-rt-19-dev
  # kernel framework tests
  qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod
  # looking at pages
  chromium
  # coverage in CI: the oracles (diff-cover, gcovr), the .deb (dpkg-shlibdeps),
  # diff coverage (git), the CI examples' YAML, the manual pages
  diff-cover gcovr dpkg-dev git python3-yaml groff-base man-db
  # misc used by tests
  python3 file
  # perf.data: Linux perf (the oracle of the perf import and export), zstd
  linux-perf libzstd-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
