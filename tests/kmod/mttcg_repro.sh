#!/bin/bash
# Reproduces, without hwt.ko, the guest crash seen under QEMU's multi-threaded
# TCG (kmod/README.md, known gaps): Debian's kernel, two vCPUs, two processes
# mapping and unmapping executable pages on both CPUs while the shell arms and
# disarms ftrace-based kprobes on perf_event_mmap and do_mas_munmap (the
# functions hwt.ko probes) and the sched_switch tracepoint, through tracefs.
#   mttcg_repro.sh WORK_DIR [SECONDS] [ACCEL]
# ACCEL is QEMU's -accel value, default empty (multi-threaded TCG); pass
# tcg,thread=single to compare. Prints "crashed" (the console shows an oops)
# or "clean" and the number of arm/disarm rounds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
secs=${2:-120}
accel=${3:-}
kver=${HWT_KVER:-$(ls /boot/vmlinuz-*-amd64 | sed 's|.*/vmlinuz-||' | sort -V | tail -1)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/root"
mkdir -p "$work/root"/{bin,proc,sys,dev}
gcc -O2 -static -pthread -o "$work/root/bin/mmaploop" "$here/mmaploop.c"
cp /bin/busybox "$work/root/bin/"
echo "$secs" > "$work/root/secs"
cat > "$work/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs tracefs /sys/kernel/tracing
T=/sys/kernel/tracing
secs=$(cat /secs)
echo 'p:pmmap perf_event_mmap' >> $T/kprobe_events
echo 'p:pmunmap do_mas_munmap' >> $T/kprobe_events
/bin/mmaploop $secs /bin/mmaploop &
/bin/mmaploop $secs /bin/busybox &
end=$(( $(date +%s) + secs ))
n=0
while [ $(date +%s) -lt $end ]; do
	for v in 1 0; do
		echo $v > $T/events/kprobes/pmmap/enable
		echo $v > $T/events/kprobes/pmunmap/enable
		echo $v > $T/events/sched/sched_switch/enable
	done
	n=$((n + 1))
done
wait
echo "REPRO rounds $n"
poweroff -f
INIT
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"
set +e
timeout --foreground -k 5 $((secs + 120)) qemu-system-x86_64 ${accel:+-accel $accel} -smp 2 -m 512 \
	-nographic -no-reboot -net none -kernel "/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet loglevel=7 panic=-1 softlockup_panic=1" < /dev/null > "$work/console.log" 2>&1
set -e
tr -d '\r' < "$work/console.log" > "$work/console.txt"
rounds=$(sed -n 's/^REPRO rounds //p' "$work/console.txt")
if grep -qE 'BUG:|Oops|general protection|RIP:' "$work/console.txt"; then
	echo "crashed (rounds ${rounds:-?}; $work/console.txt)"
	grep -m1 -A12 -E 'BUG:|Oops|general protection' "$work/console.txt"
else
	echo "clean (rounds ${rounds:-?})"
fi
