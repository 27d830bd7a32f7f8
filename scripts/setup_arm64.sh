#!/usr/bin/env bash
# The arm64 guest of the hwt.ko tests (scripts/setup.sh --tests runs it):
# Debian's arm64 kernel image (and its modules), the headers to cross-build
# hwt.ko against, and a static arm64 busybox, unpacked under HWT_ARM64_ROOT
# (default /opt/hwt-arm64) for the kernel ABI of the installed amd64 6.1
# kernel. Idempotent.
#
# Unpacked (dpkg-deb -x), not installed: linux-headers-*-arm64:arm64 depends
# on gcc-12:arm64, which would replace the host's gcc-12; busybox-static:arm64
# conflicts with busybox-static (amd64), which the x86 guests use; and
# linux-image-*:arm64's maintainer scripts would build an initramfs for it.
# The headers' kbuild tools are the amd64 linux-kbuild-6.1 (Multi-Arch:
# foreign, installed with linux-headers-amd64): a link in the root makes the
# headers' relative links to ../../lib/linux-kbuild-6.1 reach it. The rest
# (-common headers) is architecture-independent and installed already.
set -euo pipefail

root=${HWT_ARM64_ROOT:-/opt/hwt-arm64}
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

amd64=$(ls /boot/vmlinuz-6.1.*-amd64 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
[ -n "$amd64" ] || { echo "setup_arm64: no 6.1 amd64 kernel in /boot (scripts/setup.sh --tests first)" >&2; exit 1; }
kver=${amd64%-amd64}-arm64
if [ -f "$root/usr/src/linux-headers-$kver/Makefile" ] && [ -f "$root/boot/vmlinuz-$kver" ] &&
   [ -x "$root/bin/busybox" ] && [ -e "$root/usr/lib/linux-kbuild-6.1" ]; then
	echo "setup_arm64: $kver present in $root"
	exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	$SUDO dpkg --add-architecture arm64
	$SUDO apt-get update -qq
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's download sandbox (user _apt) writes into the directory.
if id _apt >/dev/null 2>&1; then $SUDO chown _apt "$tmp"; fi
(cd "$tmp" && $SUDO apt-get download -qq "linux-headers-$kver:arm64" \
	"linux-image-$kver-unsigned:arm64" busybox-static:arm64)
$SUDO mkdir -p "$root/usr/lib"
for deb in "$tmp"/*.deb; do
	$SUDO dpkg-deb -x "$deb" "$root"
done
$SUDO ln -sfn /usr/lib/linux-kbuild-6.1 "$root/usr/lib/linux-kbuild-6.1"
echo "setup_arm64: $kver unpacked in $root"
