#!/bin/sh
# Builds hwt.ko and hwt_test.ko out of tree with kbuild, in a build directory
# of symlinks, so that no object file lands in the source tree.
#   kbuild.sh SRCDIR BUILDDIR [KERNEL_VERSION]     (HWT_KDIR: the headers' build directory)
# The kernel version defaults to the one Debian's linux-image-amd64 installed
# in /boot (the kernel the tests boot), not the running one. A version ending
# in -arm64 is cross-built (ARCH=arm64, CROSS_COMPILE aarch64-linux-gnu- unless
# set) against the headers that scripts/setup_arm64.sh unpacks under
# HWT_ARM64_ROOT (default /opt/hwt-arm64); hwt_sw.ko is x86-64 only.
set -eu
src=$(cd "$1" && pwd)
out=$2
kver=${3:-}
if [ -z "$kver" ]; then
	kver=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
fi
# HWT_KDIR: the kernel's build directory, when not where Debian installs it.
kdir=${HWT_KDIR:-/lib/modules/$kver/build}
[ -d "$kdir" ] || kdir=/usr/src/linux-headers-$kver
case "$kver" in
*-arm64)
	export ARCH=arm64 CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
	[ -n "${HWT_KDIR:-}" ] || kdir=${HWT_ARM64_ROOT:-/opt/hwt-arm64}/usr/src/linux-headers-$kver
	;;
esac
[ -f "$kdir/Makefile" ] || { echo "kbuild.sh: no headers for $kver" >&2; exit 1; }
mkdir -p "$out/common" "$out/include/uapi"
for f in "$src"/*.c "$src"/*.h "$src"/Kbuild; do
	ln -sf "$f" "$out/$(basename "$f")"
done
for f in "$src"/include/uapi/*.h; do
	ln -sf "$f" "$out/include/uapi/$(basename "$f")"
done
for f in crc32.c crc32.h elf_note.c elf_note.h hwt_record.c hwt_record.h hwt_types.h \
	 hwt_select_rule.c hwt_select_rule.h pt_encoder.c pt_encoder.h x86_insn.c x86_insn.h \
	 sw_stream.c sw_stream.h; do
	ln -sf "$src/../common/$f" "$out/common/$f"
done
exec make -s -C "$kdir" M="$(cd "$out" && pwd)" modules
