#!/bin/bash
# What hwt.ko costs tasks it does not trace, measured in the guest the kernel
# tests boot (Debian's kernel, QEMU TCG, two vCPUs): fork+exec+exit,
# mmap/munmap of an executable file mapping, and a pipe ping-pong between
# two untraced processes, each
#   nomod: hwt.ko not loaded
#   ctx0:  hwt.ko and hwt_test.ko loaded, no context
#   ctx1:  one THREAD-mode context alive, tracing some other (sleeping) process
# in ROUNDS rounds that alternate the three. The guest runs with QEMU's
# -icount (HWT_BENCH_ICOUNT, default shift=0,align=off,sleep=off): its
# clock counts the instructions it executes, not the host's time, so the
# figures are instructions (ns at 1 GHz) and a loaded host does not move
# them (without it, on the shared 2-core host, rounds varied by +-30%).
# The work runs on CPU 0 (children inherit it). Prints
# each round and, per work, the median of the rounds and the overheads of
# ctx0 and ctx1 over nomod.
#   untraced.sh SRC_ROOT WORK_DIR
# Environment: HWT_KVER (default the newest /boot/vmlinuz-*-amd64),
# HWT_BENCH_KBUILD (a built tree of the modules for that kernel, e.g.
# BUILD/kmod/kbuild-KVER; default: built into WORK_DIR/kbuild),
# ROUNDS (5), FORKS (200), MMAPS (20000), PINGS (20000), HWT_QEMU_TIMEOUT (1800).
set -euo pipefail

root=$(cd "$1" && pwd)
work=$2
kver=${HWT_KVER:-$(ls /boot/vmlinuz-*-amd64 | sed 's|.*/vmlinuz-||' | sort -V | tail -1)}
rounds=${ROUNDS:-5} forks=${FORKS:-200} maps=${MMAPS:-20000} pings=${PINGS:-20000}
mkdir -p "$work"
work=$(cd "$work" && pwd)
kbuild=${HWT_BENCH_KBUILD:-$work/kbuild}
if [ -z "${HWT_BENCH_KBUILD:-}" ]; then
	"$root/kmod/kbuild.sh" "$root/kmod" "$kbuild" "$kver" 2> >(grep -v 'Skipping BTF' >&2)
fi
rm -rf "$work/initramfs"
mkdir -p "$work/initramfs"/{bin,dev,proc,sys,tmp}
gcc -O2 -Wall -Wextra -Werror -static -I"$root/kmod/include/uapi" \
	-o "$work/initramfs/bin/untraced_bench" "$root/bench/kmod/untraced_bench.c"
cp /bin/busybox "$work/initramfs/bin/busybox"
cp "$kbuild/hwt.ko" "$kbuild/hwt_test.ko" "$work/initramfs/"
cat > "$work/initramfs/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
b="/bin/untraced_bench"
\$b warm none 50 1000 1000 > /dev/null
for r in \$(seq 1 $rounds); do
	\$b nomod none $forks $maps $pings | sed "s/^/R\$r /"
	insmod /hwt.ko && insmod /hwt_test.ko || echo "BENCH-FAIL insmod"
	\$b ctx0 none $forks $maps $pings | sed "s/^/R\$r /"
	\$b ctx1 ctx $forks $maps $pings | sed "s/^/R\$r /"
	for i in 1 2 3 4 5 6 7 8 9 10; do rmmod hwt_test 2>/dev/null && break; sleep 0.5; done
	rmmod hwt || echo "BENCH-FAIL rmmod"
done
dmesg | grep -E 'WARNING:|BUG:|Oops|hwt: leak' | sed 's/^/BENCH-FAIL dmesg: /'
echo BENCH-DONE
poweroff -f
INIT
chmod +x "$work/initramfs/init"
(cd "$work/initramfs" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$work/initrd.gz"
echo "untraced: booting $kver: $rounds rounds of $forks fork+exec, $maps mmap/munmap, $pings ping-pongs"
set +e
icount=${HWT_BENCH_ICOUNT-shift=0,align=off,sleep=off}
timeout --foreground -k 5 "${HWT_QEMU_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg,thread=single \
	${icount:+-icount $icount} \
	-smp 2 -m 1024 -nographic -no-reboot -net none \
	-kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet loglevel=5 panic=-1 watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120" \
	< /dev/null > "$work/console.log" 2>&1
set -e
tr -d '\r' < "$work/console.log" > "$work/console.txt"
grep -E '^R[0-9]+ BENCH ' "$work/console.txt" | sed 's/^/untraced: /'
if grep -q BENCH-FAIL "$work/console.txt" || ! grep -q BENCH-DONE "$work/console.txt"; then
	grep BENCH-FAIL "$work/console.txt" || echo "untraced: the guest did not finish"
	exit 1
fi
# Medians per (config, work); overheads of ctx0 and ctx1 over nomod.
grep -E '^R[0-9]+ BENCH ' "$work/console.txt" | awk '
	{ v[$3 " " $4] = v[$3 " " $4] " " $5 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		split("fork_exec_exit mmap_munmap pipe_pingpong", w, " ")
		for (k = 1; k <= 3; k++) {
			m0 = median(v["nomod " w[k]]); m1 = median(v["ctx0 " w[k]])
			m2 = median(v["ctx1 " w[k]])
			printf "untraced: %-15s median ns/op: nomod %.0f  ctx0 %.0f (%+.1f%%)  ctx1 %.0f (%+.1f%%)\n",
				w[k], m0, m1, 100 * (m1 - m0) / m0, m2, 100 * (m2 - m0) / m0
		}
	}'
