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
	if insmod /hwt_sw.ko; then echo "KTEST insmod_hwt_sw PASS"; else echo "KTEST insmod_hwt_sw FAIL"; fi
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
