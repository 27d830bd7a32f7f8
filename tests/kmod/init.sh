#!/bin/busybox sh
# /init of the test initramfs: load hwt.ko and the test backends, run the
# cases, check the kernel log, power off.
/bin/busybox --install -s /bin
echo
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /tmp && mount -t tmpfs tmp /tmp
echo 1 > /proc/sys/kernel/printk_devkmsg 2>/dev/null

# hwt.ko loaded as on a kernel without the functions its mmap and munmap
# hooks need: "hwt record --unit kmod" must warn about each feature off
# (STATS features_off). Then hwt.ko is loaded as before.
features_off() { # build, out, tmp (in /host)
	log=$2/features_off.err
	rmmod hwt_test && rmmod hwt &&
		insmod /hwt.ko pretend_missing=perf_event_mmap,do_vmi_munmap,do_mas_munmap &&
		insmod /hwt_test.ko && insmod /hwt_sw.ko || echo "KINFO features_off: reload failed"
	TMPDIR=$3 chroot /host "$1/bin/hwt" record --unit kmod -q -o "$2/features_off" -- /bin/true \
		> "/host$log" 2>&1
	st=$?
	grep -q 'cannot hook mmap()' "/host$log"; mm=$?
	grep -q 'cannot hook munmap()' "/host$log"; mu=$?
	if [ $st = 0 ] && [ $mm = 0 ] && [ $mu = 0 ]; then
		echo "KTEST record.features_off PASS"
	else
		echo "KTEST record.features_off FAIL status $st, mmap warning $mm, munmap warning $mu: $(tr '\n' ' ' < "/host$log")"
	fi
	rmmod hwt_sw; rmmod hwt_test; rmmod hwt
	insmod /hwt.ko && insmod /hwt_test.ko || echo "KTEST features_off_reload FAIL"
}

ok=1
if insmod /hwt.ko; then echo "KTEST insmod_hwt PASS"; else echo "KTEST insmod_hwt FAIL"; ok=0; fi
if insmod /hwt_test.ko; then echo "KTEST insmod_hwt_test PASS"; else echo "KTEST insmod_hwt_test FAIL"; ok=0; fi
if [ $ok = 1 ]; then
	for i in $(seq 1 $(cat /ktest_repeat)); do
		[ -f /ktest_skip ] || /bin/hwt_ktest $(cat /ktest_args)
	done
fi

# The record phase (run_qemu.sh with a build directory): the host's file
# system read-only, the output directory writable, both over 9p.
if [ $ok = 1 ] && [ -f /record ]; then
	src=$(sed -n 1p /record) build=$(sed -n 2p /record) out=$(sed -n 3p /record)
	script=$(sed -n 4p /record)
	for m in $(cat /kmods/order); do
		insmod "/kmods/$m" || echo "KINFO insmod $m failed"
	done
	mkdir -p /host
	if mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose host /host &&
	   mount -t 9p -o trans=virtio,version=9p2000.L,cache=loose out "/host$out"; then
		mount -t proc proc /host/proc
		mount -t sysfs sys /host/sys
		mount --bind /dev /host/dev
		# A writable /tmp, unless the tree is under /tmp, which a tmpfs
		# there would hide: then a tmpfs at /run, named by TMPDIR.
		tmp=/tmp
		case "$src:$build:$out" in
		/tmp/* | *:/tmp/*) tmp=/run ;;
		esac
		mount -t tmpfs tmp "/host$tmp"
		features_off "$build" "$out" "$tmp"
		if insmod /hwt_sw.ko; then echo "KTEST insmod_hwt_sw PASS"; else echo "KTEST insmod_hwt_sw FAIL"; fi
		TMPDIR=$tmp chroot /host /bin/sh "$src/$script" "$build" "$out"
		umount "/host$tmp" /host/dev /host/sys /host/proc "/host$out" /host
		echo "KTEST mount_9p PASS"
	else
		echo "KTEST mount_9p FAIL"
	fi
	# Orphaned threads (hwt_sw.c) hold the module until they trap or exit.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmmod hwt_sw 2>/dev/null && break
		sleep 0.5
	done
	if grep -q '^hwt_sw ' /proc/modules; then echo "KTEST rmmod_hwt_sw FAIL"; else echo "KTEST rmmod_hwt_sw PASS"; fi
fi

# The test backend module is in use while a context exists; with none left
# both modules must unload.
# Context frees finish on a workqueue: give them a moment.
for i in 1 2 3 4 5 6 7 8 9 10; do
	rmmod hwt_test 2>/dev/null && break
	sleep 0.5
done
if ! grep -q '^hwt_test ' /proc/modules && rmmod hwt; then
	echo "KTEST rmmod PASS"
else
	echo "KTEST rmmod FAIL"
fi

bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|refcount_t:|list_add corruption|list_del corruption|INFO: task .* blocked|Call Trace|RIP:|UBSAN|hwt: leak')
if [ -z "$bad" ]; then
	echo "KTEST dmesg_clean PASS"
else
	echo "KTEST dmesg_clean FAIL"
	dmesg | tail -60 | sed 's/^/KINFO dmesg: /'
fi
echo "KTEST-DONE"
poweroff -f
