#!/bin/bash
# Runs the hwt.ko tests: builds the modules and the test programs, packs them
# with busybox into an initramfs, boots Debian's kernel under QEMU (TCG, two
# CPUs), runs every case inside and turns the case lines the guest prints
# ("KTEST <case> PASS|FAIL ...") into an exit status.
#   run_qemu.sh SRC_ROOT WORK_DIR [BUILD_DIR]
# With BUILD_DIR (the CMake build of SRC_ROOT), the guest then mounts the
# host's file system read-only over 9p, chroots into it and records with
# the kernel unit (guest_record.sh) into WORK_DIR/out, which the host checks
# afterwards (check_records.sh).
# A kernel version ending in -arm64 boots Debian's arm64 kernel in
# qemu-system-aarch64 (virt machine, TCG) with the modules and test programs
# cross-built, from what scripts/setup_arm64.sh unpacks under HWT_ARM64_ROOT
# (default /opt/hwt-arm64): the framework's cases only (hwt_sw.ko and the
# record phase are x86-64 only); exit 77 (skipped) when a piece is missing.
# Environment: HWT_KVER (kernel version; default the newest /boot/vmlinuz-*-amd64),
# HWT_KIMAGE, HWT_KDIR, HWT_KMODULES (its image, headers' build directory and
# modules; default where Debian installs them),
# HWT_QEMU_TIMEOUT (seconds, default 300), HWT_KTEST_ARGS (cases to run),
# HWT_KTEST_REPEAT (runs of the cases in one boot, default 1), HWT_KTEST=0 (no cases),
# HWT_GUEST_SCRIPT (what the guest runs chrooted instead of guest_record.sh; no checks),
# HWT_KMOD_ORACLES (what tests/kmod/oracles.sh wrote; default: it runs into WORK_DIR/out/host),
# HWT_QEMU_ACCEL (QEMU -accel value; empty for QEMU's default, multi-threaded TCG),
# HWT_QEMU_APPEND (more kernel parameters), HWT_QEMU_OPTS (more QEMU options,
# e.g. -monitor unix:PATH,server=on,wait=off to inspect a hung guest).
set -euo pipefail

root=$(cd "$1" && pwd)
work=$2
build=${3:+$(cd "$3" && pwd)}
# Two vCPUs on one host thread: faster here than multi-threaded TCG on a busy
# 2-core host, and see kmod/README.md (known gaps) on MTTCG.
accel=${HWT_QEMU_ACCEL-tcg,thread=single}
kver=${HWT_KVER:-$(ls /boot/vmlinuz-*-amd64 | sed 's|.*/vmlinuz-||' | sort -V | tail -1)}
here=$root/tests/kmod

# What differs between the guest architectures: compiler, busybox, QEMU.
case "$kver" in
*-arm64)
	arch=aarch64
	arm64_root=${HWT_ARM64_ROOT:-/opt/hwt-arm64}
	kernel=${HWT_KIMAGE:-$arm64_root/boot/vmlinuz-$kver}
	kmodules=${HWT_KMODULES:-$arm64_root/lib/modules/$kver}
	cc=aarch64-linux-gnu-gcc objcopy=aarch64-linux-gnu-objcopy
	sysroot=/usr/aarch64-linux-gnu
	busybox=$arm64_root/bin/busybox
	# cortex-a57: TCG emulates it faster than "max" (no pointer authentication).
	qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57)
	console=ttyAMA0
	arch_append=
	modules="hwt.ko hwt_test.ko"
	for need in "$kernel" "$busybox" "$sysroot/lib/libc.so.6"; do
		[ -e "$need" ] || { echo "kmod: $need not found (scripts/setup.sh --tests): skipped"; exit 77; }
	done
	for need in "$cc" qemu-system-aarch64; do
		command -v "$need" >/dev/null || { echo "kmod: $need not installed (scripts/setup.sh --tests): skipped"; exit 77; }
	done
	# The record phase runs hwt_sw.ko and the host's x86-64 programs.
	record=0
	;;
*)
	arch=x86_64
	kernel=${HWT_KIMAGE:-/boot/vmlinuz-$kver}
	kmodules=${HWT_KMODULES:-/lib/modules/$kver}
	cc=gcc objcopy=objcopy sysroot=
	busybox=/bin/busybox
	qemu=(qemu-system-x86_64)
	console=ttyS0
	# Under a load of 20 the boot-time timer check panicked the guest
	# ("IO-APIC + timer doesn't work!"); the option is the x86 kernel's.
	arch_append=no_timer_check
	modules="hwt.ko hwt_test.ko hwt_sw.ko"
	record=${build:+1}
	;;
esac
timeout_s=${HWT_QEMU_TIMEOUT:-$([ "${record:-0}" = 1 ] && echo 1500 || echo 300)}

t0=$(date +%s)
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/initramfs"
mkdir -p "$work/initramfs"/{bin,sbin,dev,proc,sys,tmp,lib,lib64,etc,opt/t/.debug}

# With BUILD_DIR, in the build's own tree of the modules for this kernel (the
# hwt_kmod target, kmod/CMakeLists.txt): make finds them up to date, or
# rebuilds what changed since, rather than building them all once more.
kbuild=$work/kbuild
if [ -n "$build" ] && [ -z "${HWT_KDIR:-}" ] && [ -d "$build/kmod/kbuild-$kver" ]; then
	kbuild=$build/kmod/kbuild-$kver
fi
echo "kmod: building modules for $kver in $kbuild"
"$root/kmod/kbuild.sh" "$root/kmod" "$kbuild" "$kver" 2> >(grep -v 'Skipping BTF' >&2)

echo "kmod: building test programs"
cflags=(-O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -I"$root/kmod/include/uapi" -I"$root/common" -pthread)
$cc "${cflags[@]}" -static -o "$work/initramfs/bin/hwt_ktest" "$here"/hwt_ktest.c \
	"$root/common/hwt_record.c" "$root/common/crc32.c"
$cc "${cflags[@]}" -fPIC -shared -o "$work/initramfs/lib/libhwtt.so" "$here/libhwtt.c"
$cc "${cflags[@]}" -o "$work/initramfs/bin/hwt_dyn" "$here/hwt_dyn.c" -ldl
# Set-user-ID root: the exec that must end THREAD-mode tracing for an
# unprivileged owner. The archive lists every file as root's (-R 0:0), so
# this holds when the harness does not run as root too.
$cc "${cflags[@]}" -static -o "$work/initramfs/bin/hwt_suid" "$here/hwt_suid.c"
chmod 4755 "$work/initramfs/bin/hwt_suid"

# Selection (HWT_CFG_SELECT): one program outside the system directories,
# with DWARF (selected), stripped (not: "no debug info"), stripped with a
# .gnu_debuglink to /opt/t/.debug/, and a variant of its own build-id
# stripped with its debug file under /usr/lib/debug/.build-id/.
opt=$work/initramfs/opt/t
$cc "${cflags[@]}" -static -o "$opt/hwt_sel_dbg" "$here/hwt_sel.c"
$objcopy --strip-debug "$opt/hwt_sel_dbg" "$opt/hwt_sel_nodbg"
$objcopy --only-keep-debug "$opt/hwt_sel_dbg" "$opt/.debug/hwt_sel_link.debug"
(cd "$opt/.debug" && $objcopy --strip-debug --add-gnu-debuglink=hwt_sel_link.debug \
	"$opt/hwt_sel_dbg" "$opt/hwt_sel_link")
$cc "${cflags[@]}" -static -DHWT_SEL_VARIANT='"build-id"' -o "$work/hwt_sel_bid_full" "$here/hwt_sel.c"
$objcopy --strip-debug "$work/hwt_sel_bid_full" "$opt/hwt_sel_bid"
bid=$(readelf -n "$opt/hwt_sel_bid" | sed -n 's/^ *Build ID: *//p' | head -1)
mkdir -p "$work/initramfs/usr/lib/debug/.build-id/${bid:0:2}"
$objcopy --only-keep-debug "$work/hwt_sel_bid_full" \
	"$work/initramfs/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
for f in hwt_sel_nodbg hwt_sel_link hwt_sel_bid; do
	if readelf -S "$opt/$f" | grep -q 'debug_info'; then
		echo "kmod: FAIL: /opt/t/$f still has .debug_info"
		exit 1
	fi
done

# The dynamically linked program needs its interpreter and libraries:
# "HOST_FILE GUEST_PATH" lines (ldd's; for a cross-built one, from readelf
# and the cross toolchain's libraries, under the multiarch directory).
dyn_libs() {
	local lib
	if [ -z "$sysroot" ]; then
		for lib in $(ldd "$1" | grep -o '/[^ ]*'); do echo "$lib $lib"; done
		return
	fi
	lib=$(readelf -l "$1" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	echo "$sysroot/lib/$(basename "$lib") $lib"
	for lib in $(readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		echo "$sysroot/lib/$lib /lib/$arch-linux-gnu/$lib"
	done
}
dyn_libs "$work/initramfs/bin/hwt_dyn" > "$work/dyn_libs"
while read -r lib guest; do
	mkdir -p "$work/initramfs$(dirname "$guest")"
	cp -L "$lib" "$work/initramfs$guest"
done < "$work/dyn_libs"

# Build-ids of the test's ELF files as readelf sees them: "PATH HEX" lines in
# /buildids, to compare with those of MMAP records.
for f in /bin/hwt_dyn /bin/hwt_ktest /lib/libhwtt.so $(cut -d' ' -f2 "$work/dyn_libs"); do
	id=$(readelf -n "$work/initramfs$f" | sed -n 's/^ *Build ID: *//p' | head -1)
	[ -n "$id" ] && echo "$f $id"
done > "$work/initramfs/buildids"

cp "$busybox" "$work/initramfs/bin/busybox"
for m in $modules; do cp "$kbuild/$m" "$work/initramfs/"; done

# The record phase: 9p over virtio, the modules in load order (dependencies
# first; those not found are built in), uncompressed for busybox's insmod.
qemu_9p=()
if [ "$record" = 1 ]; then
	seen="" order=""
	add_module() {
		local f d
		case " $seen " in *" $1 "*) return;; esac
		seen="$seen $1"
		f=$(find "$kmodules/kernel" -name "$1.ko" -o -name "$1.ko.xz" | head -1)
		[ -n "$f" ] || return 0
		for d in $(modinfo -F depends "$f" | tr ',' ' '); do add_module "$d"; done
		order="$order $f"
	}
	for m in virtio_pci 9pnet_virtio 9p; do add_module "$m"; done
	mkdir -p "$work/initramfs/kmods"
	: > "$work/initramfs/kmods/order"
	for f in $order; do
		name=$(basename "$f" .xz)
		case "$f" in
		*.xz) xz -dc "$f" > "$work/initramfs/kmods/$name";;
		*) cp "$f" "$work/initramfs/kmods/$name";;
		esac
		echo "$name" >> "$work/initramfs/kmods/order"
	done
	rm -rf "$work/out"
	mkdir -p "$work/out"
	printf '%s\n%s\n%s\n%s\n' "$root" "$build" "$work/out" \
		"${HWT_GUEST_SCRIPT:-tests/kmod/guest_record.sh}" > "$work/initramfs/record"
	qemu_9p=(-virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"
		 -virtfs "local,path=$work/out,mount_tag=out,security_model=none")
fi
cp "$here/init.sh" "$work/initramfs/init"
chmod +x "$work/initramfs/init"
echo "${HWT_KTEST_ARGS:-}" > "$work/initramfs/ktest_args"
[ "${HWT_KTEST:-1}" = 0 ] && touch "$work/initramfs/ktest_skip"
echo "${HWT_KTEST_REPEAT:-1}" > "$work/initramfs/ktest_repeat"
(cd "$work/initramfs" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$work/initrd.gz"
# The kernel unpacks owner and mode as archived (chown, then chmod) onto a
# rootfs mounted without nosuid; make sure the archive has the bit.
if ! gzip -dc "$work/initrd.gz" | cpio -itv --quiet 2>/dev/null |
	grep -qE '^-rws..x..x +[0-9]+ root +root .* bin/hwt_suid$'; then
	echo "kmod: FAIL: bin/hwt_suid is not set-user-ID root in the initramfs"
	exit 1
fi
t1=$(date +%s)

echo "kmod: booting $kernel (timeout ${timeout_s}s)"
set +e
timeout --foreground -k 5 "$timeout_s" "${qemu[@]}" ${accel:+-accel $accel} ${HWT_QEMU_OPTS:-} \
	-smp 2 -m 1024 -nographic -no-reboot -net none "${qemu_9p[@]}" \
	-kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=$console quiet loglevel=5 panic=-1 softlockup_panic=1 watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 $arch_append ${HWT_QEMU_APPEND:-}" < /dev/null > "$work/console.log" 2>&1
qrc=$?
set -e
t2=$(date +%s)
tr -d '\r' < "$work/console.log" | sed -E 's/\x1b(\[[0-9;?]*[a-zA-Z]|c)//g' > "$work/console.txt"

grep -oE '(KTEST|KINFO).*' "$work/console.txt" || true
pass=$(grep -cE 'KTEST [^ ]+ PASS' "$work/console.txt" || true)
fail=$(grep -cE 'KTEST [^ ]+ FAIL' "$work/console.txt" || true)
done_line=$(grep -c 'KTEST-DONE' "$work/console.txt" || true)
echo "kmod: build+initramfs $((t1 - t0))s, boot+tests $((t2 - t1))s"
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "kmod: FAIL: the guest did not power off within ${timeout_s}s (last console lines follow)"
	tail -40 "$work/console.txt"
	fail=$((fail + 1))
elif [ "$done_line" -eq 0 ]; then
	echo "kmod: FAIL: the guest stopped before the tests finished (qemu status $qrc; last console lines follow)"
	tail -40 "$work/console.txt"
	fail=$((fail + 1))
fi
if [ "$pass" -eq 0 ]; then
	fail=$((fail + 1))
fi
# What the guest recorded, checked on the host against the oracles.
if [ "$record" = 1 ] && [ "$done_line" -gt 0 ] && [ -z "${HWT_GUEST_SCRIPT:-}" ]; then
	"$here/check_records.sh" "$root" "$build" "$work/out" ${HWT_KMOD_ORACLES:-} | tee "$work/check.txt"
	pass=$((pass + $(grep -c '^CHECK [^ ]* PASS' "$work/check.txt" || true)))
	fail=$((fail + $(grep -c '^CHECK [^ ]* FAIL' "$work/check.txt" || true)))
fi
# The failing cases again, last: a long log is often cut in the middle.
if [ "$fail" -gt 0 ]; then
	grep -ohE '(KTEST [^ ]+ FAIL|^CHECK [^ ]+ FAIL).*' "$work/console.txt" "$work/check.txt" 2>/dev/null |
		sed 's/^/kmod: failed: /' || true
fi
echo "kmod: $pass passed, $fail failed (console log: $work/console.txt)"
[ "$fail" -eq 0 ]
