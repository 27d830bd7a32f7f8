#!/bin/sh
# Builds the modules the ways kmod/README.md gives: 'make -C KDIR M=$PWD' in
# a copy of kmod/ (kmod/common followed: cp -L), and dkms build with private
# source, build and install trees (nothing system-wide is touched).
#   build_ways.sh SRC_ROOT WORK_DIR KVER
# Exit 77 (skipped) when dkms is not installed, or for an -arm64 kernel when
# its headers (scripts/setup_arm64.sh) or the cross compiler are not. An
# -arm64 kernel is cross-built with make M= only (ARCH=arm64, no hwt_sw.ko);
# dkms is not tried for it (it builds for the machine it runs on).
set -u
root=$1 work=$2 kver=$3
kdir=${HWT_KDIR:-/lib/modules/$kver/build}
modules="hwt hwt_test hwt_sw"
cross=0
case "$kver" in
*-arm64)
	cross=1 modules="hwt hwt_test"
	export ARCH=arm64 CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
	[ -n "${HWT_KDIR:-}" ] || kdir=${HWT_ARM64_ROOT:-/opt/hwt-arm64}/usr/src/linux-headers-$kver
	if [ ! -f "$kdir/Makefile" ] || ! command -v "${CROSS_COMPILE}gcc-12" >/dev/null; then
		echo "build_ways: no arm64 headers in $kdir or no ${CROSS_COMPILE}gcc-12: skipped"
		exit 77
	fi
	;;
esac
rm -rf "$work"
mkdir -p "$work"
cp -rL "$root/kmod" "$work/kmod"
if ! make -s -C "$kdir" M="$work/kmod" modules > "$work/make.log" 2>&1; then
	cat "$work/make.log"
	echo "build_ways: FAIL: make M= for $kver"
	exit 1
fi
for m in $modules; do
	if [ ! -f "$work/kmod/$m.ko" ]; then
		echo "build_ways: FAIL: make M= for $kver built no $m.ko"
		exit 1
	fi
done
if [ $cross = 1 ]; then
	if [ -e "$work/kmod/hwt_sw.ko" ]; then
		echo "build_ways: FAIL: hwt_sw.ko (x86 only) built for $kver"
		exit 1
	fi
	if ! readelf -h "$work/kmod/hwt.ko" | grep -q 'Machine: *AArch64'; then
		echo "build_ways: FAIL: hwt.ko for $kver is not an aarch64 object"
		exit 1
	fi
	echo "build_ways: make M=\$PWD ARCH=arm64 for $kver: ok (hwt.ko, hwt_test.ko; dkms not tried)"
	exit 0
fi
echo "build_ways: make M=\$PWD for $kver: ok"
# A probe whose type is not its tracepoint's TP_PROTO must fail the build
# (hwt_probe.c's HWT_PROBE_CHECK; HWT_PROBE_PROTO_SELFTEST adds a wrong one).
if make -s -C "$kdir" M="$work/kmod" KCFLAGS=-DHWT_PROBE_PROTO_SELFTEST hwt_probe.o \
	> "$work/proto.log" 2>&1 ||
   ! grep -q 'hwt_hook_on_exit does not match the prototype of tracepoint sched_switch' \
	"$work/proto.log"; then
	cat "$work/proto.log"
	echo "build_ways: FAIL: a probe of the wrong prototype built for $kver"
	exit 1
fi
echo "build_ways: a probe of the wrong prototype fails the build for $kver: ok"
if ! command -v dkms >/dev/null; then
	echo "build_ways: dkms is not installed: dkms build skipped"
	exit 77
fi
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$root/kmod/dkms.conf")
mkdir -p "$work/src" "$work/tree" "$work/inst"
cp -rL "$root/kmod" "$work/src/hwt-$version"
rm -f "$work/src/hwt-$version"/*.ko "$work/src/hwt-$version"/*.o
if ! dkms --sourcetree "$work/src" --dkmstree "$work/tree" --installtree "$work/inst" \
	build "hwt/$version" -k "$kver" --kernelsourcedir "$kdir" > "$work/dkms.log" 2>&1; then
	cat "$work/dkms.log"
	echo "build_ways: FAIL: dkms build for $kver"
	exit 1
fi
for m in hwt hwt_sw; do
	if ! find "$work/tree" -name "$m.ko*" | grep -q .; then
		echo "build_ways: FAIL: dkms built no $m.ko"
		exit 1
	fi
done
echo "build_ways: dkms build hwt/$version for $kver: ok"
