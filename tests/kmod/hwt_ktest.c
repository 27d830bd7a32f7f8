/*
 * hwt.ko tests, run as root inside the QEMU guest after insmod hwt.ko and
 * hwt_test.ko. Each case runs in its own process group with a time limit
 * and prints "KTEST <case> PASS|FAIL <detail>"; run_qemu.sh counts them.
 *   hwt_ktest [case...]     (no argument: every case)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwt_ioctl.h"
#include "hwt_record.h"
#include "hwt_test_entry.h"

#define DYN "/bin/hwt_dyn"
#define LIB "/lib/libhwtt.so"
#define SELF "/bin/hwt_ktest"
#define SUID "/bin/hwt_suid"
#define BUSYBOX "/bin/busybox"
#define SEL_DBG "/opt/t/hwt_sel_dbg"		/* with DWARF */
#define SEL_NODBG "/opt/t/hwt_sel_nodbg"	/* stripped */
#define SEL_LINK "/opt/t/hwt_sel_link"		/* stripped, .gnu_debuglink to .debug/ */
#define SEL_BID "/opt/t/hwt_sel_bid"		/* stripped, debug file by build-id */
/* The guest architecture's dynamic loader and libc, where run_qemu.sh puts them. */
#if defined(__aarch64__)
#define LDSO "/lib/ld-linux-aarch64.so.1"
#define LDSO_MULTIARCH "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"
#define LIBC "/lib/aarch64-linux-gnu/libc.so.6"
#else
#define LDSO "/lib64/ld-linux-x86-64.so.2"
#define LDSO_MULTIARCH "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#endif
#define HWT_RULE_WHY_SET_ID_TEXT "setuid or setgid: the trace unit cannot run it with its privileges"
/*
 * No check depends on how fast the guest runs: cases wait for states (a
 * record, a count, a handshake), and these limits only catch hangs. A wait
 * gives up after HANG_MS with a message naming what it waited for; a case
 * is killed after CASE_TIMEOUT_MS.
 */
#define HANG_MS 60000
#define CASE_TIMEOUT_MS (4 * HANG_MS)

static char failmsg[1024];
static int nsubfail;

static void failf(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(failmsg, sizeof(failmsg), "line %d: ", line);

	va_start(ap, fmt);
	vsnprintf(failmsg + n, sizeof(failmsg) - n, fmt, ap);
	va_end(ap);
}

#define CHECK(c, ...)                                   \
	do {                                            \
		if (!(c)) {                             \
			failf(__LINE__, __VA_ARGS__);   \
			return 1;                       \
		}                                       \
	} while (0)

/* State shared between a case, its targets and helper collectors. */
struct shared {
	volatile int step;
	volatile pid_t a_tid, b_tid;
	volatile int a_done, b_anon, b_done;
	volatile uint64_t a_addr, b_addr;
	volatile int flag;
	char msg[1024];		/* failure message of a case's helper process */
};
static struct shared *shm;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Prints one sub-case line; counts failures for the case. */
static void sub(const char *name, int ok, const char *fmt, ...)
{
	char msg[256] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	printf("KTEST %s %s %s\n", name, ok ? "PASS" : "FAIL", msg);
	fflush(stdout);
	if (!ok)
		nsubfail++;
}

/* ---- ioctl helpers ---- */

static int dev_open(void)
{
	return open(HWT_DEVICE, O_RDWR | O_CLOEXEC);
}

static void alloc_init(struct hwt_alloc *a, const char *backend, uint32_t mode)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->mode = mode;
	snprintf(a->backend_name, sizeof(a->backend_name), "%s", backend);
	a->bufsize = 65536;
}

/* HWT_IOC_ALLOC on a fresh /dev/hwt fd; returns the context fd or -errno. */
static int do_alloc(struct hwt_alloc *a)
{
	int dev = dev_open(), fd, e;

	if (dev < 0)
		return -errno;
	fd = ioctl(dev, HWT_IOC_ALLOC, a);
	e = errno;
	close(dev);
	return fd < 0 ? -e : fd;
}

static int ctx_thread(const char *backend, pid_t pid, uint32_t flags, uint64_t bufsize)
{
	struct hwt_alloc a;

	alloc_init(&a, backend, HWT_MODE_THREAD);
	a.pid = pid;
	a.flags = flags;
	a.bufsize = bufsize;
	return do_alloc(&a);
}

static int ctx_cpu(const char *backend, unsigned long mask, uint64_t bufsize)
{
	unsigned long set[2] = { mask, 0 };
	struct hwt_alloc a;

	alloc_init(&a, backend, HWT_MODE_CPU);
	a.cpu_map = (uintptr_t)set;
	a.cpusetsize = sizeof(set);
	a.bufsize = bufsize;
	return do_alloc(&a);
}

static int set_config(int fd, uint32_t flags, uint32_t timeout_ms)
{
	struct hwt_config c = { .size = sizeof(c), .flags = flags, .pause_timeout_ms = timeout_ms };

	return ioctl(fd, HWT_IOC_SET_CONFIG, &c) ? -errno : 0;
}

static int wakeup(int fd, pid_t tid)
{
	struct hwt_wakeup w = { .size = sizeof(w), .tid = tid };

	return ioctl(fd, HWT_IOC_WAKEUP, &w) ? -errno : 0;
}

static int bufptr(int fd, uint32_t id, struct hwt_bufptr *bp)
{
	memset(bp, 0, sizeof(*bp));
	bp->size = sizeof(*bp);
	bp->id = id;
	return ioctl(fd, HWT_IOC_BUFPTR, bp) ? -errno : 0;
}

static int get_stats(struct hwt_stats *s)
{
	int dev = dev_open(), r;

	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	r = ioctl(dev, HWT_IOC_STATS, s);
	close(dev);
	return r;
}

/* Waits until the module holds no object (frees are deferred to a workqueue). */
static int stats_settle(struct hwt_stats *s, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;

	for (;;) {
		get_stats(s);
		if (!s->contexts && !s->threads && !s->buffers && !s->works && !s->paused)
			return 0;
		if (now_ms() > end)
			return -1;
		sleep_ms(20);
	}
}

/* Waits until @n threads are paused (STATS); 0 when they are, -1 after HANG_MS. */
static int paused_wait(uint64_t n, struct hwt_stats *s)
{
	uint64_t end = now_ms() + HANG_MS;

	for (;;) {
		get_stats(s);
		if (s->paused == n)
			return 0;
		if (now_ms() > end)
			return -1;
		sleep_ms(5);
	}
}

/* ---- kernel-side object counts: hwt.ko's slab caches and vmalloc areas ---- */

/* The module's caches (kmod/hwt_cache.h): every per-context and per-thread object. */
static const char *const slab_names[] = { "hwt_context", "hwt_thread", "hwt_buffer", "hwt_cpus",
					  "hwt_select" };
#define SLAB_SELECT 4	/* used by the selection cases only, not by churn */
#define NSLAB (int)(sizeof(slab_names) / sizeof(slab_names[0]))

struct kcounts {
	long slab[NSLAB];	/* active_objs in /proc/slabinfo */
	long vm_areas;		/* /proc/vmallocinfo areas allocated by hwt.ko: */
	long vm_bytes;		/* record queues and trace buffers */
};

static struct kcounts kbase;	/* before the first case */
static int kbase_ok;

/*
 * SLUB counts the objects of per-CPU slabs as active whether or not they
 * are allocated: shrinking the cache first flushes those slabs (and frees
 * empty ones), so active_objs is then the number of live objects.
 */
static void slab_shrink(void)
{
	char path[128];
	int i, fd;

	for (i = 0; i < NSLAB; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", slab_names[i]);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) != 1)
			perror(path);
		close(fd);
	}
}

/*
 * Reads the counts; -1 with the name in @err if a cache is not listed under
 * its own name (a cache merged into another would show only that one).
 */
static int kcounts_read(struct kcounts *k, char *err, size_t errlen)
{
	char line[512], name[64];
	int seen[NSLAB] = { 0 };
	long active, bytes;
	FILE *f;
	int i;

	memset(k, 0, sizeof(*k));
	slab_shrink();
	f = fopen("/proc/slabinfo", "r");
	if (!f) {
		snprintf(err, errlen, "/proc/slabinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &active) != 2)
			continue;
		for (i = 0; i < NSLAB; i++) {
			if (strcmp(name, slab_names[i]) == 0) {
				k->slab[i] = active;
				seen[i] = 1;
			}
		}
	}
	fclose(f);
	for (i = 0; i < NSLAB; i++) {
		if (!seen[i]) {
			snprintf(err, errlen, "cache %s not in /proc/slabinfo", slab_names[i]);
			return -1;
		}
	}
	f = fopen("/proc/vmallocinfo", "r");
	if (!f) {
		snprintf(err, errlen, "/proc/vmallocinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, " [hwt]"))
			continue;
		if (sscanf(line, "%*s %ld", &bytes) == 1) {
			k->vm_areas++;
			k->vm_bytes += bytes;
		}
	}
	fclose(f);
	return 0;
}

static int kcounts_equal(const struct kcounts *a, const struct kcounts *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static void kcounts_max(struct kcounts *peak, const struct kcounts *k)
{
	int i;

	for (i = 0; i < NSLAB; i++)
		if (k->slab[i] > peak->slab[i])
			peak->slab[i] = k->slab[i];
	if (k->vm_areas > peak->vm_areas) {
		peak->vm_areas = k->vm_areas;
		peak->vm_bytes = k->vm_bytes;
	}
}

/* Samples the counts while objects are live (for the peak figures). */
static void kcounts_sample(struct kcounts *peak)
{
	struct kcounts k;
	char err[128];

	if (peak && kcounts_read(&k, err, sizeof(err)) == 0)
		kcounts_max(peak, &k);
}

/* "name before/peak/after ..." (peak omitted when NULL). */
static void kcounts_fmt(char *buf, size_t len, const struct kcounts *before,
			const struct kcounts *peak, const struct kcounts *after)
{
	size_t n = 0;
	int i;

	for (i = 0; i < NSLAB && n < len; i++) {
		if (peak)
			n += snprintf(buf + n, len - n, "%s %ld/%ld/%ld ", slab_names[i],
				      before->slab[i], peak->slab[i], after->slab[i]);
		else
			n += snprintf(buf + n, len - n, "%s %ld/%ld ", slab_names[i],
				      before->slab[i], after->slab[i]);
	}
	if (n < len) {
		if (peak)
			snprintf(buf + n, len - n, "vmalloc %ld/%ld/%ld areas %ld/%ld/%ld bytes",
				 before->vm_areas, peak->vm_areas, after->vm_areas,
				 before->vm_bytes, peak->vm_bytes, after->vm_bytes);
		else
			snprintf(buf + n, len - n, "vmalloc %ld/%ld areas %ld/%ld bytes",
				 before->vm_areas, after->vm_areas, before->vm_bytes, after->vm_bytes);
	}
}

/*
 * Waits until the module's counters are zero and the kernel's counts are
 * back to @want (frees finish on hwt_wq and in task work); 0 when they are.
 */
static int kcounts_settle(const struct kcounts *want, struct kcounts *got, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	struct hwt_stats st;
	char err[128];

	for (;;) {
		int idle = stats_settle(&st, 0) == 0;

		if (kcounts_read(got, err, sizeof(err)) == 0 && idle && kcounts_equal(got, want))
			return 0;
		if (now_ms() > end)
			return -1;
		sleep_ms(50);
	}
}

/* ---- records ---- */

struct recs {
	unsigned char *buf;
	size_t len, cap;
	int corrupt;
};

static void recs_init(struct recs *r)
{
	r->cap = 8u << 20;
	r->buf = malloc(r->cap);
	r->len = 0;
	r->corrupt = 0;
}

/* Reads what arrives within timeout_ms; checks every record. */
static ssize_t recs_pump(int fd, struct recs *r, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t k;
	size_t off;

	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	k = read(fd, r->buf + r->len, r->cap - r->len);
	if (k <= 0)
		return k;
	for (off = r->len; off < r->len + (size_t)k;) {
		int64_t s = hwt_record_check(r->buf + off, r->len + k - off);

		if (s <= 0) {
			r->corrupt = 1;
			break;
		}
		off += s;
	}
	r->len += k;
	return k;
}

/* Drains the queue until it stays empty for quiet_ms. */
static void recs_drain(int fd, struct recs *r, int quiet_ms)
{
	while (recs_pump(fd, r, quiet_ms) > 0)
		;
}

typedef int (*rec_pred)(const struct hwt_record_header *h, const void *arg);

static const struct hwt_record_header *recs_find(struct recs *r, uint16_t type, rec_pred pred,
						 const void *arg)
{
	size_t off = 0;

	while (off + sizeof(struct hwt_record_header) <= r->len) {
		const struct hwt_record_header *h = (const void *)(r->buf + off);

		if (h->size < sizeof(*h))
			break;
		if (h->type == type && (!pred || pred(h, arg)))
			return h;
		off += h->size;
	}
	return NULL;
}

static int recs_count(struct recs *r, uint16_t type, rec_pred pred, const void *arg)
{
	size_t off = 0;
	int n = 0;

	while (off + sizeof(struct hwt_record_header) <= r->len) {
		const struct hwt_record_header *h = (const void *)(r->buf + off);

		if (h->size < sizeof(*h))
			break;
		if (h->type == type && (!pred || pred(h, arg)))
			n++;
		off += h->size;
	}
	return n;
}

static const struct hwt_record_header *recs_wait(int fd, struct recs *r, uint16_t type,
						 rec_pred pred, const void *arg, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	const struct hwt_record_header *h;

	for (;;) {
		h = recs_find(r, type, pred, arg);
		if (h || now_ms() > end)
			return h;
		recs_pump(fd, r, 20);
	}
}

static const char *rec_path(const struct hwt_record_header *h)
{
	if (h->type == HWT_RECORD_MMAP)
		return (const char *)((const struct hwt_record_mmap *)h + 1);
	if (h->type == HWT_RECORD_EXEC || h->type == HWT_RECORD_PROCESS_START)
		return (const char *)((const struct hwt_record_process *)h + 1);
	return "";
}

static int pred_path(const struct hwt_record_header *h, const void *arg)
{
	return strcmp(rec_path(h), arg) == 0;
}

static int pred_pid(const struct hwt_record_header *h, const void *arg)
{
	return h->pid == (uint32_t)*(const pid_t *)arg;
}

static int pred_tid(const struct hwt_record_header *h, const void *arg)
{
	return h->tid == (uint32_t)*(const pid_t *)arg;
}

struct tid_path {
	pid_t tid;
	const char *path;
};

static int pred_tid_path(const struct hwt_record_header *h, const void *arg)
{
	const struct tid_path *tp = arg;

	return h->tid == (uint32_t)tp->tid && strcmp(rec_path(h), tp->path) == 0;
}

/* ---- targets ---- */

struct target {
	pid_t pid;
	int go;
};

/* Forks a child that runs fn(arg) once target_go() is called. */
static int target_start(struct target *t, void (*fn)(void *), void *arg)
{
	int p[2];

	if (pipe(p))
		return -1;
	t->pid = fork();
	if (t->pid == 0) {
		char c;

		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(99);
		close(p[0]);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	t->go = p[1];
	return t->pid > 0 ? 0 : -1;
}

static void target_go(struct target *t)
{
	if (write(t->go, "g", 1) != 1)
		perror("target_go");
	close(t->go);
}

/* Exit status of the target, or -1 after timeout_ms. */
static int target_wait(struct target *t, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	int st;

	for (;;) {
		pid_t p = waitpid(t->pid, &st, WNOHANG);

		if (p == t->pid)
			return st;
		if (now_ms() > end)
			return -1;
		sleep_ms(5);
	}
}

static void fn_exec(void *arg)
{
	char **argv = arg;

	execv(argv[0], argv);
	_exit(98);
}

/* Maps two pages of hwt_dyn executable at file offset 4096, then unmaps them. */
static void *map_exec_file(void)
{
	int fd = open(DYN, O_RDONLY);
	void *p;

	if (fd < 0)
		return MAP_FAILED;
	p = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	close(fd);
	return p;
}

static void fn_mmap_exec(void *arg)
{
	void *p = map_exec_file();

	(void)arg;
	if (p == MAP_FAILED)
		_exit(97);
	shm->a_addr = (uintptr_t)p;
	shm->a_done = 1;
	munmap(p, 8192);
}

static void fn_wait_step(void *arg)
{
	(void)arg;
	while (shm->step == 0)
		sleep_ms(5);
}

static void *thread_body(void *arg)
{
	(void)arg;
	shm->b_tid = gettid_();
	return NULL;
}

static void fn_thread(void *arg)
{
	pthread_t th;

	(void)arg;
	if (pthread_create(&th, NULL, thread_body, NULL))
		_exit(96);
	pthread_join(th, NULL);
}

static void fn_fork(void *arg)
{
	pid_t c = fork();
	int st;

	(void)arg;
	if (c == 0)
		_exit(7);
	shm->b_tid = c;
	waitpid(c, &st, 0);
}

static void fn_switches(void *arg)
{
	int i, n = arg ? (int)(intptr_t)arg : 400;

	for (i = 0; i < n; i++)
		usleep(200);
}

/* ---- cases ---- */

static int t_alloc_thread(void)
{
	struct target t;
	struct hwt_bufptr bp;
	struct hwt_test_entry *e;
	void *m;
	int fd;

	shm->step = 0;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc THREAD mode: %s", strerror(-fd));
	CHECK(bufptr(fd, t.pid, &bp) == 0, "BUFPTR of the target: %s", strerror(errno));
	CHECK(bp.bufsize == 65536 && bp.offset == sizeof(*e), "bufptr size %llu offset %llu",
	      (unsigned long long)bp.bufsize, (unsigned long long)bp.offset);
	m = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(t.pid));
	CHECK(m != MAP_FAILED, "mmap of the thread buffer: %s", strerror(errno));
	e = m;
	CHECK(e->magic == HWT_TEST_MAGIC && e->id == (uint32_t)t.pid &&
	      e->what == HWT_TEST_THREAD_ALLOC && e->seq == 0,
	      "pattern: magic %x id %u what %u", e->magic, e->id, e->what);
	CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, HWT_MMAP_OFFSET(t.pid)) ==
	      MAP_FAILED && errno == EPERM, "writable mapping not refused (errno %d)", errno);
	CHECK(mprotect(m, 4096, PROT_READ | PROT_WRITE) != 0, "mprotect to writable allowed");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START: %s", strerror(errno));
	CHECK(ioctl(fd, HWT_IOC_START) < 0 && errno == EBUSY, "second START not EBUSY");
	target_go(&t);
	shm->step = 1;
	CHECK(target_wait(&t, HANG_MS) == 0, "target did not finish");
	CHECK(bufptr(fd, t.pid, &bp) == 0 && bp.offset > sizeof(*e),
	      "no switch entries after the target ran (offset %llu)", (unsigned long long)bp.offset);
	CHECK(e[1].magic == HWT_TEST_MAGIC && e[1].what == HWT_TEST_THREAD_IN,
	      "second entry what %u", e[1].what);
	CHECK(ioctl(fd, HWT_IOC_STOP) == 0, "STOP: %s", strerror(errno));
	CHECK(ioctl(fd, HWT_IOC_STOP) < 0 && errno == EINVAL, "second STOP not EINVAL");
	munmap(m, 65536);
	close(fd);
	return 0;
}

static int t_alloc_cpu(void)
{
	const struct hwt_record_header *h;
	struct hwt_test_entry *e;
	struct hwt_bufptr bp0, bp1;
	struct hwt_alloc a;
	struct recs r;
	struct target t1, t2;
	char *argv[] = { DYN, "exit", NULL };
	struct target tx;
	cpu_set_t set;
	int fd;
	void *m;

	recs_init(&r);
	fd = ctx_cpu("test", 3, 4096);
	CHECK(fd >= 0, "alloc CPU mode {0,1}: %s", strerror(-fd));
	/* The same set, passed as a cpu_set_t of glibc's size. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	alloc_init(&a, "test2", HWT_MODE_CPU);
	a.cpu_map = (uintptr_t)&set;
	a.cpusetsize = sizeof(set);
	{
		int fd2 = do_alloc(&a);

		CHECK(fd2 >= 0, "alloc CPU mode with a cpu_set_t: %s", strerror(-fd2));
		CHECK(a.ident != 0, "no ident");
		close(fd2);
	}
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START: %s", strerror(errno));
	/* Two processes pinned to CPU 0 switch a lot. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	target_start(&t1, fn_switches, (void *)(intptr_t)600);
	target_start(&t2, fn_switches, (void *)(intptr_t)600);
	target_start(&tx, fn_exec, argv);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	target_go(&t1);
	target_go(&t2);
	target_go(&tx);
	CHECK(target_wait(&t1, HANG_MS) == 0 && target_wait(&t2, HANG_MS) == 0 &&
	      target_wait(&tx, HANG_MS) == 0, "targets failed");
	CHECK(bufptr(fd, 0, &bp0) == 0 && bufptr(fd, 1, &bp1) == 0, "BUFPTR: %s", strerror(errno));
	CHECK(bp0.offset > 0 && bp1.offset > 0, "offsets %llu %llu",
	      (unsigned long long)bp0.offset, (unsigned long long)bp1.offset);
	CHECK(bp0.wraps > 0, "CPU 0 buffer never filled (offset %llu)", (unsigned long long)bp0.offset);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(0));
	CHECK(m != MAP_FAILED, "mmap CPU 0: %s", strerror(errno));
	e = m;
	CHECK(e->magic == HWT_TEST_MAGIC && e->cpu == 0, "pattern magic %x cpu %u", e->magic, e->cpu);
	CHECK(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(5)) == MAP_FAILED &&
	      errno == ENOENT, "mmap of CPU 5 not ENOENT");
	h = recs_wait(fd, &r, HWT_RECORD_BUFFER, NULL, NULL, HANG_MS);
	CHECK(h, "no BUFFER record");
	CHECK(((const struct hwt_record_buffer *)h)->offset % 4096 == 0, "BUFFER offset");
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, DYN, HANG_MS);
	CHECK(h, "CPU mode: no EXEC record of another process");
	CHECK(h->pid == (uint32_t)tx.pid, "EXEC pid %u, want %d", h->pid, tx.pid);
	CHECK(!r.corrupt, "corrupt record");
	munmap(m, 4096);
	close(fd);
	return 0;
}

/*
 * CPU mode, CPU by CPU: one process pinned to each CPU, each sleeping
 * SLEEPS times (a switch out and in each). Each CPU's buffer holds what
 * ran on that CPU: switches to its own process (at least half of SLEEPS),
 * none to the other's, and every entry stamped with that CPU.
 */
#define PER_CPU_SLEEPS 100
#define PER_CPU_BUF (256 * 1024)

static int per_cpu_count(int fd, int cpu, pid_t want, pid_t other, int *n_want)
{
	struct hwt_test_entry *e;
	struct hwt_bufptr bp;
	uint64_t i, n;
	int n_other = 0;
	void *m;

	CHECK(bufptr(fd, cpu, &bp) == 0, "BUFPTR of CPU %d: %s", cpu, strerror(errno));
	CHECK(bp.wraps == 0 && bp.offset <= PER_CPU_BUF, "CPU %d buffer wrapped", cpu);
	m = mmap(NULL, PER_CPU_BUF, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(cpu));
	CHECK(m != MAP_FAILED, "mmap CPU %d: %s", cpu, strerror(errno));
	e = m;
	n = bp.offset / sizeof(*e);
	*n_want = 0;
	for (i = 0; i < n; i++) {
		if (e[i].magic != HWT_TEST_MAGIC || e[i].cpu != (uint32_t)cpu ||
		    e[i].id != (uint32_t)cpu || e[i].seq != i) {
			munmap(m, PER_CPU_BUF);
			CHECK(0, "CPU %d entry %llu: magic %x cpu %u id %u seq %llu", cpu,
			      (unsigned long long)i, e[i].magic, e[i].cpu, e[i].id,
			      (unsigned long long)e[i].seq);
		}
		if (e[i].what != HWT_TEST_CPU_SWITCH)
			continue;
		*n_want += e[i].pid == (uint32_t)want;
		n_other += e[i].pid == (uint32_t)other;
	}
	munmap(m, PER_CPU_BUF);
	CHECK(n_other == 0, "CPU %d buffer: %d switches to pid %d, pinned to the other CPU",
	      cpu, n_other, other);
	return 0;
}

static int t_cpu_per_cpu(void)
{
	struct target t[2];
	cpu_set_t set;
	int fd, cpu, n[2];

	fd = ctx_cpu("test", 3, PER_CPU_BUF);
	CHECK(fd >= 0, "alloc CPU mode {0,1}: %s", strerror(-fd));
	for (cpu = 0; cpu < 2; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to CPU %d", cpu);
		CHECK(target_start(&t[cpu], fn_switches, (void *)(intptr_t)PER_CPU_SLEEPS) == 0,
		      "fork");
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START: %s", strerror(errno));
	target_go(&t[0]);
	target_go(&t[1]);
	CHECK(target_wait(&t[0], HANG_MS) == 0 && target_wait(&t[1], HANG_MS) == 0,
	      "targets failed");
	CHECK(ioctl(fd, HWT_IOC_STOP) == 0, "STOP: %s", strerror(errno));
	for (cpu = 0; cpu < 2; cpu++) {
		if (per_cpu_count(fd, cpu, t[cpu].pid, t[!cpu].pid, &n[cpu]))
			return 1;
		/* A sleep whose timer expired before schedule() switches nothing: half. */
		CHECK(n[cpu] >= PER_CPU_SLEEPS / 2, "CPU %d buffer: %d switches to its pid %d, want >= %d",
		      cpu, n[cpu], t[cpu].pid, PER_CPU_SLEEPS / 2);
	}
	printf("KINFO cpu_per_cpu: switches to the pinned process: CPU 0 %d, CPU 1 %d\n", n[0], n[1]);
	close(fd);
	return 0;
}

/*
 * START's kick (hwt_context_kick_threads): a thread that runs alone on its
 * CPU and never enters the kernel is sent into its task work, which enables
 * its unit there; without the kick it waited for its next switch-in. The
 * test backend stamps THREAD_IN with the task the enable ran in: the
 * target's own tid when its task work did it, another task's pid at a
 * switch-in. Up to three tries, in case something runs on its CPU between
 * START and the task work.
 */
static void fn_spin_flag(void *arg)
{
	(void)arg;
	while (!shm->flag)
		;
}

static int kick_try(pid_t *in_pid)
{
	struct hwt_test_entry *e;
	struct hwt_bufptr bp;
	uint64_t end = now_ms() + HANG_MS;
	struct target t;
	cpu_set_t set;
	void *m;
	int fd;

	shm->flag = 0;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to CPU 1");
	CHECK(target_start(&t, fn_spin_flag, NULL) == 0, "fork");
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to CPU 0");
	target_go(&t);
	fd = ctx_thread("test", t.pid, 0, 65536);
	m = fd >= 0 ? mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(t.pid)) : MAP_FAILED;
	if (m == MAP_FAILED) {
		shm->flag = 1;
		target_wait(&t, HANG_MS);
		CHECK(0, "alloc %d / mmap: %s", fd, strerror(fd < 0 ? -fd : errno));
	}
	e = m;
	/* Not a bound: a switch-in after START is less likely once it spins. */
	sleep_ms(50);
	bp.offset = 0;
	if (ioctl(fd, HWT_IOC_START) == 0)
		while (bufptr(fd, t.pid, &bp) == 0 && bp.offset < 2 * sizeof(*e) && now_ms() < end)
			sleep_ms(1);
	shm->flag = 1;
	CHECK(bp.offset >= 2 * sizeof(*e), "the spinning target was never enabled (offset %llu)",
	      (unsigned long long)bp.offset);
	CHECK(e[1].what == HWT_TEST_THREAD_IN, "entry 1 what %u", e[1].what);
	*in_pid = (pid_t)e[1].pid;
	munmap(m, 65536);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	close(fd);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	return *in_pid == t.pid ? 0 : 2;
}

static int t_attach_kick(void)
{
	pid_t in_pid = 0;
	int i, r = 2;

	for (i = 0; i < 3 && r == 2; i++) {
		r = kick_try(&in_pid);
		if (r == 2)
			printf("KINFO attach_kick: try %d enabled in pid %d's switch\n", i + 1, in_pid);
	}
	CHECK(r == 0, "the target was enabled at a switch-in (pid %d), not by its task work", in_pid);
	return 0;
}

static int expect_alloc_err(const char *name, struct hwt_alloc *a, int err)
{
	int fd = do_alloc(a);

	if (fd >= 0)
		close(fd);
	sub(name, fd == -err, "got %s, want %s", fd >= 0 ? "success" : strerror(-fd), strerror(err));
	return fd == -err;
}

static int t_bad_args(void)
{
	struct hwt_alloc a;
	unsigned char big[HWT_CPUSETSIZE_MAX + 8];
	unsigned long set[2];
	struct target t;
	struct hwt_config c;
	struct hwt_bufptr bp;
	char grown[sizeof(struct hwt_alloc) + 8];
	int dev, fd, r, ncpu = 0;
	FILE *f;

	nsubfail = 0;
	shm->step = 0;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	dev = dev_open();
	CHECK(dev >= 0, "open /dev/hwt");
	r = ioctl(dev, HWT_IOC_ALLOC, NULL);
	sub("bad_args.null_pointer", r < 0 && errno == EFAULT, "errno %d", errno);
	r = ioctl(dev, HWT_IOC_ALLOC, (void *)16);
	sub("bad_args.bad_pointer", r < 0 && errno == EFAULT, "errno %d", errno);
	r = ioctl(dev, _IO('h', 0x7f), NULL);
	sub("bad_args.unknown_ioctl", r < 0 && errno == ENOTTY, "errno %d", errno);

	alloc_init(&a, "test", HWT_MODE_THREAD);
	a.pid = t.pid;
	a.size = 8;
	expect_alloc_err("bad_args.size_small", &a, EINVAL);
	a.size = 1 << 20;
	expect_alloc_err("bad_args.size_huge", &a, E2BIG);
	memset(grown, 0, sizeof(grown));
	alloc_init((struct hwt_alloc *)grown, "test", HWT_MODE_THREAD);
	((struct hwt_alloc *)grown)->pid = t.pid;
	((struct hwt_alloc *)grown)->size = sizeof(grown);
	grown[sizeof(struct hwt_alloc) + 3] = 1;
	expect_alloc_err("bad_args.size_grown_nonzero_tail", (struct hwt_alloc *)grown, E2BIG);
	grown[sizeof(struct hwt_alloc) + 3] = 0;
	fd = do_alloc((struct hwt_alloc *)grown);
	sub("bad_args.size_grown_zero_tail_accepted", fd >= 0, "%s", fd < 0 ? strerror(-fd) : "");
	if (fd >= 0)
		close(fd);

	alloc_init(&a, "nope", HWT_MODE_THREAD);
	a.pid = t.pid;
	expect_alloc_err("bad_args.unknown_backend", &a, ENOENT);
	alloc_init(&a, "test", HWT_MODE_THREAD);
	memset(a.backend_name, 'x', sizeof(a.backend_name));
	a.pid = t.pid;
	expect_alloc_err("bad_args.backend_name_unterminated", &a, EINVAL);
	alloc_init(&a, "test", 0);
	a.pid = t.pid;
	expect_alloc_err("bad_args.mode_zero", &a, EINVAL);
	a.mode = 77;
	expect_alloc_err("bad_args.mode_unknown", &a, EINVAL);
	alloc_init(&a, "test", HWT_MODE_THREAD);
	a.pid = t.pid;
	a.bufsize = 0;
	expect_alloc_err("bad_args.bufsize_zero", &a, EINVAL);
	a.bufsize = 5000;
	expect_alloc_err("bad_args.bufsize_unaligned", &a, EINVAL);
	a.bufsize = 1ull << 40;
	expect_alloc_err("bad_args.bufsize_huge", &a, EINVAL);
	a.bufsize = 65536;
	a.recq_size = 3 << 12;
	expect_alloc_err("bad_args.recq_not_power_of_two", &a, EINVAL);
	a.recq_size = 0;
	a.flags = 0x80;
	expect_alloc_err("bad_args.flags_unknown", &a, EINVAL);
	a.flags = 0;
	a.reserved = 1;
	expect_alloc_err("bad_args.reserved_nonzero", &a, EINVAL);
	a.reserved = 0;
	a.pid = 0;
	expect_alloc_err("bad_args.pid_zero", &a, EINVAL);
	a.pid = -5;
	expect_alloc_err("bad_args.pid_negative", &a, EINVAL);
	a.pid = 4000000;
	expect_alloc_err("bad_args.pid_absent", &a, ESRCH);
	a.pid = t.pid;
	a.cpusetsize = 8;
	expect_alloc_err("bad_args.thread_with_cpuset", &a, EINVAL);

	/* CPU sets. */
	f = fopen("/sys/devices/system/cpu/possible", "r");
	if (f) {
		int lo = 0, hi = 0;

		if (fscanf(f, "%d-%d", &lo, &hi) == 2)
			ncpu = hi + 1;
		else
			ncpu = lo + 1;
		fclose(f);
	}
	alloc_init(&a, "test", HWT_MODE_CPU);
	set[0] = 1;
	set[1] = 0;
	a.cpu_map = (uintptr_t)set;
	a.cpusetsize = 0;
	expect_alloc_err("bad_args.cpusetsize_zero", &a, EINVAL);
	a.cpusetsize = 1u << 30;
	expect_alloc_err("bad_args.cpusetsize_huge", &a, EINVAL);
	a.cpusetsize = HWT_CPUSETSIZE_MAX + 8;
	memset(big, 0, sizeof(big));
	big[0] = 1;
	a.cpu_map = (uintptr_t)big;
	expect_alloc_err("bad_args.cpusetsize_over_max", &a, EINVAL);
	a.cpusetsize = HWT_CPUSETSIZE_MAX;
	fd = do_alloc(&a);
	sub("bad_args.cpusetsize_max_accepted", fd >= 0, "%s", fd < 0 ? strerror(-fd) : "");
	if (fd >= 0)
		close(fd);
	big[ncpu / 8] |= 1u << (ncpu % 8);	/* first CPU that is not possible */
	expect_alloc_err("bad_args.cpuset_beyond_possible", &a, EINVAL);
	big[ncpu / 8] = 0;
	big[1000] = 0x10;
	expect_alloc_err("bad_args.cpuset_far_beyond_possible", &a, EINVAL);
	memset(big, 0, sizeof(big));
	expect_alloc_err("bad_args.cpuset_empty", &a, EINVAL);
	a.cpu_map = 16;
	a.cpusetsize = 8;
	expect_alloc_err("bad_args.cpuset_bad_pointer", &a, EFAULT);
	a.cpu_map = (uintptr_t)set;
	a.pid = t.pid;
	expect_alloc_err("bad_args.cpu_with_pid", &a, EINVAL);

	/* Context ioctls. */
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc: %s", strerror(-fd));
	sub("bad_args.config_flags_unknown", set_config(fd, 0x100, 100) == -EINVAL, NULL);
	sub("bad_args.config_pause_no_timeout", set_config(fd, HWT_CFG_PAUSE_MMAP, 0) == -EINVAL, NULL);
	sub("bad_args.config_timeout_huge", set_config(fd, HWT_CFG_PAUSE_MMAP, 1u << 30) == -EINVAL, NULL);
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.backend_config_size = 17;	/* the test backend takes at most 16 */
	c.backend_config = (uintptr_t)big;
	r = ioctl(fd, HWT_IOC_SET_CONFIG, &c);
	sub("bad_args.config_backend_refuses", r < 0 && errno == EINVAL, "errno %d", errno);
	c.backend_config_size = 8;
	c.backend_config = 16;
	r = ioctl(fd, HWT_IOC_SET_CONFIG, &c);
	sub("bad_args.config_bad_pointer", r < 0 && errno == EFAULT, "errno %d", errno);
	c.backend_config_size = 8000;
	r = ioctl(fd, HWT_IOC_SET_CONFIG, &c);
	sub("bad_args.config_too_big", r < 0 && errno == EINVAL, "errno %d", errno);
	c.backend_config_size = 8;
	c.backend_config = (uintptr_t)big;
	r = ioctl(fd, HWT_IOC_SET_CONFIG, &c);
	sub("bad_args.config_ok", r == 0, "errno %d", errno);
	sub("bad_args.wakeup_bad_tid", wakeup(fd, -2) == -EINVAL, NULL);
	sub("bad_args.wakeup_untraced_tid", wakeup(fd, 4000000) == -ESRCH, NULL);
	sub("bad_args.bufptr_unknown", bufptr(fd, 4000000, &bp) == -ENOENT, NULL);
	r = ioctl(fd, HWT_IOC_BUFPTR, NULL);
	sub("bad_args.bufptr_null", r < 0 && errno == EFAULT, "errno %d", errno);
	r = ioctl(fd, _IO('h', 0x55), NULL);
	sub("bad_args.ctx_unknown_ioctl", r < 0 && errno == ENOTTY, "errno %d", errno);
	sub("bad_args.mmap_unaligned_offset",
	    mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096) == MAP_FAILED && errno == EINVAL, NULL);
	sub("bad_args.mmap_too_long",
	    mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(t.pid)) == MAP_FAILED &&
	    errno == EINVAL, "errno %d", errno);
	{
		int fl = fcntl(fd, F_GETFL);
		char small[16];

		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		r = read(fd, small, sizeof(small));
		sub("bad_args.read_empty_eagain", r < 0 && errno == EAGAIN, "r %d errno %d", r, errno);
		ioctl(fd, HWT_IOC_START);	/* PROCESS_START of the target is queued */
		r = read(fd, small, sizeof(small));
		sub("bad_args.read_too_small", r < 0 && errno == EINVAL, "r %d errno %d", r, errno);
		{
			void *volatile bad = (void *)16;

			r = read(fd, bad, 4096);
		}
		sub("bad_args.read_bad_pointer", r < 0 && errno == EFAULT, "r %d errno %d", r, errno);
	}
	close(fd);
	close(dev);
	target_go(&t);
	shm->step = 1;
	target_wait(&t, HANG_MS);
	CHECK(nsubfail == 0, "%d sub-cases failed", nsubfail);
	return 0;
}

/* Another user's process cannot be traced; one's own can. */
static int t_perm(void)
{
	struct target a;
	int p[2], st, res;
	pid_t b;

	shm->step = 0;
	CHECK(target_start(&a, fn_wait_step, NULL) == 0, "fork");
	CHECK(pipe(p) == 0, "pipe");
	b = fork();
	if (b == 0) {
		/* The prober: uid 1001 tries uid 1000's process and its own. */
		struct target own;
		int r1, r2, r3, r4, out;

		if (setgid(1001) || setuid(1001))
			_exit(90);
		prctl(PR_SET_DUMPABLE, 1);
		r1 = ctx_thread("test", a.pid, 0, 65536);
		r2 = ctx_cpu("test", 1, 4096);
		target_start(&own, fn_wait_step, NULL);
		r3 = ctx_thread("test", own.pid, 0, 65536);
		r4 = ctx_thread("test", 1, 0, 65536);	/* init, root's */
		out = (r1 == -EPERM) | (r2 == -EPERM) << 1 | (r3 >= 0) << 2 | (r4 == -EPERM) << 3;
		if (write(p[1], &out, sizeof(out)) != sizeof(out))
			_exit(91);
		_exit(0);
	}
	/* The target: uid 1000, dumpable, so only the uid stands in the way. */
	close(p[1]);
	CHECK(read(p[0], &res, sizeof(res)) == sizeof(res), "prober died");
	waitpid(b, &st, 0);
	CHECK(res & 1, "uid 1001 traced root's/other user's process");
	CHECK(res & 2, "uid 1001 got CPU mode without CAP_PERFMON");
	CHECK(res & 4, "uid 1001 could not trace its own process");
	CHECK(res & 8, "uid 1001 traced init");
	target_go(&a);
	shm->step = 1;
	target_wait(&a, HANG_MS);
	return 0;
}

/* ---- access and accounting: hwt.ko's parameters (hwt_perm.h, hwt_buffer.h) ---- */

#define PARAM_DIR "/sys/module/hwt/parameters/"
#define MLOCK_KB_DEFAULT 131072
#define MAX_CONTEXTS_DEFAULT 64

/* Writes hwt.ko parameter @name; 0 or -errno (ENOENT: a module without it). */
static int param_set(const char *name, long v)
{
	char path[128], val[32];
	int fd, n, r = 0;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	n = snprintf(val, sizeof(val), "%ld\n", v);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != n)
		r = -errno;
	close(fd);
	return r;
}

/*
 * What the other cases run under (main): /dev/hwt open to every user
 * (paranoid 0), the default limits. The cases below set what they test
 * and come back to this.
 */
static int access_reset(void)
{
	return param_set("group", -1) | param_set("paranoid", 0) |
	       param_set("mlock_kb", MLOCK_KB_DEFAULT) | param_set("max_contexts", MAX_CONTEXTS_DEFAULT);
}

/* A failed check in a helper process run as another user: the message goes to shm->msg. */
#define UCHECK(c, ...)                                                                   \
	do {                                                                             \
		if (!(c)) {                                                              \
			int n_ = snprintf((char *)shm->msg, sizeof(shm->msg), "line %d: ", \
					  __LINE__);                                     \
			snprintf((char *)shm->msg + n_, sizeof(shm->msg) - n_, __VA_ARGS__); \
			return 1;                                                        \
		}                                                                        \
	} while (0)

struct as_user {
	uid_t uid;
	gid_t gid;
	int perfmon;		/* keeps CAP_PERFMON, and only it */
	long memlock;		/* RLIMIT_MEMLOCK in bytes, or -1: as it is */
};

static int keep_only_perfmon(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[CAP_PERFMON / 32].permitted = d[CAP_PERFMON / 32].effective = 1u << (CAP_PERFMON % 32);
	return syscall(SYS_capset, &h, d);
}

/*
 * Runs @fn in a child as @u (no supplementary group; no capability but
 * CAP_PERFMON if asked): 0 when it passed, else shm->msg says why.
 */
static int run_as(const struct as_user *u, int (*fn)(void *), void *arg)
{
	pid_t p;
	int st;

	shm->msg[0] = '\0';
	p = fork();
	if (p == 0) {
		if (u->memlock >= 0) {
			struct rlimit rl = { (rlim_t)u->memlock, (rlim_t)u->memlock };

			if (setrlimit(RLIMIT_MEMLOCK, &rl))
				_exit(90);
		}
		if (setgroups(0, NULL) || setgid(u->gid))
			_exit(91);
		if (u->perfmon && prctl(PR_SET_KEEPCAPS, 1))
			_exit(92);
		if (setuid(u->uid))
			_exit(93);
		if (u->perfmon && keep_only_perfmon())
			_exit(94);
		prctl(PR_SET_DUMPABLE, 1);
		_exit(fn(arg));
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) >= 90 && !shm->msg[0])
		snprintf((char *)shm->msg, sizeof(shm->msg), "setting up uid %d failed (%d)",
			 (int)u->uid, WEXITSTATUS(st));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A process of the caller's (its child), waiting until killed. */
static pid_t own_child(void)
{
	pid_t p = fork();

	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

static void child_end(pid_t p)
{
	if (p > 0) {
		kill(p, SIGKILL);
		waitpid(p, NULL, 0);
	}
}

static int u_open_refused(void *arg)
{
	int fd = dev_open();

	(void)arg;
	UCHECK(fd < 0 && errno == EACCES, "open: fd %d errno %d, wanted EACCES", fd, errno);
	return 0;
}

/* uid 1001 traces its own process; CPU mode answers *(int *)arg. */
static int u_thread_own(void *arg)
{
	int want_cpu = *(int *)arg, fd, cfd;
	pid_t c = own_child();

	fd = ctx_thread("test", c, 0, 65536);
	child_end(c);
	UCHECK(fd >= 0, "THREAD mode on its own process: %s", strerror(-fd));
	close(fd);
	cfd = ctx_cpu("test", 1, 4096);
	if (cfd >= 0)
		close(cfd);
	UCHECK(want_cpu > 0 ? cfd >= 0 : cfd == want_cpu, "CPU mode: %d, wanted %d", cfd, want_cpu);
	return 0;
}

/* Default: /dev/hwt is root's, 0600; a user outside hwt's group is refused. */
static int t_access_root_only(void)
{
	struct as_user u1001 = { 1001, 1001, 0, -1 };
	struct stat st;
	pid_t c;
	int fd, r;

	CHECK(param_set("group", -1) == 0 && param_set("paranoid", 2) == 0,
	      "no paranoid and group parameters in /sys/module/hwt/parameters");
	CHECK(stat(HWT_DEVICE, &st) == 0, "stat %s: %s", HWT_DEVICE, strerror(errno));
	r = (st.st_mode & 07777) == 0600 && st.st_uid == 0;
	sub("access_root_only.mode", r, "mode %o uid %d", st.st_mode & 07777, (int)st.st_uid);
	sub("access_root_only.other_user",
	    run_as(&u1001, u_open_refused, NULL) == 0, "%s", shm->msg);
	c = own_child();
	fd = ctx_thread("test", c, 0, 65536);
	child_end(c);
	sub("access_root_only.root", fd >= 0, "root's THREAD mode: %s", fd < 0 ? strerror(-fd) : "");
	if (fd >= 0)
		close(fd);
	/* Open to a group: the node is 0666, open() turns away those outside it. */
	CHECK(param_set("group", 1002) == 0, "group 1002");
	CHECK(stat(HWT_DEVICE, &st) == 0 && (st.st_mode & 0777) == 0666, "mode %o with a group",
	      st.st_mode & 07777);
	sub("access_root_only.not_in_group",
	    run_as(&u1001, u_open_refused, NULL) == 0, "%s", shm->msg);
	CHECK(access_reset() == 0, "parameters not reset");
	CHECK(nsubfail == 0, "%d sub-cases failed", nsubfail);
	return 0;
}

/* hwt's group opens /dev/hwt; CPU mode needs CAP_PERFMON and paranoid 1. */
static int t_access_group(void)
{
	struct as_user u1001 = { 1001, 1001, 0, -1 }, perfmon = { 1001, 1001, 1, -1 };
	int want;

	CHECK(param_set("paranoid", 2) == 0 && param_set("group", 1001) == 0,
	      "no paranoid and group parameters");
	want = -EPERM;
	sub("access_group.member", run_as(&u1001, u_thread_own, &want) == 0, "%s", shm->msg);
	want = -EACCES;	/* paranoid 2: CPU mode is CAP_SYS_ADMIN's */
	sub("access_group.cpu_paranoid2", run_as(&perfmon, u_thread_own, &want) == 0, "%s", shm->msg);
	CHECK(param_set("paranoid", 1) == 0, "paranoid 1");
	want = 1;
	sub("access_group.cpu_perfmon", run_as(&perfmon, u_thread_own, &want) == 0, "%s", shm->msg);
	want = -EPERM;
	sub("access_group.cpu_no_perfmon", run_as(&u1001, u_thread_own, &want) == 0, "%s", shm->msg);
	CHECK(access_reset() == 0, "parameters not reset");
	CHECK(nsubfail == 0, "%d sub-cases failed", nsubfail);
	return 0;
}

static int yama_set(int v)
{
	char b[8];
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_WRONLY), n, r;

	if (fd < 0)
		return -1;
	n = snprintf(b, sizeof(b), "%d\n", v);
	r = write(fd, b, n) == n ? 0 : -1;
	close(fd);
	return r;
}

/* uid 1001 on *(pid_t *)arg, not its descendant, and on its own child: the wanted results. */
struct yama_probe {
	pid_t sibling;
	int want_sibling, want_child;	/* 0: allowed, else -errno */
};

static int u_yama(void *arg)
{
	struct yama_probe *y = arg;
	pid_t c = own_child();
	int f1 = ctx_thread("test", y->sibling, 0, 65536), f2 = ctx_thread("test", c, 0, 65536);

	child_end(c);
	if (f1 >= 0)
		close(f1);
	if (f2 >= 0)
		close(f2);
	UCHECK(y->want_sibling ? f1 == y->want_sibling : f1 >= 0, "sibling: %d, wanted %d", f1,
	       y->want_sibling);
	UCHECK(y->want_child ? f2 == y->want_child : f2 >= 0, "own child: %d, wanted %d", f2,
	       y->want_child);
	return 0;
}

/* Yama's ptrace_scope is asked (ptrace_may_access), on 6.1 and 6.12 alike. */
static int t_perm_yama(void)
{
	struct as_user u1001 = { 1001, 1001, 0, -1 };
	struct yama_probe y;
	int fd, r, ready[2];
	pid_t sib, c;
	char ch;

	CHECK(access("/proc/sys/kernel/yama/ptrace_scope", F_OK) == 0, "no Yama in this kernel");
	/* A module without the parameter (before them) has /dev/hwt open to all. */
	r = param_set("paranoid", 0);
	CHECK(r == 0 || r == -ENOENT, "paranoid 0: %s", strerror(-r));
	CHECK(pipe(ready) == 0, "pipe");
	sib = fork();
	if (sib == 0) {
		if (setgroups(0, NULL) || setgid(1001) || setuid(1001))
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	CHECK(sib > 0, "fork");
	/* Not before it is uid 1001's and dumpable: until then it is root's. */
	CHECK(read(ready[0], &ch, 1) == 1, "the sibling did not become uid 1001");
	y.sibling = sib;
	/* 0: classic ptrace, the same uid suffices: what tells the LSM refused below. */
	CHECK(yama_set(0) == 0, "ptrace_scope 0");
	y.want_sibling = 0, y.want_child = 0;
	sub("perm_yama.scope0", run_as(&u1001, u_yama, &y) == 0, "%s", shm->msg);
	CHECK(yama_set(1) == 0, "ptrace_scope 1");
	y.want_sibling = -EPERM, y.want_child = 0;
	sub("perm_yama.scope1", run_as(&u1001, u_yama, &y) == 0, "%s", shm->msg);
	CHECK(yama_set(2) == 0, "ptrace_scope 2");
	y.want_sibling = -EPERM, y.want_child = -EPERM;
	sub("perm_yama.scope2", run_as(&u1001, u_yama, &y) == 0, "%s", shm->msg);
	c = own_child();	/* root has CAP_SYS_PTRACE */
	fd = ctx_thread("test", c, 0, 65536);
	child_end(c);
	sub("perm_yama.scope2_root", fd >= 0, "%s", fd < 0 ? strerror(-fd) : "");
	if (fd >= 0)
		close(fd);
	yama_set(0);
	child_end(sib);
	CHECK(r == -ENOENT || access_reset() == 0, "parameters not reset");
	CHECK(nsubfail == 0, "%d sub-cases failed", nsubfail);
	return 0;
}

/* Buffer pages charged to the owner's locked memory, now and after close. */
static uint64_t locked_now(void)
{
	struct hwt_stats s;

	return get_stats(&s) == 0 ? s.locked_pages : UINT64_MAX;
}

static int locked_settle(uint64_t want, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;

	while (locked_now() != want) {
		if (now_ms() > end)
			return -1;
		sleep_ms(20);
	}
	return 0;
}

/* mlock_kb 256 (64 pages), RLIMIT_MEMLOCK 0: 64 KiB fits, 64 + 256 KiB does not, nor 1 MiB. */
static int u_memlock(void *arg)
{
	uint64_t base = locked_now(), pages = 65536 / 4096;
	pid_t a = own_child(), b = own_child();
	int f1, f2, f3;

	(void)arg;
	f1 = ctx_thread("test", a, 0, 65536);
	UCHECK(f1 >= 0, "64 KiB under the allowance: %s", strerror(-f1));
	UCHECK(locked_now() == base + pages, "locked pages %llu, wanted %llu",
	       (unsigned long long)locked_now(), (unsigned long long)(base + pages));
	f2 = ctx_thread("test", b, 0, 262144);
	UCHECK(f2 == -ENOBUFS, "64 + 256 KiB over a 256 KiB allowance: %d, wanted ENOBUFS", f2);
	UCHECK(locked_now() == base + pages, "a refused buffer stayed charged");
	close(f1);
	UCHECK(locked_settle(base, 5000) == 0, "not uncharged after close: %llu pages, wanted %llu",
	       (unsigned long long)locked_now(), (unsigned long long)base);
	f3 = ctx_thread("test", b, 0, 1 << 20);
	UCHECK(f3 == -ENOBUFS, "1 MiB: %d, wanted ENOBUFS", f3);
	child_end(a);
	child_end(b);
	return 0;
}

/* RLIMIT_MEMLOCK 1 MiB: the allowance and the limit add up. */
static int u_memlock_rlimit(void *arg)
{
	pid_t a = own_child();
	int f = ctx_thread("test", a, 0, 1 << 20);

	(void)arg;
	child_end(a);
	UCHECK(f >= 0, "1 MiB with RLIMIT_MEMLOCK 1 MiB: %s", strerror(-f));
	close(f);
	return 0;
}

/* mlock_kb 64 (16 pages), RLIMIT_MEMLOCK 0: the process's buffer fits, its new thread's does not. */
static int u_memlock_thread(void *arg)
{
	const struct hwt_record_header *h;
	struct target t;
	struct recs r;
	pid_t tid;
	int fd;

	(void)arg;
	recs_init(&r);
	shm->b_tid = 0;
	UCHECK(target_start(&t, fn_thread, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	UCHECK(fd >= 0, "64 KiB: %s", strerror(-fd));
	UCHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	UCHECK(target_wait(&t, 5000) == 0, "target");
	tid = shm->b_tid;
	h = recs_wait(fd, &r, HWT_RECORD_LOST, pred_tid, &tid, 3000);
	UCHECK(h, "no LOST record for thread %d, which got no buffer", tid);
	UCHECK(((const struct hwt_record_lost *)h)->reason == HWT_LOST_TRACE_WRITE, "LOST reason %u",
	       ((const struct hwt_record_lost *)h)->reason);
	UCHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, 3000), "no PROCESS_EXIT");
	close(fd);
	return 0;
}

static int t_memlock_allowance(void)
{
	struct as_user lim0 = { 1001, 1001, 0, 0 }, lim1m = { 1001, 1001, 0, 1 << 20 };
	struct hwt_stats s;
	pid_t c;
	int fd, r;

	CHECK(param_set("paranoid", 0) == 0 && param_set("mlock_kb", 256) == 0,
	      "no paranoid and mlock_kb parameters");
	CHECK(stats_settle(&s, 5000) == 0 && locked_settle(0, 5000) == 0,
	      "objects or locked pages left by earlier cases");
	sub("memlock_allowance.user", run_as(&lim0, u_memlock, NULL) == 0, "%s", shm->msg);
	sub("memlock_allowance.rlimit", run_as(&lim1m, u_memlock_rlimit, NULL) == 0, "%s", shm->msg);
	CHECK(param_set("mlock_kb", 64) == 0, "mlock_kb 64");
	sub("memlock_allowance.thread_lost", run_as(&lim0, u_memlock_thread, NULL) == 0, "%s", shm->msg);
	CHECK(locked_settle(0, 5000) == 0, "%llu pages still charged", (unsigned long long)locked_now());
	c = own_child();	/* root: not limited, still counted */
	fd = ctx_thread("test", c, 0, 1 << 20);
	child_end(c);
	sub("memlock_allowance.root", fd >= 0 && locked_now() == 256, "%s, %llu pages",
	    fd < 0 ? strerror(-fd) : "", (unsigned long long)locked_now());
	if (fd >= 0)
		close(fd);
	r = stats_settle(&s, 5000) == 0 && locked_settle(0, 5000) == 0;
	sub("memlock_allowance.zero_after_close", r, "%llu contexts, %llu buffers, %llu locked pages",
	    (unsigned long long)s.contexts, (unsigned long long)s.buffers,
	    (unsigned long long)locked_now());
	CHECK(access_reset() == 0, "parameters not reset");
	CHECK(nsubfail == 0, "%d sub-cases failed", nsubfail);
	return 0;
}

/* max_contexts 2: a third context is refused until one is closed. */
static int u_contexts(void *arg)
{
	pid_t c[3] = { own_child(), own_child(), own_child() };
	int f[3], i;

	(void)arg;
	for (i = 0; i < 3; i++)
		f[i] = ctx_thread("test", c[i], 0, 65536);
	UCHECK(f[0] >= 0 && f[1] >= 0, "two contexts under the limit: %d %d", f[0], f[1]);
	UCHECK(f[2] == -EMFILE, "third context: %d, wanted EMFILE", f[2]);
	close(f[0]);
	f[2] = ctx_thread("test", c[2], 0, 65536);
	UCHECK(f[2] >= 0, "third context after a close: %s", strerror(-f[2]));
	close(f[1]);
	close(f[2]);
	for (i = 0; i < 3; i++)
		child_end(c[i]);
	return 0;
}

static int t_contexts_per_user(void)
{
	struct as_user u1001 = { 1001, 1001, 0, -1 };
	struct hwt_stats s;
	pid_t c[3];
	int f[3], i, ok = 1;

	CHECK(param_set("paranoid", 0) == 0 && param_set("max_contexts", 2) == 0,
	      "no paranoid and max_contexts parameters");
	sub("contexts_per_user.user", run_as(&u1001, u_contexts, NULL) == 0, "%s", shm->msg);
	for (i = 0; i < 3; i++) {	/* root: not limited */
		c[i] = own_child();
		f[i] = ctx_thread("test", c[i], 0, 65536);
		ok &= f[i] >= 0;
	}
	for (i = 0; i < 3; i++) {
		if (f[i] >= 0)
			close(f[i]);
		child_end(c[i]);
	}
	sub("contexts_per_user.root", ok, "%s", ok ? "" : "root was limited");
	ok = stats_settle(&s, 5000) == 0 && locked_settle(0, 5000) == 0;
	sub("contexts_per_user.zero_after_close", ok, "%llu contexts, %llu locked pages",
	    (unsigned long long)s.contexts, (unsigned long long)locked_now());
	CHECK(access_reset() == 0, "parameters not reset");
	CHECK(nsubfail == 0, "%d sub-cases failed", nsubfail);
	return 0;
}

/* ---- exec: the owner's ptrace check, LSMs included ---- */

static void fn_exec_busybox(void *arg)
{
	char *argv[] = { BUSYBOX, "true", NULL };

	(void)arg;
	execv(argv[0], argv);
	_exit(98);
}

static const char *untraced_path(const struct hwt_record_header *h)
{
	return (const char *)((const struct hwt_record_untraced *)h + 1);
}

static const char *untraced_why(const struct hwt_record_header *h)
{
	return untraced_path(h) + strlen(untraced_path(h)) + 1;
}

/* Pipes to the root helper that sets Yama's ptrace_scope to 2 when asked. */
static int yama_ask[2], yama_done[2];

/*
 * uid 1001 traces its own child, which execs busybox (not set-user-ID: the
 * credentials do not change). Yama allows it at scope 1 (an ancestor): the
 * image is traced. The second child is attached at scope 1, then root sets
 * scope 2 (CAP_SYS_PTRACE only) before its exec: ptrace would refuse, so the
 * exec is untraced, which the module's credential replay alone never saw.
 */
static int u_exec_yama(void *arg)
{
	struct target t1, t2;
	struct tid_path tp;
	struct recs r;
	const struct hwt_record_header *u;
	int fd, st;
	char ch;

	(void)arg;
	recs_init(&r);
	UCHECK(target_start(&t1, fn_exec_busybox, NULL) == 0, "fork");
	fd = ctx_thread("test", t1.pid, 0, 65536);
	UCHECK(fd >= 0, "attach at scope 1: %d", fd);
	UCHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	UCHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_START, pred_pid, &t1.pid, HANG_MS),
	       "no PROCESS_START");
	target_go(&t1);
	tp.tid = t1.pid, tp.path = BUSYBOX;
	UCHECK(recs_wait(fd, &r, HWT_RECORD_EXEC, pred_tid_path, &tp, HANG_MS),
	       "scope 1: no EXEC of %s", BUSYBOX);
	UCHECK(!recs_find(&r, HWT_RECORD_UNTRACED, NULL, NULL), "scope 1: UNTRACED '%s'",
	       untraced_why(recs_find(&r, HWT_RECORD_UNTRACED, NULL, NULL)));
	st = target_wait(&t1, HANG_MS);
	UCHECK(st == 0, "scope 1: busybox status %#x", st);
	close(fd);

	recs_init(&r);
	UCHECK(target_start(&t2, fn_exec_busybox, NULL) == 0, "fork");
	fd = ctx_thread("test", t2.pid, 0, 65536);
	UCHECK(fd >= 0, "attach at scope 1: %d", fd);
	UCHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	UCHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_START, pred_pid, &t2.pid, HANG_MS),
	       "no PROCESS_START");
	UCHECK(write(yama_ask[1], "2", 1) == 1 && read(yama_done[0], &ch, 1) == 1 && ch == 'y',
	       "root did not set ptrace_scope 2");
	target_go(&t2);
	u = recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_tid, &t2.pid, HANG_MS);
	UCHECK(u, "scope 2 after the attach: the exec of %s stayed traced", BUSYBOX);
	UCHECK(!strcmp(untraced_why(u), "the owner may not ptrace it"), "reason '%s'",
	       untraced_why(u));
	st = target_wait(&t2, HANG_MS);
	UCHECK(st == 0, "scope 2: busybox status %#x", st);
	recs_drain(fd, &r, 100);
	UCHECK(!recs_find(&r, HWT_RECORD_EXEC, NULL, NULL), "EXEC record of the untraced image");
	close(fd);
	return 0;
}

static int t_perm_exec_yama(void)
{
	struct as_user u1001 = { 1001, 1001, 0, -1 };
	pid_t helper;
	int r;
	char ch;

	CHECK(access("/proc/sys/kernel/yama/ptrace_scope", F_OK) == 0, "no Yama in this kernel");
	r = param_set("paranoid", 0);
	CHECK(r == 0, "paranoid 0: %s", strerror(-r));
	CHECK(yama_set(1) == 0, "ptrace_scope 1");
	CHECK(pipe(yama_ask) == 0 && pipe(yama_done) == 0, "pipe");
	helper = fork();
	if (helper == 0) {
		close(yama_ask[1]);
		if (read(yama_ask[0], &ch, 1) == 1 && ch == '2' && yama_set(2) == 0)
			ch = 'y';
		else
			ch = 'n';
		_exit(write(yama_done[1], &ch, 1) == 1 ? 0 : 1);
	}
	CHECK(helper > 0, "fork");
	close(yama_done[1]);
	r = run_as(&u1001, u_exec_yama, NULL);
	close(yama_ask[1]);
	close(yama_ask[0]);
	close(yama_done[0]);
	waitpid(helper, NULL, 0);
	yama_set(0);
	CHECK(access_reset() == 0, "parameters not reset");
	CHECK(r == 0, "%s", shm->msg);
	return 0;
}

/*
 * The owner (the thread that allocated the context) cannot answer: it has
 * exited (@stopped 0), or it is stopped (1). The context's fd lives on in
 * another process (pidfd_getfd). The exec is untraced, at once or at the
 * end of the pause timeout, with the reason in the record; no hang.
 */
static int exec_owner_absent(int stopped)
{
	const struct hwt_record_header *u;
	struct target t;
	struct recs r;
	int p[2], afd, pidfd, fd, st;
	const char *want = stopped ? "the owner did not answer within the pause timeout" :
				     "the owner has exited";
	pid_t a;

	recs_init(&r);
	CHECK(target_start(&t, fn_exec_busybox, NULL) == 0, "fork");
	CHECK(pipe(p) == 0, "pipe");
	a = fork();
	if (a == 0) {
		afd = ctx_thread("test", t.pid, 0, 65536);
		if (afd < 0 || set_config(afd, 0, 300) || write(p[1], &afd, sizeof(afd)) != sizeof(afd))
			_exit(1);
		for (;;)
			pause();
	}
	CHECK(a > 0, "fork");
	CHECK(read(p[0], &afd, sizeof(afd)) == sizeof(afd), "the owner did not allocate");
	pidfd = syscall(434 /* pidfd_open */, a, 0);
	CHECK(pidfd >= 0, "pidfd_open: %s", strerror(errno));
	fd = syscall(438 /* pidfd_getfd */, pidfd, afd, 0);
	CHECK(fd >= 0, "pidfd_getfd: %s", strerror(errno));
	close(pidfd);
	close(p[0]);
	close(p[1]);
	if (stopped) {
		CHECK(kill(a, SIGSTOP) == 0 && waitpid(a, &st, WUNTRACED) == a && WIFSTOPPED(st),
		      "the owner did not stop");
	} else {
		kill(a, SIGKILL);
		CHECK(waitpid(a, &st, 0) == a, "waitpid owner");
	}
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_START, pred_pid, &t.pid, HANG_MS),
	      "no PROCESS_START");
	target_go(&t);
	u = recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_tid, &t.pid, HANG_MS);
	CHECK(u, "owner %s: the exec of %s stayed traced", stopped ? "stopped" : "gone", BUSYBOX);
	CHECK(!strcmp(untraced_why(u), want), "reason '%s', wanted '%s'", untraced_why(u), want);
	st = target_wait(&t, HANG_MS);
	CHECK(st == 0, "busybox status %#x", st);
	recs_drain(fd, &r, 100);
	CHECK(!recs_find(&r, HWT_RECORD_EXEC, NULL, NULL), "EXEC record of the untraced image");
	close(fd);
	if (stopped) {
		kill(a, SIGKILL);
		waitpid(a, NULL, 0);
	}
	return 0;
}

static int t_perm_exec_owner_gone(void)
{
	return exec_owner_absent(0);
}

static int t_perm_exec_owner_stopped(void)
{
	return exec_owner_absent(1);
}

/* ---- exec of a set-user-ID program ---- */

static int suid_out = -1;	/* write end of the pipe hwt_suid prints to */

static void fn_exec_suid(void *arg)
{
	char *argv[] = { SUID, "1500", "fork", NULL };

	(void)arg;
	if (dup2(suid_out, 1) != 1)
		_exit(95);
	execv(argv[0], argv);
	_exit(98);
}

static int suid_installed(void)
{
	struct stat st;

	return stat(SUID, &st) == 0 && (st.st_mode & S_ISUID) && st.st_uid == 0;
}

/* Reads what hwt_suid printed (its stdout is the pipe's write end). */
static void suid_output(int rfd, char *buf, size_t len)
{
	ssize_t k, n = 0;

	while ((size_t)n < len - 1 && (k = read(rfd, buf + n, len - 1 - n)) > 0)
		n += k;
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * The unprivileged collector: uid 1001 traces its own process with pauses on
 * EXEC and MMAP asked for (30 s), and that process execs hwt_suid.
 */
static int suid_untraced_body(void)
{
	const struct hwt_record_header *h, *u;
	const char *path, *why;
	struct hwt_bufptr b0, b1, b2;
	struct hwt_stats s, s0;
	struct target own;
	struct recs r;
	char out[128];
	int po[2], fd, st;
	size_t off;

	CHECK(setgid(1001) == 0 && setuid(1001) == 0, "setuid 1001");
	prctl(PR_SET_DUMPABLE, 1);
	recs_init(&r);
	CHECK(pipe(po) == 0, "pipe");
	suid_out = po[1];
	CHECK(target_start(&own, fn_exec_suid, NULL) == 0, "fork");
	close(po[1]);
	fd = ctx_thread("test", own.pid, 0, 65536);
	CHECK(fd >= 0, "uid 1001 cannot trace its own process: %d", fd);
	CHECK(set_config(fd, HWT_CFG_PAUSE_EXEC | HWT_CFG_PAUSE_MMAP, 30000) == 0, "SET_CONFIG");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_START, pred_pid, &own.pid, HANG_MS),
	      "no PROCESS_START snapshot");
	CHECK(bufptr(fd, own.pid, &b0) == 0, "BUFPTR before");
	get_stats(&s0);
	target_go(&own);
	u = recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_tid, &own.pid, HANG_MS);
	CHECK(u, "no UNTRACED record at the exec of %s", SUID);
	off = (const unsigned char *)u - r.buf;
	path = (const char *)((const struct hwt_record_untraced *)u + 1);
	why = path + strlen(path) + 1;
	CHECK(!strcmp(path, SUID) && *why, "UNTRACED path '%s' reason '%s'", path, why);
	CHECK(u->pid == (uint32_t)own.pid, "UNTRACED pid %u", u->pid);
	snprintf(shm->msg, sizeof(shm->msg), "%s", why);	/* reported on success */
	/* Traced before the exec (switched in on target_go), silent after it. */
	CHECK(bufptr(fd, own.pid, &b1) == 0, "BUFPTR after");
	CHECK(b1.offset > b0.offset, "buffer did not advance before the exec (%llu)",
	      (unsigned long long)b1.offset);
	CHECK(get_stats(&s) == 0 && s.paused == 0, "a thread is paused (%llu)",
	      (unsigned long long)s.paused);
	/*
	 * hwt_suid's whole run (1.5 s of 1 ms sleeps) leaves the buffer as it
	 * was, and no pause held it: one would end only by its 30 s timeout,
	 * which pause_timeouts counts (however slowly the guest runs).
	 */
	st = target_wait(&own, HANG_MS);
	CHECK(st == 0, "hwt_suid status %#x", st);
	CHECK(bufptr(fd, own.pid, &b2) == 0, "BUFPTR after the exit");
	CHECK(b2.offset == b1.offset, "buffer advanced after the exec: %llu -> %llu",
	      (unsigned long long)b1.offset, (unsigned long long)b2.offset);
	CHECK(get_stats(&s) == 0 && s.pause_timeouts == s0.pause_timeouts,
	      "hwt_suid was paused: pause_timeouts %llu -> %llu",
	      (unsigned long long)s0.pause_timeouts, (unsigned long long)s.pause_timeouts);
	suid_output(po[0], out, sizeof(out));
	CHECK(!strcmp(out, "euid=0 uid=1001\n"), "hwt_suid printed '%s'", out);
	recs_drain(fd, &r, 200);
	CHECK(!r.corrupt, "corrupt record");
	/* Nothing after UNTRACED: no EXEC or MMAP of the image, no FORK, no exits. */
	h = (const void *)(r.buf + off);
	CHECK(off + h->size == r.len, "%zu bytes of records after UNTRACED (type %u)",
	      r.len - off - h->size,
	      r.len > off + h->size ? ((const struct hwt_record_header *)(r.buf + off + h->size))->type : 0);
	CHECK(!recs_find(&r, HWT_RECORD_EXEC, NULL, NULL), "EXEC record of the set-user-ID image");
	close(fd);
	return 0;
}

static int t_exec_setuid_untraced(void)
{
	pid_t b;
	int st;

	CHECK(suid_installed(), "%s is not set-user-ID root", SUID);
	b = fork();
	if (b == 0) {
		int r;

		failmsg[0] = '\0';
		r = suid_untraced_body();
		if (r)
			snprintf(shm->msg, sizeof(shm->msg), "%s", failmsg);
		_exit(r);
	}
	CHECK(b > 0, "fork");
	CHECK(waitpid(b, &st, 0) == b, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "uid 1001 collector (status %#x): %s", st,
	      shm->msg);
	printf("KINFO exec_setuid_untraced reason: %s\n", shm->msg);
	return 0;
}

/* Root traces a root process that execs hwt_suid: no credential change, traced on. */
static int t_exec_setuid_root_traced(void)
{
	const struct hwt_record_header *h;
	struct hwt_bufptr b1, b2;
	struct target t;
	struct recs r;
	char out[128];
	int po[2], fd;

	CHECK(suid_installed(), "%s is not set-user-ID root", SUID);
	recs_init(&r);
	CHECK(pipe(po) == 0, "pipe");
	suid_out = po[1];
	CHECK(target_start(&t, fn_exec_suid, NULL) == 0, "fork");
	close(po[1]);
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_START, pred_pid, &t.pid, HANG_MS),
	      "no PROCESS_START snapshot");
	target_go(&t);
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, SUID, HANG_MS);
	CHECK(h && h->tid == (uint32_t)t.pid, "no EXEC record of %s", SUID);
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, SUID, HANG_MS), "no MMAP of the image");
	CHECK(bufptr(fd, t.pid, &b1) == 0, "BUFPTR");
	/* The rest of hwt_suid's run (1.5 s of 1 ms sleeps) is traced. */
	CHECK(target_wait(&t, HANG_MS) == 0, "hwt_suid status");
	CHECK(bufptr(fd, t.pid, &b2) == 0, "BUFPTR after the exit");
	CHECK(b2.offset > b1.offset, "buffer stopped advancing after the exec (%llu)",
	      (unsigned long long)b1.offset);
	suid_output(po[0], out, sizeof(out));
	CHECK(!strcmp(out, "euid=0 uid=0\n"), "hwt_suid printed '%s'", out);
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS), "no PROCESS_EXIT");
	CHECK(!recs_find(&r, HWT_RECORD_UNTRACED, NULL, NULL), "UNTRACED for a root exec");
	CHECK(!r.corrupt, "corrupt record");
	close(fd);
	return 0;
}

/* Two contexts at once: two targets, and two backends on one target. */
static int t_two_contexts(void)
{
	struct target t1, t2;
	struct recs r1, r2;
	struct hwt_test_entry *e1, *e2;
	int fa, fb, fc, fd;
	void *m1, *m2;

	recs_init(&r1);
	recs_init(&r2);
	CHECK(target_start(&t1, fn_mmap_exec, NULL) == 0, "fork");
	CHECK(target_start(&t2, fn_mmap_exec, NULL) == 0, "fork");
	fa = ctx_thread("test", t1.pid, 0, 65536);
	fb = ctx_thread("test", t2.pid, 0, 65536);
	CHECK(fa >= 0 && fb >= 0, "two contexts, two targets: %d %d", fa, fb);
	fc = ctx_thread("test2", t1.pid, 0, 65536);
	CHECK(fc >= 0, "second backend on the same target: %s", strerror(-fc));
	fd = ctx_cpu("test2", 2, 4096);
	CHECK(fd == -EBUSY, "test2 in CPU mode while it has a THREAD context: %d", fd);
	CHECK(ioctl(fa, HWT_IOC_START) == 0 && ioctl(fc, HWT_IOC_START) == 0, "START");
	target_go(&t1);
	CHECK(target_wait(&t1, HANG_MS) == 0, "target 1");
	CHECK(recs_wait(fa, &r1, HWT_RECORD_MMAP, pred_path, DYN, HANG_MS), "ctx 1: no MMAP");
	CHECK(recs_wait(fc, &r2, HWT_RECORD_MMAP, pred_path, DYN, HANG_MS), "ctx 2: no MMAP");
	m1 = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fa, HWT_MMAP_OFFSET(t1.pid));
	m2 = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fc, HWT_MMAP_OFFSET(t1.pid));
	CHECK(m1 != MAP_FAILED && m2 != MAP_FAILED, "mmap");
	e1 = m1;
	e2 = m2;
	CHECK(e1->magic == HWT_TEST_MAGIC && e2->magic == HWT_TEST2_MAGIC,
	      "magics %x %x", e1->magic, e2->magic);
	target_go(&t2);
	target_wait(&t2, HANG_MS);
	/* A mapping keeps the context file open: unmap first. */
	munmap(m1, 4096);
	munmap(m2, 4096);
	close(fa);
	close(fb);
	close(fc);
	/* Two backends in CPU mode on the same CPU. */
	fa = ctx_cpu("test", 1, 4096);
	fb = ctx_cpu("test2", 1, 4096);
	CHECK(fa >= 0 && fb >= 0, "two backends on CPU 0: %d %d", fa, fb);
	close(fa);
	close(fb);
	return 0;
}

static int t_ebusy(void)
{
	struct target t;
	int fa, fb, fc;

	shm->step = 0;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	fa = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fa >= 0, "alloc");
	fb = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fb == -EBUSY, "same backend, same thread: %d", fb);
	fb = ctx_cpu("test", 1, 4096);
	CHECK(fb == -EBUSY, "CPU mode while the backend traces threads: %d", fb);
	close(fa);
	fa = ctx_cpu("test", 1, 4096);
	CHECK(fa >= 0, "CPU 0: %s", strerror(-fa));
	fb = ctx_cpu("test", 3, 4096);
	CHECK(fb == -EBUSY, "CPUs {0,1} overlap {0}: %d", fb);
	fb = ctx_cpu("test", 2, 4096);
	CHECK(fb >= 0, "CPU 1 beside CPU 0: %s", strerror(-fb));
	fc = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fc == -EBUSY, "THREAD mode while the backend traces CPUs: %d", fc);
	close(fa);
	close(fb);
	/* Once closed, the CPUs are free again. */
	fa = ctx_cpu("test", 3, 4096);
	CHECK(fa >= 0, "CPUs not released: %s", strerror(-fa));
	close(fa);
	target_go(&t);
	shm->step = 1;
	target_wait(&t, HANG_MS);
	return 0;
}

/* The records' clock as user space reads it: the TSC on x86, the generic timer's counter on arm64. */
static uint64_t arch_clock(void)
{
#if defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
#endif
}

/* Records are stamped with the architecture's trace clock (hwt_compat.h's hwt_clock). */
static int t_rec_clock(void)
{
	char *argv[] = { DYN, "exit", NULL };
	const struct hwt_record_header *h, *e;
	uint64_t before, after;
	struct target t;
	struct recs r;
	int fd;

	recs_init(&r);
	CHECK(target_start(&t, fn_exec, argv) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	before = arch_clock();
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	after = arch_clock();
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, DYN, HANG_MS);
	CHECK(h, "no EXEC record");
	e = recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS);
	CHECK(e, "no PROCESS_EXIT");
	CHECK(before <= h->time && h->time <= e->time && e->time <= after,
	      "times not of the user-visible clock: before %llu, EXEC %llu, exit %llu, after %llu",
	      (unsigned long long)before, (unsigned long long)h->time,
	      (unsigned long long)e->time, (unsigned long long)after);
	close(fd);
	return 0;
}

static int t_rec_exec(void)
{
	char *argv[] = { DYN, "exit", "arg two", NULL };
	const struct hwt_record_header *h;
	const struct hwt_record_process *p;
	const char *s;
	struct target t;
	struct recs r;
	int fd;

	recs_init(&r);
	CHECK(target_start(&t, fn_exec, argv) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	h = recs_wait(fd, &r, HWT_RECORD_PROCESS_START, pred_path, SELF, HANG_MS);
	CHECK(h && h->pid == (uint32_t)t.pid, "no PROCESS_START snapshot of the target at START");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, SELF, HANG_MS), "no MMAP snapshot");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, DYN, HANG_MS);
	CHECK(h, "no EXEC record");
	p = (const void *)h;
	s = rec_path(h) + strlen(rec_path(h)) + 1;
	CHECK(p->argc == 3 && !strcmp(s, DYN) && !strcmp(s + strlen(s) + 1, "exit") &&
	      !strcmp(s + strlen(s) + 1 + 5, "arg two"), "argv wrong (argc %u)", p->argc);
	CHECK(h->pid == (uint32_t)t.pid && h->tid == (uint32_t)t.pid, "EXEC pid");
	CHECK(p->ppid == (uint32_t)getpid(), "EXEC ppid %u", p->ppid);
	h = recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, DYN, HANG_MS);
	CHECK(h, "no MMAP of the new image");
	CHECK(((const struct hwt_record_mmap *)h)->prot & HWT_PROT_EXEC, "MMAP prot");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, LDSO, HANG_MS) ||
	      recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, LDSO_MULTIARCH, HANG_MS),
	      "no MMAP of the interpreter");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, LIBC, HANG_MS),
	      "no MMAP of libc (mapped by ld.so)");
	h = recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, "[vdso]", HANG_MS);
	CHECK(h && (h->flags & HWT_MMAP_VDSO), "no vDSO MMAP");
	h = recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS);
	CHECK(h && ((const struct hwt_record_exit *)h)->status == 0, "no PROCESS_EXIT");
	CHECK(!r.corrupt, "corrupt record");
	/* Order: EXEC comes before the new image's MMAPs. */
	CHECK((const void *)recs_find(&r, HWT_RECORD_EXEC, NULL, NULL) <
	      (const void *)recs_find(&r, HWT_RECORD_MMAP, pred_path, DYN), "EXEC after MMAP");
	close(fd);
	return 0;
}

static int t_rec_dlopen(void)
{
	char *argv[] = { DYN, "dlopen", NULL };
	const struct hwt_record_header *h;
	const struct hwt_record_mmap *m;
	const struct hwt_record_munmap *u = NULL;
	struct target t;
	struct recs r;
	size_t off;
	int fd;

	recs_init(&r);
	CHECK(target_start(&t, fn_exec, argv) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target status");
	h = recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, LIB, HANG_MS);
	CHECK(h, "no MMAP of the dlopen()ed library");
	m = (const void *)h;
	CHECK((m->prot & HWT_PROT_EXEC) && m->len > 0, "MMAP fields");
	recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, NULL, NULL, HANG_MS);
	/* dlclose unmaps it: a MUNMAP covering the executable mapping. */
	for (off = 0; off < r.len;) {
		h = (const void *)(r.buf + off);
		if (h->type == HWT_RECORD_MUNMAP) {
			const struct hwt_record_munmap *x = (const void *)h;

			if (x->addr <= m->addr && x->addr + x->len >= m->addr + m->len)
				u = x;
		}
		off += h->size;
	}
	CHECK(u, "no MUNMAP of the library after dlclose");
	close(fd);
	return 0;
}

/* Build-ids from /buildids (written by run_qemu.sh with readelf -n). */
struct bid {
	char path[256];
	unsigned char id[HWT_BUILD_ID_MAX];
	uint32_t len;
	int seen;
};

static int bids_load(struct bid *b, int max)
{
	char line[512], hex[128];
	FILE *f = fopen("/buildids", "r");
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		size_t i, l;

		if (sscanf(line, "%255s %127s", b[n].path, hex) != 2)
			continue;
		l = strlen(hex) / 2;
		if (l == 0 || l > HWT_BUILD_ID_MAX)
			continue;
		for (i = 0; i < l; i++)
			sscanf(hex + 2 * i, "%2hhx", &b[n].id[i]);
		b[n].len = l;
		b[n].seen = 0;
		n++;
	}
	fclose(f);
	return n;
}

static const char *bid_hex(const unsigned char *id, uint32_t len)
{
	static char buf[2 * HWT_BUILD_ID_MAX + 1];
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < len && i < HWT_BUILD_ID_MAX; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	return buf;
}

/*
 * Checks the build-id of every MMAP record in @r against @b (files not in
 * @b: none expected only for the vDSO); counts the files seen in b[].seen.
 */
static int bids_check(struct recs *r, struct bid *b, int nb)
{
	size_t off = 0;
	int i;

	while (off + sizeof(struct hwt_record_header) <= r->len) {
		const struct hwt_record_header *h = (const void *)(r->buf + off);
		const struct hwt_record_mmap *m = (const void *)h;

		if (h->size < sizeof(*h))
			break;
		off += h->size;
		if (h->type != HWT_RECORD_MMAP)
			continue;
		if (h->flags & HWT_MMAP_VDSO) {
			CHECK(m->build_id_size == 0, "vDSO MMAP with a build-id");
			continue;
		}
		for (i = 0; i < nb; i++) {
			if (strcmp(rec_path(h), b[i].path))
				continue;
			CHECK(m->build_id_size == b[i].len && !memcmp(m->build_id, b[i].id, b[i].len),
			      "%s: build-id %s (size %u), readelf says %s", b[i].path,
			      bid_hex(m->build_id, m->build_id_size), m->build_id_size,
			      bid_hex(b[i].id, b[i].len));
			b[i].seen++;
		}
	}
	return 0;
}

static struct bid *bid_find(struct bid *b, int nb, const char *path)
{
	int i;

	for (i = 0; i < nb; i++)
		if (!strcmp(b[i].path, path))
			return &b[i];
	return NULL;
}

/*
 * MMAP records carry the build-id readelf -n finds: from the hooks (exec
 * maps the program and ld.so, ld.so maps libc, dlopen the library: page
 * cache reads) and from the START snapshot of a running process (kernel_read).
 */
static int t_rec_buildid(void)
{
	char *argv[] = { DYN, "dlopen", NULL };
	char *wargv[] = { DYN, "wait", "/tmp/hwt_waiting", NULL };
	const char *want[] = { DYN, LIB, LIBC, LDSO };
	struct bid b[16], *x;
	struct target t;
	struct recs r;
	struct stat sb;
	uint64_t end;
	int fd, nb, i;

	nb = bids_load(b, 16);
	CHECK(nb >= 4, "/buildids lists %d files", nb);
	for (i = 0; i < 4; i++)
		CHECK(bid_find(b, nb, want[i]), "no build-id of %s in /buildids", want[i]);

	/* Hooks. */
	recs_init(&r);
	CHECK(target_start(&t, fn_exec, argv) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target status");
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, NULL, NULL, HANG_MS), "no PROCESS_EXIT");
	close(fd);
	if (bids_check(&r, b, nb))
		return 1;
	for (i = 0; i < 4; i++) {
		x = bid_find(b, nb, want[i]);
		sub("rec_buildid.hook", x->seen > 0, "%s %s", want[i], bid_hex(x->id, x->len));
		CHECK(x->seen > 0, "no MMAP of %s", want[i]);
	}
	free(r.buf);

	/* The snapshot at START. */
	for (i = 0; i < nb; i++)
		b[i].seen = 0;
	unlink("/tmp/hwt_waiting");
	recs_init(&r);
	CHECK(target_start(&t, fn_exec, wargv) == 0, "fork");
	target_go(&t);
	end = now_ms() + HANG_MS;
	while (stat("/tmp/hwt_waiting", &sb) && now_ms() < end)
		sleep_ms(5);
	CHECK(now_ms() < end, "hwt_dyn wait did not start");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	recs_drain(fd, &r, 200);
	kill(t.pid, SIGKILL);
	target_wait(&t, HANG_MS);
	close(fd);
	if (bids_check(&r, b, nb))
		return 1;
	for (i = 0; i < 4; i++) {
		if (!strcmp(want[i], LIB))
			continue;
		x = bid_find(b, nb, want[i]);
		sub("rec_buildid.snapshot", x->seen > 0, "%s %s", want[i], bid_hex(x->id, x->len));
		CHECK(x->seen > 0, "no snapshot MMAP of %s", want[i]);
	}
	free(r.buf);
	return 0;
}

static int t_rec_mmap(void)
{
	const struct hwt_record_header *h;
	const struct hwt_record_mmap *m;
	const struct hwt_record_munmap *u;
	struct target t;
	struct recs r;
	int fd;

	recs_init(&r);
	shm->a_done = 0;
	CHECK(target_start(&t, fn_mmap_exec, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	h = recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, DYN, HANG_MS);
	CHECK(h, "no MMAP record");
	m = (const void *)h;
	CHECK(m->addr == shm->a_addr && m->len == 8192 && m->pgoff == 4096 &&
	      m->prot == (HWT_PROT_READ | HWT_PROT_EXEC) && h->tid == (uint32_t)t.pid,
	      "MMAP fields addr %llx/%llx len %llu pgoff %llu prot %u",
	      (unsigned long long)m->addr, (unsigned long long)shm->a_addr,
	      (unsigned long long)m->len, (unsigned long long)m->pgoff, m->prot);
	h = recs_wait(fd, &r, HWT_RECORD_MUNMAP, NULL, NULL, HANG_MS);
	CHECK(h, "no MUNMAP record");
	u = (const void *)h;
	CHECK(u->addr == m->addr && u->len == 8192, "MUNMAP fields");
	CHECK(!r.corrupt, "corrupt record");
	close(fd);
	return 0;
}

static int t_rec_thread(void)
{
	const struct hwt_record_header *h;
	struct hwt_test_entry *e;
	struct hwt_bufptr bp;
	struct target t;
	struct recs r;
	pid_t tid;
	int fd;
	void *m;

	recs_init(&r);
	shm->b_tid = 0;
	CHECK(target_start(&t, fn_thread, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	tid = shm->b_tid;
	h = recs_wait(fd, &r, HWT_RECORD_THREAD_CREATE, NULL, NULL, HANG_MS);
	CHECK(h, "no THREAD_CREATE");
	CHECK(((const struct hwt_record_thread *)h)->child_tid == (uint32_t)tid &&
	      h->tid == (uint32_t)t.pid, "THREAD_CREATE child %u want %d",
	      ((const struct hwt_record_thread *)h)->child_tid, tid);
	CHECK(recs_wait(fd, &r, HWT_RECORD_THREAD_EXIT, pred_tid, &tid, HANG_MS), "no THREAD_EXIT of the thread");
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS), "no PROCESS_EXIT");
	/* The new thread got its own buffer before it ran, and it stays readable. */
	CHECK(bufptr(fd, tid, &bp) == 0, "no buffer for the new thread: %s", strerror(errno));
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(tid));
	CHECK(m != MAP_FAILED, "mmap of the new thread's buffer");
	e = m;
	CHECK(e[0].what == HWT_TEST_THREAD_ALLOC && e[0].id == (uint32_t)tid &&
	      e[1].what == HWT_TEST_THREAD_IN, "new thread's pattern %u %u", e[0].what, e[1].what);
	close(fd);
	return 0;
}

static int t_rec_fork(void)
{
	const struct hwt_record_header *h;
	struct target t;
	struct recs r;
	pid_t child;
	int fd, pass;

	for (pass = 0; pass < 2; pass++) {
		uint32_t flags = pass ? 0 : HWT_ALLOC_CHILDREN;

		recs_init(&r);
		CHECK(target_start(&t, fn_fork, NULL) == 0, "fork");
		fd = ctx_thread("test", t.pid, flags, 65536);
		CHECK(fd >= 0, "alloc");
		CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
		target_go(&t);
		CHECK(target_wait(&t, HANG_MS) == 0, "target");
		child = shm->b_tid;
		h = recs_wait(fd, &r, HWT_RECORD_FORK, NULL, NULL, HANG_MS);
		CHECK(h && ((const struct hwt_record_fork *)h)->child_pid == (uint32_t)child &&
		      h->pid == (uint32_t)t.pid, "no FORK record");
		recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS);
		if (flags) {
			h = recs_find(&r, HWT_RECORD_PROCESS_START, pred_pid, &child);
			CHECK(h && !strcmp(rec_path(h), SELF) &&
			      ((const struct hwt_record_process *)h)->ppid == (uint32_t)t.pid,
			      "no PROCESS_START of the child");
			h = recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &child);
			CHECK(h && ((const struct hwt_record_exit *)h)->status == 7 << 8,
			      "no PROCESS_EXIT of the child with status 7");
		} else {
			CHECK(!recs_find(&r, HWT_RECORD_PROCESS_START, pred_pid, &child) &&
			      !recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &child),
			      "child traced without HWT_ALLOC_CHILDREN");
		}
		close(fd);
	}
	return 0;
}

/*
 * Thread A pauses after its MMAP; thread B of the same process mmaps
 * anonymous memory, and then maps and unmaps an executable file (pausing
 * itself in between), all while A stays paused.
 */
static void *pause_b(void *arg)
{
	void *p;
	int i;

	(void)arg;
	shm->b_tid = gettid_();
	while (shm->step < 1)
		sleep_ms(2);
	for (i = 0; i < 50; i++) {
		p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(95);
		*(volatile char *)p = 1;
		munmap(p, 65536);
	}
	shm->b_anon = 1;
	p = map_exec_file();
	shm->b_addr = (uintptr_t)p;
	munmap(p, 8192);
	shm->b_done = 1;
	return NULL;
}

static void fn_pause(void *arg)
{
	pthread_t th;
	void *p;

	(void)arg;
	if (pthread_create(&th, NULL, pause_b, NULL))
		_exit(96);
	while (!shm->b_tid)
		sleep_ms(1);
	shm->a_tid = gettid_();
	p = map_exec_file();
	shm->a_addr = (uintptr_t)p;
	shm->a_done = 1;
	pthread_join(th, NULL);
}

static int t_pause_wakeup(void)
{
	struct tid_path ta = { 0, DYN }, tb = { 0, DYN };
	const struct hwt_record_header *h;
	struct hwt_stats st;
	struct target t;
	struct recs r;
	pid_t a, b;
	uint64_t end;
	int fd;

	recs_init(&r);
	memset((void *)shm, 0, sizeof(*shm));
	CHECK(target_start(&t, fn_pause, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(set_config(fd, HWT_CFG_PAUSE_MMAP, 20000) == 0, "config");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	end = now_ms() + HANG_MS;
	while (!shm->a_tid && now_ms() < end)
		sleep_ms(2);
	a = shm->a_tid;
	b = shm->b_tid;
	ta.tid = a;
	tb.tid = b;
	h = recs_wait(fd, &r, HWT_RECORD_MMAP, pred_tid_path, &ta, HANG_MS);
	CHECK(h, "no MMAP from thread A");
	CHECK(h->flags & HWT_RECORD_PAUSED, "A's MMAP not flagged paused");
	CHECK(paused_wait(1, &st) == 0 && !shm->a_done, "A not paused (done %d, paused %llu)",
	      shm->a_done, (unsigned long long)st.paused);
	shm->step = 1;
	end = now_ms() + HANG_MS;
	while (!shm->b_anon && now_ms() < end)
		sleep_ms(2);
	CHECK(shm->b_anon, "B could not mmap/munmap while A was paused");
	h = recs_wait(fd, &r, HWT_RECORD_MMAP, pred_tid_path, &tb, HANG_MS);
	CHECK(h && (h->flags & HWT_RECORD_PAUSED), "no paused MMAP from B while A is paused");
	CHECK(!shm->a_done, "A ran on");
	CHECK(wakeup(fd, b) == 0, "WAKEUP B");
	h = recs_wait(fd, &r, HWT_RECORD_MUNMAP, pred_tid, &b, HANG_MS);
	CHECK(h, "no MUNMAP from B");
	end = now_ms() + HANG_MS;
	while (!shm->b_done && now_ms() < end)
		sleep_ms(2);
	CHECK(shm->b_done && !shm->a_done, "B done %d, A done %d", shm->b_done, shm->a_done);
	get_stats(&st);
	CHECK(st.paused == 1, "paused %llu, want 1 (A)", (unsigned long long)st.paused);
	CHECK(wakeup(fd, a) == 0, "WAKEUP A");
	CHECK(target_wait(&t, HANG_MS) == 0, "target did not finish after WAKEUP");
	CHECK(shm->a_done, "A did not run on");
	close(fd);

	/* Exec: the new image does not run before WAKEUP. */
	{
		char *argv[] = { DYN, "marker", "/tmp/hwt_marker", NULL };
		struct stat sb;

		unlink("/tmp/hwt_marker");
		recs_init(&r);
		CHECK(target_start(&t, fn_exec, argv) == 0, "fork");
		fd = ctx_thread("test", t.pid, 0, 65536);
		CHECK(fd >= 0, "alloc");
		CHECK(set_config(fd, HWT_CFG_PAUSE_EXEC, 20000) == 0, "config");
		CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
		target_go(&t);
		h = recs_wait(fd, &r, HWT_RECORD_EXEC, NULL, NULL, HANG_MS);
		CHECK(h && (h->flags & HWT_RECORD_PAUSED), "no paused EXEC");
		CHECK(paused_wait(1, &st) == 0, "the exec is not paused (%llu)",
		      (unsigned long long)st.paused);
		CHECK(stat("/tmp/hwt_marker", &sb) != 0, "the new image ran before WAKEUP");
		CHECK(wakeup(fd, -1) == 0, "WAKEUP all");
		CHECK(target_wait(&t, HANG_MS) == 0, "target after WAKEUP");
		CHECK(stat("/tmp/hwt_marker", &sb) == 0, "the new image did not run");
		close(fd);
	}
	return 0;
}

static int t_pause_timeout(void)
{
	struct hwt_stats s0, s1;
	struct target t;
	struct recs r;
	uint64_t t0, dt;
	int fd;

	recs_init(&r);
	get_stats(&s0);
	CHECK(target_start(&t, fn_mmap_exec, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(set_config(fd, HWT_CFG_PAUSE_MMAP, 400) == 0, "config");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	t0 = now_ms();
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target stuck");
	dt = now_ms() - t0;
	get_stats(&s1);
	/* A timer never fires early; how late depends on the guest's speed. */
	CHECK(dt >= 350, "pause lasted %llu ms, want at least 400", (unsigned long long)dt);
	CHECK(s1.pause_timeouts == s0.pause_timeouts + 1, "pause_timeouts %llu -> %llu",
	      (unsigned long long)s0.pause_timeouts, (unsigned long long)s1.pause_timeouts);
	close(fd);
	return 0;
}

/* The collector dies while the target is paused: the target runs on at once. */
static int collector_killed(void)
{
	struct hwt_stats st, s0;
	struct target t;
	int p[2], q[2];
	pid_t c;
	char ch;

	memset((void *)shm, 0, sizeof(*shm));
	CHECK(target_start(&t, fn_mmap_exec, NULL) == 0, "fork");
	CHECK(pipe(p) == 0 && pipe(q) == 0, "pipe");
	c = fork();
	if (c == 0) {
		struct recs r;
		int fd = ctx_thread("test", t.pid, 0, 65536);

		recs_init(&r);
		if (fd < 0 || set_config(fd, HWT_CFG_PAUSE_MMAP, 30000) || ioctl(fd, HWT_IOC_START))
			_exit(1);
		if (write(p[1], "r", 1) != 1)
			_exit(2);
		if (!recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, DYN, HANG_MS))
			_exit(3);
		if (write(p[1], "p", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	CHECK(read(p[0], &ch, 1) == 1 && ch == 'r', "collector failed to start");
	target_go(&t);
	CHECK(read(p[0], &ch, 1) == 1 && ch == 'p', "collector saw no MMAP");
	CHECK(paused_wait(1, &s0) == 0 && !shm->a_done, "target not paused (%llu)",
	      (unsigned long long)s0.paused);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	CHECK(target_wait(&t, HANG_MS) == 0, "target stuck after its collector died");
	/* Let go at once, not by the pause's 30 s timeout. */
	get_stats(&st);
	CHECK(st.pause_timeouts == s0.pause_timeouts, "target waited for its pause timeout (%llu -> %llu)",
	      (unsigned long long)s0.pause_timeouts, (unsigned long long)st.pause_timeouts);
	return 0;
}

static int t_pause_collector_killed(void)
{
	return collector_killed();
}

/* The target is killed while paused. */
static int target_killed(void)
{
	struct hwt_stats st;
	struct target t;
	struct recs r;
	int fd, status;

	recs_init(&r);
	memset((void *)shm, 0, sizeof(*shm));
	CHECK(target_start(&t, fn_pause, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(set_config(fd, HWT_CFG_PAUSE_MMAP, 30000) == 0, "config");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, DYN, HANG_MS), "no MMAP");
	CHECK(paused_wait(1, &st) == 0, "not paused (%llu)", (unsigned long long)st.paused);
	kill(t.pid, SIGKILL);
	status = target_wait(&t, HANG_MS);
	CHECK(status != -1, "killed target did not die");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %x", status);
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS), "no PROCESS_EXIT");
	get_stats(&st);
	CHECK(st.paused == 0, "still %llu paused", (unsigned long long)st.paused);
	free(r.buf);
	close(fd);
	return 0;
}

static int t_pause_target_killed(void)
{
	return target_killed();
}

/* Maps and unmaps until the case sets shm->flag. */
static void *busy_thread(void *arg)
{
	(void)arg;
	while (!shm->flag) {
		void *p = map_exec_file();

		if (p != MAP_FAILED)
			munmap(p, 8192);
		sched_yield();
	}
	return NULL;
}

static void fn_busy(void *arg)
{
	pthread_t th[3];
	int i;

	for (i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, busy_thread, arg);
	busy_thread(arg);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
}

/*
 * The context fd is closed while four threads of the target map and unmap:
 * once @maps MMAP records have arrived, and the threads are only told to
 * stop after it. @peak (if not NULL) gets the counts meanwhile.
 */
static int close_running(int maps, struct kcounts *peak)
{
	uint64_t end = now_ms() + HANG_MS;
	struct target t;
	struct recs r;
	int fd, n;

	shm->flag = 0;
	CHECK(target_start(&t, fn_busy, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, HWT_ALLOC_CHILDREN, 4096);
	CHECK(fd >= 0, "alloc");
	CHECK(set_config(fd, HWT_CFG_SWITCH, 1000) == 0, "config");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	recs_init(&r);
	target_go(&t);
	while ((n = recs_count(&r, HWT_RECORD_MMAP, pred_path, DYN)) < maps && now_ms() < end)
		recs_pump(fd, &r, 20);
	free(r.buf);
	kcounts_sample(peak);
	close(fd);
	shm->flag = 1;
	CHECK(n >= maps, "%d MMAP records of the target's threads in %d ms, want %d", n, HANG_MS,
	      maps);
	CHECK(target_wait(&t, HANG_MS) == 0, "target failed after the context was closed");
	return 0;
}

static int t_close_while_running(void)
{
	struct hwt_stats st;

	if (close_running(40, NULL))
		return 1;
	CHECK(stats_settle(&st, HANG_MS) == 0, "objects left: %llu contexts %llu threads %llu buffers",
	      (unsigned long long)st.contexts, (unsigned long long)st.threads,
	      (unsigned long long)st.buffers);
	return 0;
}

static void fn_short(void *arg)
{
	(void)arg;
	fn_thread(NULL);
	fn_fork(NULL);
	fn_mmap_exec(NULL);
}

/*
 * Owner first, then target first. The target makes a thread, forks a child
 * (followed) and maps an executable file. Odd rounds ask for MMAP pauses.
 */
static int exit_round(int i)
{
	int p[2];
	char ch;

	{
		struct target t;
		pid_t c;

		/* Owner first: the collector exits with the context open. */
		CHECK(target_start(&t, fn_short, NULL) == 0, "fork");
		CHECK(pipe(p) == 0, "pipe");
		c = fork();
		if (c == 0) {
			int fd = ctx_thread("test", t.pid, HWT_ALLOC_CHILDREN, 4096);

			if (fd < 0 || ioctl(fd, HWT_IOC_START))
				_exit(1);
			if (i % 2)
				set_config(fd, HWT_CFG_PAUSE_MMAP, 20000);
			_exit(write(p[1], "r", 1) == 1 ? 0 : 2);
		}
		close(p[1]);
		CHECK(read(p[0], &ch, 1) == 1, "collector failed (round %d)", i);
		close(p[0]);
		waitpid(c, NULL, 0);
		target_go(&t);
		CHECK(target_wait(&t, HANG_MS) == 0, "target after owner exit (round %d)", i);

		/* Target first: the collector reads the exit, then closes. */
		{
			struct recs r;
			int fd;

			recs_init(&r);
			CHECK(target_start(&t, fn_short, NULL) == 0, "fork");
			fd = ctx_thread("test", t.pid, HWT_ALLOC_CHILDREN, 4096);
			CHECK(fd >= 0, "alloc");
			CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
			target_go(&t);
			CHECK(target_wait(&t, HANG_MS) == 0, "target (round %d)", i);
			CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, HANG_MS),
			      "no PROCESS_EXIT (round %d)", i);
			free(r.buf);
			close(fd);
		}
	}
	return 0;
}

/* Owner and target exit in either order, many times over; nothing leaks. */
static int t_exit_orders(void)
{
	struct hwt_stats st;
	int i;

	for (i = 0; i < 20; i++)
		if (exit_round(i))
			return 1;
	CHECK(stats_settle(&st, HANG_MS) == 0,
	      "leak: %llu contexts %llu threads %llu buffers %llu works %llu paused",
	      (unsigned long long)st.contexts, (unsigned long long)st.threads,
	      (unsigned long long)st.buffers, (unsigned long long)st.works,
	      (unsigned long long)st.paused);
	return 0;
}

/* A full record queue counts what it drops and says so with a LOST record. */
static int t_lost(void)
{
	const struct hwt_record_header *h;
	struct hwt_stats s0, s1;
	struct hwt_alloc a;
	struct target t;
	struct recs r;
	int fd;

	recs_init(&r);
	get_stats(&s0);
	CHECK(target_start(&t, fn_switches, (void *)(intptr_t)400) == 0, "fork");
	alloc_init(&a, "test", HWT_MODE_THREAD);
	a.pid = t.pid;
	a.recq_size = 4096;
	fd = do_alloc(&a);
	CHECK(fd >= 0, "alloc");
	CHECK(set_config(fd, HWT_CFG_SWITCH, 1000) == 0, "config");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	recs_drain(fd, &r, 200);
	h = recs_find(&r, HWT_RECORD_LOST, NULL, NULL);
	CHECK(h, "no LOST record (%zu bytes read)", r.len);
	CHECK(((const struct hwt_record_lost *)h)->reason == HWT_LOST_RECORD_QUEUE &&
	      ((const struct hwt_record_lost *)h)->records > 0, "LOST fields");
	get_stats(&s1);
	CHECK(s1.records_lost > s0.records_lost, "records_lost not counted");
	CHECK(recs_count(&r, HWT_RECORD_SWITCH, NULL, NULL) > 0, "no SWITCH records");
	CHECK(!r.corrupt, "corrupt record");
	close(fd);
	return 0;
}

/* THREAD-mode buffer fills: BUFFER records and the write pointer wrap. */
static int t_buffer_full(void)
{
	const struct hwt_record_header *h;
	struct hwt_bufptr bp;
	struct target t;
	struct recs r;
	int fd;

	recs_init(&r);
	CHECK(target_start(&t, fn_switches, (void *)(intptr_t)400) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 4096);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	h = recs_wait(fd, &r, HWT_RECORD_BUFFER, NULL, NULL, HANG_MS);
	CHECK(h && ((const struct hwt_record_buffer *)h)->buffer == (uint32_t)t.pid,
	      "no BUFFER record for the thread");
	CHECK(bufptr(fd, t.pid, &bp) == 0 && bp.wraps >= 1 && bp.offset >= 4096,
	      "wraps %llu offset %llu", (unsigned long long)bp.wraps, (unsigned long long)bp.offset);
	close(fd);
	return 0;
}

static int t_poll(void)
{
	struct pollfd p;
	struct target t;
	int fd;

	shm->step = 0;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	p.fd = fd;
	p.events = POLLIN;
	CHECK(poll(&p, 1, 100) == 0, "poll ready on an empty queue");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	CHECK(poll(&p, 1, 1000) == 1 && (p.revents & POLLIN), "poll not ready with records queued");
	target_go(&t);
	shm->step = 1;
	target_wait(&t, HANG_MS);
	close(fd);
	return 0;
}

/* A backend in use cannot be unloaded, nor the framework. */
static int t_rmmod_busy(void)
{
	struct target t;
	int fd, r1, e1, r2, e2;

	shm->step = 0;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	r1 = syscall(SYS_delete_module, "hwt_test", O_NONBLOCK);
	e1 = errno;
	r2 = syscall(SYS_delete_module, "hwt", O_NONBLOCK);
	e2 = errno;
	CHECK(r1 < 0 && (e1 == EAGAIN || e1 == EBUSY), "hwt_test unloaded while in use (%d %d)", r1, e1);
	CHECK(r2 < 0 && (e2 == EAGAIN || e2 == EBUSY), "hwt unloaded while in use (%d %d)", r2, e2);
	target_go(&t);
	shm->step = 1;
	target_wait(&t, HANG_MS);
	close(fd);
	return 0;
}

/* The module's caches are listed under their own names (not merged into others). */
static int t_slab_names(void)
{
	struct kcounts k;
	char err[128];

	CHECK(kcounts_read(&k, err, sizeof(err)) == 0, "%s", err);
	CHECK(kbase_ok, "no baseline counts before the first case");
	return 0;
}

/* A CPU-mode context over both CPUs while a process switches and execs. */
static int cpu_round(struct kcounts *peak)
{
	char *argv[] = { DYN, "exit", NULL };
	struct target t, tx;
	int fd;

	fd = ctx_cpu("test2", 3, 4096);
	CHECK(fd >= 0, "alloc CPU mode: %s", strerror(-fd));
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	CHECK(target_start(&t, fn_switches, (void *)(intptr_t)50) == 0, "fork");
	CHECK(target_start(&tx, fn_exec, argv) == 0, "fork");
	target_go(&t);
	target_go(&tx);
	kcounts_sample(peak);
	CHECK(target_wait(&t, HANG_MS) == 0 && target_wait(&tx, HANG_MS) == 0, "targets");
	close(fd);
	return 0;
}

/*
 * Churn: owner and target exiting in either order, the context closed while
 * its target runs, the collector killed while the target is paused, the
 * target killed while paused, CPU-mode contexts; many times. Afterwards the
 * module's caches hold as many objects as before (none) and no vmalloc area
 * of hwt.ko is left, besides the module's own counters being zero.
 */
#define CHURN_ROUNDS 8

static int t_churn(void)
{
	struct kcounts before, peak, after;
	char err[128], fig[512];
	int i;

	kcounts_settle(&kbase, &before, 5000);	/* what earlier cases left is no_leak's business */
	CHECK(kcounts_read(&before, err, sizeof(err)) == 0, "counts: %s", err);
	peak = before;
	for (i = 0; i < CHURN_ROUNDS; i++) {
		if (exit_round(i) || close_running(8, &peak) || collector_killed() ||
		    target_killed() || cpu_round(&peak))
			return 1;
	}
	i = kcounts_settle(&before, &after, HANG_MS);
	kcounts_fmt(fig, sizeof(fig), &before, &peak, &after);
	sub("churn.counts", i == 0, "%d rounds: %s", CHURN_ROUNDS, fig);
	CHECK(i == 0, "objects left after churn: %s", fig);
	for (i = 0; i < NSLAB; i++)
		CHECK(i == SLAB_SELECT || peak.slab[i] > before.slab[i],
		      "cache %s never used during churn", slab_names[i]);
	CHECK(peak.vm_areas > before.vm_areas, "no vmalloc area of hwt.ko seen during churn");
	return 0;
}

/* ---- selection (HWT_CFG_SELECT) ---- */

static int set_select(int fd, uint32_t flags, uint32_t timeout_ms, const char *trace,
		      const char *no_trace)
{
	struct hwt_config c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = flags;
	c.pause_timeout_ms = timeout_ms;
	if (trace) {
		c.select_trace = (uintptr_t)trace;
		c.select_trace_size = strlen(trace);
	}
	if (no_trace) {
		c.select_no_trace = (uintptr_t)no_trace;
		c.select_no_trace_size = strlen(no_trace);
	}
	return ioctl(fd, HWT_IOC_SET_CONFIG, &c) ? -errno : 0;
}

struct untraced_q {
	const char *path;
	const char *why;	/* NULL: any reason */
	pid_t tid;		/* 0: any thread */
};

static int pred_untraced(const struct hwt_record_header *h, const void *arg)
{
	const struct untraced_q *q = arg;

	return !strcmp(untraced_path(h), q->path) && (!q->why || !strcmp(untraced_why(h), q->why)) &&
	       (!q->tid || h->tid == (uint32_t)q->tid);
}

/* Entries the test backend wrote for thread @tid: HWT_TEST_THREAD_IN ones in *in. */
static int sel_entries(int fd, pid_t tid, int *in)
{
	const struct hwt_test_entry *e;
	struct hwt_bufptr bp;
	uint64_t i, n;
	void *m;

	*in = 0;
	if (bufptr(fd, tid, &bp))
		return -1;
	m = mmap(NULL, bp.bufsize, PROT_READ, MAP_SHARED, fd, HWT_MMAP_OFFSET(tid));
	if (m == MAP_FAILED)
		return -1;
	n = bp.offset / sizeof(*e);
	if (n > bp.bufsize / sizeof(*e))
		n = bp.bufsize / sizeof(*e);
	for (i = 0, e = m; i < n; i++, e++)
		*in += e->what == HWT_TEST_THREAD_IN && e->id == (uint32_t)tid;
	munmap(m, bp.bufsize);
	return (int)n;
}

/*
 * Starts "sh -c CMD" (busybox, a system binary) under a THREAD-mode
 * context following children, selecting with the given lists. Returns
 * the context fd.
 */
static int sel_start(struct target *t, char **argv, uint32_t cfg, const char *trace,
		     const char *no_trace)
{
	int fd, r;

	if (target_start(t, fn_exec, argv))
		return -1;
	fd = ctx_thread("test", t->pid, HWT_ALLOC_CHILDREN, 65536);
	if (fd < 0)
		return -1;
	r = set_select(fd, HWT_CFG_SELECT | cfg, 30000, trace, no_trace);
	if (r || ioctl(fd, HWT_IOC_START)) {
		close(fd);
		return -1;
	}
	target_go(t);
	return fd;
}

/*
 * A traced shell (a system binary: untraced, still followed) runs a
 * program with DWARF (traced: EXEC, MMAP, backend entries, a pause after
 * EXEC) and a stripped one (UNTRACED "no debug info", no buffer).
 */
static int t_select_shell(void)
{
	char *argv[] = { "/bin/sh", "-c", SEL_DBG " 50 exit; " SEL_NODBG " 20 exit; true", NULL };
	struct untraced_q qsh = { BUSYBOX, "system binary", 0 };
	struct untraced_q qno = { SEL_NODBG, "no debug info", 0 };
	const struct hwt_record_header *h, *u;
	struct hwt_bufptr b0, bsh;
	struct target t;
	struct recs r;
	int fd, n, in;
	pid_t child;

	recs_init(&r);
	fd = sel_start(&t, argv, HWT_CFG_PAUSE_EXEC, NULL, NULL);
	CHECK(fd >= 0, "context");
	u = recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_untraced, &qsh, HANG_MS);
	CHECK(u, "no UNTRACED \"system binary\" for the shell");
	CHECK(u->pid == (uint32_t)t.pid && u->tid == (uint32_t)t.pid &&
	      !(u->flags & HWT_RECORD_PAUSED), "UNTRACED pid %u tid %u flags %#x", u->pid, u->tid,
	      u->flags);
	/* Not paused: the shell goes on to run the program (the pause would be 30 s). */
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, SEL_DBG, HANG_MS);
	CHECK(h, "no EXEC of %s", SEL_DBG);
	/* The shell has forked since its exec: its buffer must not move from here on. */
	CHECK(bufptr(fd, t.pid, &bsh) == 0, "BUFPTR shell");
	child = h->tid;
	CHECK(h->pid == (uint32_t)child && child != t.pid &&
	      ((const struct hwt_record_process *)h)->ppid == (uint32_t)t.pid,
	      "EXEC pid %u tid %u ppid %u", h->pid, h->tid,
	      ((const struct hwt_record_process *)h)->ppid);
	CHECK(h->flags & HWT_RECORD_PAUSED, "EXEC of the selected program not paused");
	CHECK(wakeup(fd, child) == 0, "WAKEUP");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, SEL_DBG, HANG_MS), "no MMAP of %s", SEL_DBG);
	u = recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_untraced, &qno, HANG_MS);
	CHECK(u, "no UNTRACED \"no debug info\" for %s", SEL_NODBG);
	CHECK(u->tid != (uint32_t)t.pid && u->tid != (uint32_t)child, "UNTRACED tid %u", u->tid);
	CHECK(bufptr(fd, u->tid, &b0) == -ENOENT, "a buffer for the unselected child");
	CHECK(target_wait(&t, HANG_MS) == 0, "shell");
	recs_drain(fd, &r, 200);
	CHECK(!r.corrupt, "corrupt record");
	h = recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &child);
	CHECK(h && ((const struct hwt_record_exit *)h)->status == 0, "no PROCESS_EXIT of the child");
	CHECK(!recs_find(&r, HWT_RECORD_EXEC, pred_path, SEL_NODBG) &&
	      !recs_find(&r, HWT_RECORD_EXEC, pred_path, BUSYBOX), "EXEC of an unselected image");
	CHECK(!recs_find(&r, HWT_RECORD_FORK, pred_pid, &t.pid) &&
	      !recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid),
	      "records of the untraced shell");
	n = sel_entries(fd, child, &in);
	CHECK(n >= 2 && in >= 1, "backend entries of the selected child: %d, %d switch-ins", n, in);
	/* The shell's buffer (made at ALLOC) stopped with its exec. */
	CHECK(bufptr(fd, t.pid, &b0) == 0 && b0.offset == bsh.offset,
	      "shell buffer advanced after its exec: %llu -> %llu",
	      (unsigned long long)bsh.offset, (unsigned long long)b0.offset);
	snprintf(shm->msg, sizeof(shm->msg), "child %d: %d entries, %d switch-ins", child, n, in);
	printf("KINFO select_shell %s\n", shm->msg);
	close(fd);
	return 0;
}

/* --trace on a system binary, --no-trace on a program with DWARF, bracket globs. */
static int t_select_globs(void)
{
	char *argv[] = { "/bin/sh", "-c", SEL_DBG " 0 exit; " SEL_NODBG " 0 exit; true", NULL };
	struct untraced_q qdbg = { SEL_DBG, "--no-trace", 0 };
	const struct hwt_record_header *h;
	struct target t;
	struct recs r;
	int fd, n, in;

	recs_init(&r);
	fd = sel_start(&t, argv, 0, "busybox\n\n*/hwt_sel_[n]odbg", "hwt_sel_d?g");
	CHECK(fd >= 0, "context");
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, BUSYBOX, HANG_MS);
	CHECK(h && h->tid == (uint32_t)t.pid, "no EXEC of the shell (--trace busybox)");
	CHECK(recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_untraced, &qdbg, HANG_MS),
	      "no UNTRACED \"--no-trace\" for %s", SEL_DBG);
	CHECK(recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, SEL_NODBG, HANG_MS),
	      "no EXEC of %s (--trace */hwt_sel_[n]odbg)", SEL_NODBG);
	CHECK(target_wait(&t, HANG_MS) == 0, "shell");
	recs_drain(fd, &r, 200);
	CHECK(!r.corrupt, "corrupt record");
	CHECK(!recs_find(&r, HWT_RECORD_EXEC, pred_path, SEL_DBG), "EXEC of a --no-trace image");
	/* The traced shell forks: FORK records, and its exit. */
	CHECK(recs_find(&r, HWT_RECORD_FORK, pred_pid, &t.pid), "no FORK of the traced shell");
	CHECK(recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid), "no exit of the traced shell");
	n = sel_entries(fd, t.pid, &in);
	CHECK(n >= 2 && in >= 1, "backend entries of the shell: %d, %d switch-ins", n, in);
	close(fd);
	return 0;
}

/* Separate debug files: .gnu_debuglink in .debug/, and by build-id. */
static int t_select_debug_files(void)
{
	char *argv[] = { "/bin/sh", "-c", SEL_LINK " 0 exit; " SEL_BID " 0 exit; true", NULL };
	struct target t;
	struct recs r;
	int fd;

	recs_init(&r);
	fd = sel_start(&t, argv, 0, NULL, NULL);
	CHECK(fd >= 0, "context");
	CHECK(recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, SEL_LINK, HANG_MS),
	      "no EXEC of %s (.gnu_debuglink)", SEL_LINK);
	CHECK(recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, SEL_BID, HANG_MS),
	      "no EXEC of %s (build-id debug file)", SEL_BID);
	CHECK(target_wait(&t, HANG_MS) == 0, "shell");
	recs_drain(fd, &r, 200);
	CHECK(!r.corrupt, "corrupt record");
	CHECK(recs_count(&r, HWT_RECORD_UNTRACED, NULL, NULL) == 1, "%d UNTRACED records (want the shell's)",
	      recs_count(&r, HWT_RECORD_UNTRACED, NULL, NULL));
	close(fd);
	return 0;
}

/*
 * Descendants of untraced processes: an unselected program forks a child
 * that execs a selected one (the grandchild of the shell is traced), and
 * another execs a selected one itself (tracing comes back in that thread).
 */
static int t_select_descendants(void)
{
	char *argv[] = { "/bin/sh", "-c",
			 SEL_NODBG " 0 fork " SEL_DBG " 30 exit; "
			 SEL_NODBG " 0 exec " SEL_DBG " 30 exit; true", NULL };
	struct untraced_q qno = { SEL_NODBG, "no debug info", 0 };
	const struct hwt_record_header *ua, *ub, *h;
	struct target t;
	struct recs r;
	size_t off;
	pid_t a, b, g;
	int fd, n, in;

	recs_init(&r);
	fd = sel_start(&t, argv, 0, NULL, NULL);
	CHECK(fd >= 0, "context");
	CHECK(target_wait(&t, HANG_MS) == 0, "shell");
	recs_drain(fd, &r, 300);
	CHECK(!r.corrupt, "corrupt record");
	CHECK(recs_count(&r, HWT_RECORD_UNTRACED, pred_untraced, &qno) == 2,
	      "%d UNTRACED records of %s, want 2",
	      recs_count(&r, HWT_RECORD_UNTRACED, pred_untraced, &qno), SEL_NODBG);
	CHECK(recs_count(&r, HWT_RECORD_EXEC, pred_path, SEL_DBG) == 2, "%d EXEC of %s, want 2",
	      recs_count(&r, HWT_RECORD_EXEC, pred_path, SEL_DBG), SEL_DBG);
	ua = recs_find(&r, HWT_RECORD_UNTRACED, pred_untraced, &qno);
	a = ua->tid;
	off = (const unsigned char *)ua - r.buf + ua->size;
	{
		struct recs rest = { r.buf + off, r.len - off, r.cap - off, 0 };

		ub = recs_find(&rest, HWT_RECORD_UNTRACED, pred_untraced, &qno);
	}
	b = ub->tid;
	/* The grandchild: forked by the untraced A, traced from its exec on. */
	h = recs_find(&r, HWT_RECORD_EXEC, pred_path, SEL_DBG);
	g = h->tid;
	CHECK(g != a && g != b && ((const struct hwt_record_process *)h)->ppid == (uint32_t)a,
	      "grandchild EXEC tid %d ppid %u (A %d B %d)", g, ((const struct hwt_record_process *)h)->ppid,
	      a, b);
	CHECK(!recs_find(&r, HWT_RECORD_FORK, pred_pid, &a), "FORK record of the untraced A");
	n = sel_entries(fd, g, &in);
	CHECK(n >= 2 && in >= 1, "grandchild entries: %d, %d switch-ins", n, in);
	h = recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &g);
	CHECK(h && ((const struct hwt_record_exit *)h)->status == 0, "no exit of the grandchild");
	/* B: UNTRACED, then EXEC of the selected image in the same thread. */
	{
		struct tid_path tp = { b, SEL_DBG };

		h = recs_find(&r, HWT_RECORD_EXEC, pred_tid_path, &tp);
		CHECK(h && (const void *)h > (const void *)ub, "no EXEC of %s by B (%d) after its UNTRACED",
		      SEL_DBG, b);
		CHECK(recs_find(&r, HWT_RECORD_MMAP, pred_tid_path, &tp), "no MMAP of B's new image");
	}
	n = sel_entries(fd, b, &in);
	CHECK(n >= 2 && in >= 1, "B entries: %d, %d switch-ins", n, in);
	CHECK(recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &b), "no exit of B");
	CHECK(!recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &a), "exit record of the untraced A");
	printf("KINFO select_descendants A %d grandchild %d B %d\n", a, g, b);
	close(fd);
	return 0;
}

/*
 * A set-user-ID program under a root owner (who may still trace it): the
 * rule's own set-ID step leaves it untraced but followed, unlike the
 * owner-permission rule (exec_setuid_untraced), which stops following.
 * --no-trace beats --trace.
 */
static int t_select_setuid_root(void)
{
	char *argv[] = { "/bin/sh", "-c", SUID " 20 fork > /dev/null; " SEL_DBG " 0 exit; true",
			 NULL };
	struct untraced_q qsuid = { SUID, HWT_RULE_WHY_SET_ID_TEXT, 0 };
	struct untraced_q qdbg = { SEL_DBG, "--no-trace", 0 };
	const struct hwt_record_header *u;
	struct target t;
	struct recs r;
	pid_t s;
	int fd;

	CHECK(suid_installed(), "%s is not set-user-ID root", SUID);
	recs_init(&r);
	fd = sel_start(&t, argv, 0, "busybox\nhwt_sel_dbg", "/opt/*_dbg");
	CHECK(fd >= 0, "context");
	CHECK(target_wait(&t, HANG_MS) == 0, "shell");
	recs_drain(fd, &r, 300);
	CHECK(!r.corrupt, "corrupt record");
	CHECK(recs_find(&r, HWT_RECORD_EXEC, pred_path, BUSYBOX), "no EXEC of the --trace'd shell");
	u = recs_find(&r, HWT_RECORD_UNTRACED, pred_untraced, &qsuid);
	CHECK(u, "no UNTRACED \"setuid or setgid\" for %s", SUID);
	s = u->pid;
	/* Followed, so its fork is not recorded, and neither are exits. */
	CHECK(!recs_find(&r, HWT_RECORD_FORK, pred_pid, &s) &&
	      !recs_find(&r, HWT_RECORD_PROCESS_EXIT, pred_pid, &s), "records of the set-ID process");
	CHECK(recs_find(&r, HWT_RECORD_UNTRACED, pred_untraced, &qdbg),
	      "no UNTRACED \"--no-trace\" for %s (listed in both)", SEL_DBG);
	CHECK(!recs_find(&r, HWT_RECORD_EXEC, pred_path, SEL_DBG), "EXEC of %s", SEL_DBG);
	close(fd);
	return 0;
}

/* Selection turned off: the next exec of an untraced thread's child is traced again. */
static int t_select_off(void)
{
	char *argv[] = { "/bin/sh", "-c", "read x < /tmp/hwt_sel_fifo; " SEL_NODBG " 0 exit; true",
			 NULL };
	struct untraced_q qsh = { BUSYBOX, "system binary", 0 };
	const struct hwt_record_header *h;
	struct target t;
	struct recs r;
	int fd, w;

	recs_init(&r);
	unlink("/tmp/hwt_sel_fifo");
	CHECK(mkfifo("/tmp/hwt_sel_fifo", 0600) == 0, "mkfifo");
	fd = sel_start(&t, argv, 0, NULL, NULL);
	CHECK(fd >= 0, "context");
	CHECK(recs_wait(fd, &r, HWT_RECORD_UNTRACED, pred_untraced, &qsh, HANG_MS), "no UNTRACED shell");
	CHECK(set_select(fd, 0, 0, NULL, NULL) == 0, "SET_CONFIG without selection");
	w = open("/tmp/hwt_sel_fifo", O_WRONLY);
	CHECK(w >= 0 && write(w, "go\n", 3) == 3, "fifo");
	close(w);
	h = recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, SEL_NODBG, HANG_MS);
	CHECK(h, "no EXEC of %s with selection off", SEL_NODBG);
	CHECK(target_wait(&t, HANG_MS) == 0, "shell");
	recs_drain(fd, &r, 200);
	CHECK(recs_count(&r, HWT_RECORD_UNTRACED, NULL, NULL) == 1, "UNTRACED with selection off");
	unlink("/tmp/hwt_sel_fifo");
	close(fd);
	return 0;
}

/* SET_CONFIG with @c must fail with @want (0: succeed); one sub-case line. */
static void sel_expect(const char *name, int fd, const void *c, int want)
{
	int e = ioctl(fd, HWT_IOC_SET_CONFIG, c) ? errno : 0;

	sub(name, e == want, "errno %d, want %d", e, want);
}

static int t_select_bad_args(void)
{
	static char big[HWT_SELECT_GLOBS_MAX + 8];
	unsigned char grown[sizeof(struct hwt_config) + 8];
	struct hwt_config c;
	struct target t;
	struct kcounts before, peak, after;
	char err[128], fig[512];
	int fd, cfd, i;

	kcounts_settle(&kbase, &before, 5000);
	CHECK(kcounts_read(&before, err, sizeof(err)) == 0, "counts: %s", err);
	peak = before;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, HWT_ALLOC_CHILDREN, 65536);
	CHECK(fd >= 0, "alloc");
	memset(big, 'a', sizeof(big));
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = HWT_CFG_SELECT;
	c.select_trace = (uintptr_t)big;
	c.select_trace_size = HWT_SELECT_GLOBS_MAX + 1;
	sel_expect("select_bad_args.trace_too_big", fd, &c, EINVAL);
	c.select_trace_size = 0;
	c.select_no_trace = (uintptr_t)big;
	c.select_no_trace_size = HWT_SELECT_GLOBS_MAX + 1;
	sel_expect("select_bad_args.no_trace_too_big", fd, &c, EINVAL);
	c.select_no_trace_size = 0xffffffffu;
	sel_expect("select_bad_args.size_huge", fd, &c, EINVAL);
	c.select_no_trace = 16;
	c.select_no_trace_size = 8;
	sel_expect("select_bad_args.bad_pointer", fd, &c, EFAULT);
	c.select_no_trace = 0;
	c.select_no_trace_size = 0;
	c.select_trace = 4096;
	c.select_trace_size = 1;
	sel_expect("select_bad_args.bad_pointer_trace", fd, &c, EFAULT);
	c.select_trace = (uintptr_t)"a\0b";
	c.select_trace_size = 3;
	sel_expect("select_bad_args.nul_in_list", fd, &c, EINVAL);
	c.select_trace = (uintptr_t)"prog";
	c.select_trace_size = 4;
	c.flags = 0;
	sel_expect("select_bad_args.lists_without_flag", fd, &c, EINVAL);
	c.flags = HWT_CFG_SELECT | 0x10;
	sel_expect("select_bad_args.flags_unknown", fd, &c, EINVAL);
	memset(grown, 0, sizeof(grown));
	c.flags = HWT_CFG_SELECT;
	memcpy(grown, &c, sizeof(c));
	((struct hwt_config *)grown)->size = sizeof(grown);
	grown[sizeof(c) + 3] = 1;
	sel_expect("select_bad_args.grown_nonzero_tail", fd, grown, E2BIG);
	grown[sizeof(c) + 3] = 0;
	sel_expect("select_bad_args.grown_zero_tail_ok", fd, grown, 0);
	c.select_trace = (uintptr_t)big;
	c.select_trace_size = HWT_SELECT_GLOBS_MAX;
	c.select_no_trace = (uintptr_t)big;
	c.select_no_trace_size = HWT_SELECT_GLOBS_MAX;
	sel_expect("select_bad_args.max_lists_ok", fd, &c, 0);
	kcounts_sample(&peak);	/* the context's lists are live now */
	c.size = HWT_CONFIG_SIZE_VER0;	/* an old caller: no selection fields */
	c.flags = 0;
	sel_expect("select_bad_args.ver0_ok", fd, &c, 0);
	c.flags = HWT_CFG_SELECT;	/* selection with no lists: the rule alone */
	sel_expect("select_bad_args.ver0_select_ok", fd, &c, 0);
	cfd = ctx_cpu("test2", 1, 65536);
	CHECK(cfd >= 0, "alloc CPU mode: %s", strerror(-cfd));
	c.size = sizeof(c);
	c.select_trace_size = 0;
	c.select_no_trace_size = 0;
	sel_expect("select_bad_args.cpu_mode", cfd, &c, EINVAL);
	close(cfd);
	close(fd);
	shm->step = 1;
	target_go(&t);
	CHECK(target_wait(&t, HANG_MS) == 0, "target");
	/* The refused configurations left nothing; the accepted lists went with the context. */
	i = kcounts_settle(&before, &after, HANG_MS);
	kcounts_fmt(fig, sizeof(fig), &before, &peak, &after);
	sub("select_bad_args.counts", i == 0 && peak.slab[SLAB_SELECT] == before.slab[SLAB_SELECT] + 1,
	    "%s", fig);
	return 0;
}

/* Last: the module holds nothing more than before the first case. */
static int t_no_leak(void)
{
	struct hwt_stats st;
	struct kcounts now;
	char fig[512];
	int r;

	CHECK(stats_settle(&st, HANG_MS) == 0,
	      "leak: %llu contexts %llu threads %llu buffers %llu works %llu paused",
	      (unsigned long long)st.contexts, (unsigned long long)st.threads,
	      (unsigned long long)st.buffers, (unsigned long long)st.works,
	      (unsigned long long)st.paused);
	CHECK(kbase_ok, "no baseline counts");
	r = kcounts_settle(&kbase, &now, HANG_MS);
	kcounts_fmt(fig, sizeof(fig), &kbase, NULL, &now);
	sub("no_leak.counts", r == 0, "start/end: %s", fig);
	CHECK(r == 0, "objects left since the start: %s", fig);
	return 0;
}

/* ---- fuzz: random ioctl sequences against hwt.ko and the test backends ---- */

#define FUZZ_SEED_DEFAULT 0x68777466757a7aull	/* "hwtfuzz" */
#define FUZZ_ROUNDS_DEFAULT 600
#define FUZZ_SLOTS 4
#define FUZZ_MAPS 8

static uint64_t fuzz_state;
/*
 * Whether this round's call may be odd (a third of them): the others are
 * well formed, so that contexts live long enough for the odd calls to
 * reach the states behind them.
 */
static int fuzz_odd;

/* xorshift64*: the same sequence for the same seed on every machine. */
static uint64_t fuzz_rand(void)
{
	fuzz_state ^= fuzz_state >> 12;
	fuzz_state ^= fuzz_state << 25;
	fuzz_state ^= fuzz_state >> 27;
	return fuzz_state * 0x2545f4914f6cdd1dull;
}

static uint64_t fuzz_below(uint64_t n)
{
	return fuzz_rand() % n;
}

static uint64_t fuzz_env(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/*
 * Argument memory: a writable arena whose last page is followed by a
 * PROT_NONE page, so that a struct placed near its end is cut off by a
 * fault, and a read-only page (the kernel's copy out fails).
 */
struct fuzz_mem {
	unsigned char *arena;	/* FUZZ_ARENA bytes, then a guard page */
	unsigned char *ro;	/* one read-only page */
};
#define FUZZ_ARENA (64u << 10)

/* What kind of pointer fuzz_ptr gave: whether the call may succeed. */
enum { FUZZ_PTR_OK, FUZZ_PTR_BAD, FUZZ_PTR_CUT, FUZZ_PTR_RO };

/*
 * A pointer to @len bytes of @src as an ioctl argument: in the arena (most
 * often), NULL, a kernel address, a non-canonical one, an unmapped page,
 * cut off by the guard page, or read-only. *@kind tells which.
 */
static void *fuzz_ptr(struct fuzz_mem *m, const void *src, size_t len, int *kind)
{
	static const uint64_t bad[] = { 0, 1, 0xffff888000000000ull, 0xffffffffff600000ull,
					0x0000800000000000ull, 0xdead0000ull };
	uint64_t r = fuzz_odd ? fuzz_below(16) : 0;
	size_t cut;

	if (len > FUZZ_ARENA)
		len = FUZZ_ARENA;
	if (r < 10) {
		*kind = FUZZ_PTR_OK;
		memcpy(m->arena, src, len);
		return m->arena;
	}
	if (r < 13) {
		*kind = FUZZ_PTR_BAD;
		return (void *)(uintptr_t)bad[fuzz_below(sizeof(bad) / sizeof(bad[0]))];
	}
	if (r < 15 && len > 1) {
		*kind = FUZZ_PTR_CUT;
		cut = 1 + fuzz_below(len - 1);	/* bytes readable before the guard */
		memcpy(m->arena + FUZZ_ARENA - cut, src, cut);
		return m->arena + FUZZ_ARENA - cut;
	}
	*kind = FUZZ_PTR_RO;
	return m->ro;
}

/* A struct size: the right one mostly, else around the versions or absurd. */
static uint32_t fuzz_size(uint32_t right, uint32_t ver0)
{
	static const uint32_t odd[] = { 0, 1, 4, 7, 4096, 4097, 65536, 0x7fffffffu, 0xffffffffu };

	if (!fuzz_odd)
		return right;
	switch (fuzz_below(8)) {
	case 0:
		return odd[fuzz_below(sizeof(odd) / sizeof(odd[0]))];
	case 1:
		return ver0 - 1 + (uint32_t)fuzz_below(3);
	case 2:
		return right + 8 * (uint32_t)fuzz_below(4);
	default:
		return right;
	}
}

/* errnos the module may answer with; anything else (EIO, ERESTARTSYS leaking...) fails */
static int fuzz_errno_ok(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case E2BIG: case ENOENT: case ESRCH: case EBUSY:
	case ENOTTY: case EPERM: case EACCES: case EAGAIN: case ENOMEM: case EBADF:
	case ENODEV: case ENXIO: case EOPNOTSUPP: case EEXIST: case ENOSPC: case EOVERFLOW:
	case EXDEV: case EINTR:
		return 1;
	default:
		return 0;
	}
}

struct fuzz {
	struct fuzz_mem mem;
	int ctx[FUZZ_SLOTS];		/* context fds, -1 when free */
	struct { void *p; size_t len; } map[FUZZ_MAPS];
	struct target t;		/* the traced process */
	int devnull;			/* an fd that is not a context */
	int nops, nok, nbad_errno, nbad_ok;
	char first_bad[256];
};

static void fuzz_note(struct fuzz *f, const char *what, long r, int e, int ptr_kind)
{
	f->nops++;
	if (r >= 0) {
		f->nok++;
		/* A struct the kernel could not read (or write back) must not be taken. */
		if (ptr_kind == FUZZ_PTR_BAD || ptr_kind == FUZZ_PTR_CUT || ptr_kind == FUZZ_PTR_RO) {
			if (!f->nbad_ok++ && !f->first_bad[0])
				snprintf(f->first_bad, sizeof(f->first_bad),
					 "%s succeeded with an unusable argument pointer (kind %d)",
					 what, ptr_kind);
		}
		return;
	}
	if (!fuzz_errno_ok(e) && !f->nbad_errno++ && !f->first_bad[0])
		snprintf(f->first_bad, sizeof(f->first_bad), "%s: unexpected errno %d (%s)", what, e,
			 strerror(e));
}

/*
 * The traced process: maps and unmaps an executable file (MMAP records,
 * pauses), and at the fuzzer's request makes a thread, forks, or execs
 * hwt_dyn, which waits there until killed (an exec while traced).
 */
static void fuzz_target_body(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = map_exec_file();
		int cmd = shm->step;

		if (p != MAP_FAILED)
			munmap(p, 8192);
		if (cmd) {
			shm->step = 0;
			if (cmd == 1) {
				char *argv[] = { DYN, "wait", "/tmp/hwt_fuzz_wait", NULL };

				execv(DYN, argv);
				_exit(98);
			} else if (cmd == 2) {
				fn_thread(NULL);
			} else {
				fn_fork(NULL);
			}
		}
		sched_yield();
	}
}

static void fuzz_target_restart(struct fuzz *f)
{
	if (f->t.pid > 0) {
		kill(f->t.pid, SIGKILL);
		target_wait(&f->t, HANG_MS);
	}
	shm->step = 0;
	if (target_start(&f->t, fuzz_target_body, NULL) == 0)
		target_go(&f->t);
}

/* A pid for ALLOC: the target mostly; never init or this case's parent. */
static pid_t fuzz_pid(struct fuzz *f)
{
	switch (fuzz_below(8)) {
	case 0: return getpid();
	case 1: return 0;
	case 2: return -1;
	case 3: return 0x3fffffff;
	default: return f->t.pid;
	}
}

/* A buffer id: the target's tid, a CPU, or nonsense. */
static uint32_t fuzz_id(struct fuzz *f)
{
	switch (fuzz_below(6)) {
	case 0: return (uint32_t)fuzz_below(3);
	case 1: return (uint32_t)fuzz_rand();
	case 2: return (uint32_t)getpid();
	default: return (uint32_t)f->t.pid;
	}
}

/* A context fd, or now and then something that is not one. */
static int fuzz_fd(struct fuzz *f, int *slot)
{
	int i = (int)fuzz_below(FUZZ_SLOTS), k;

	if (fuzz_odd && fuzz_below(5) == 0) {
		*slot = i;
		return fuzz_below(2) ? -1 : f->devnull;	/* not a context */
	}
	for (k = 0; !fuzz_odd && k < FUZZ_SLOTS && f->ctx[i] < 0; k++)
		i = (i + 1) % FUZZ_SLOTS;		/* a live one if any */
	*slot = i;
	return f->ctx[i];
}

static void fuzz_alloc(struct fuzz *f)
{
	static const char *const names[] = { "test", "test2", "", "nosuch", "test\ttest" };
	static const uint64_t bufsizes[] = { 4096, 8192, 65536, 0, 4095, 12288, 1ull << 40 };
	unsigned long cpus[2] = { 1 + fuzz_below(3), 0 };
	struct hwt_alloc a;
	int slot = (int)fuzz_below(FUZZ_SLOTS), kind, dev, r, e;
	void *p;

	memset(&a, 0, sizeof(a));
	a.size = fuzz_size(sizeof(a), HWT_ALLOC_SIZE_VER0);
	a.mode = fuzz_below(8) ? (fuzz_below(4) ? HWT_MODE_THREAD : HWT_MODE_CPU) : (uint32_t)fuzz_below(5);
	snprintf(a.backend_name, sizeof(a.backend_name), "%s", names[fuzz_below(fuzz_below(4) ? 2 : 5)]);
	if (fuzz_below(20) == 0)
		memset(a.backend_name, 'x', sizeof(a.backend_name));	/* unterminated */
	if (a.mode == HWT_MODE_CPU || fuzz_below(10) == 0) {
		a.cpu_map = fuzz_below(8) ? (uintptr_t)cpus : (uintptr_t)fuzz_rand();
		a.cpusetsize = fuzz_below(8) ? sizeof(cpus) : fuzz_rand() % (2 * HWT_CPUSETSIZE_MAX);
	}
	if (a.mode == HWT_MODE_THREAD || fuzz_below(10) == 0)
		a.pid = fuzz_pid(f);
	a.flags = fuzz_below(4) ? (uint32_t)fuzz_below(2) : (uint32_t)fuzz_rand();
	a.bufsize = bufsizes[fuzz_below(fuzz_below(3) ? 3 : 7)];
	a.recq_size = fuzz_below(4) ? 0 : (fuzz_below(2) ? 4096u << fuzz_below(4) : fuzz_rand() % (32u << 20));
	a.reserved = fuzz_below(20) == 0;
	a.aux_bufsize = fuzz_below(6) ? 0 : bufsizes[fuzz_below(4)];
	if (!fuzz_odd) {
		/* Well formed: THREAD mode on the target mostly, or CPU mode. */
		a.mode = fuzz_below(4) ? HWT_MODE_THREAD : HWT_MODE_CPU;
		snprintf(a.backend_name, sizeof(a.backend_name), "%s", names[fuzz_below(2)]);
		a.cpu_map = a.mode == HWT_MODE_CPU ? (uintptr_t)cpus : 0;
		a.cpusetsize = a.mode == HWT_MODE_CPU ? sizeof(cpus) : 0;
		a.pid = a.mode == HWT_MODE_THREAD ? (fuzz_below(6) ? f->t.pid : getpid()) : 0;
		a.flags = a.mode == HWT_MODE_THREAD ? (uint32_t)fuzz_below(2) : 0;
		a.bufsize = bufsizes[fuzz_below(3)];
		a.recq_size = 0;
		a.reserved = 0;
		a.aux_bufsize = a.mode == HWT_MODE_THREAD && !fuzz_below(4) ? 4096 : 0;
	}
	p = fuzz_ptr(&f->mem, &a, sizeof(a), &kind);
	dev = dev_open();
	if (dev < 0)
		return;
	r = ioctl(dev, HWT_IOC_ALLOC, p);
	e = errno;
	close(dev);
	fuzz_note(f, "ALLOC", r, e, kind);
	if (r >= 0) {
		if (f->ctx[slot] >= 0)
			close(f->ctx[slot]);
		f->ctx[slot] = r;
		/* read() must not wait for records that may never come */
		fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK);
	}
}

static void fuzz_config(struct fuzz *f)
{
	static const uint32_t timeouts[] = { 1, 20, 100, 200, 0, HWT_PAUSE_TIMEOUT_MAX_MS + 1 };
	static const char globs[] = "hwt_dyn\n*/hwt_*\n";
	struct hwt_config c;
	int slot, fd = fuzz_fd(f, &slot), kind, r;
	void *p;

	memset(&c, 0, sizeof(c));
	c.size = fuzz_size(sizeof(c), HWT_CONFIG_SIZE_VER0);
	c.flags = fuzz_below(6) ? (uint32_t)fuzz_below(HWT_CFG_FLAGS + 1) : (uint32_t)fuzz_rand();
	/* Short pauses only: a valid long one would hold the target (or this process). */
	c.pause_timeout_ms = timeouts[fuzz_below(fuzz_below(4) ? 4 : 6)];
	if (fuzz_below(6) == 0) {
		c.backend_config_size = (uint32_t)fuzz_below(8192);
		c.backend_config = fuzz_below(2) ? (uintptr_t)f->mem.arena : (uintptr_t)fuzz_rand();
	}
	if (c.flags & HWT_CFG_SELECT) {
		c.select_trace = fuzz_below(4) ? (uintptr_t)globs : (uintptr_t)fuzz_rand();
		c.select_trace_size = fuzz_below(4) ? sizeof(globs) - 1 : (uint32_t)fuzz_rand();
		c.select_no_trace = (uintptr_t)globs;
		c.select_no_trace_size = (uint32_t)fuzz_below(sizeof(globs));
	}
	if (!fuzz_odd) {
		c.flags &= HWT_CFG_FLAGS;
		c.pause_timeout_ms = timeouts[fuzz_below(4)];
		c.backend_config_size = 0;
		c.backend_config = 0;
		if (c.flags & HWT_CFG_SELECT) {
			c.select_trace = (uintptr_t)globs;
			c.select_trace_size = sizeof(globs) - 1;
		}
	}
	p = fuzz_ptr(&f->mem, &c, sizeof(c), &kind);
	r = ioctl(fd, HWT_IOC_SET_CONFIG, p);
	/* SET_CONFIG only reads: a read-only page is a good argument. */
	fuzz_note(f, "SET_CONFIG", r, errno, kind == FUZZ_PTR_RO ? FUZZ_PTR_OK : kind);
}

static void fuzz_small(struct fuzz *f)
{
	struct hwt_wakeup w = { .size = sizeof(w) };
	struct hwt_bufptr bp;
	struct hwt_bufread br;
	int slot, fd = fuzz_fd(f, &slot), kind, r;
	unsigned long cmd;
	void *p;

	switch (fuzz_below(7)) {
	case 0:
		r = ioctl(fd, HWT_IOC_START);
		fuzz_note(f, "START", r, errno, FUZZ_PTR_OK);
		break;
	case 1:
		r = ioctl(fd, HWT_IOC_STOP);
		fuzz_note(f, "STOP", r, errno, FUZZ_PTR_OK);
		break;
	case 2:
		w.size = fuzz_size(sizeof(w), HWT_WAKEUP_SIZE_VER0);
		w.tid = fuzz_below(3) ? -1 : (int32_t)fuzz_id(f);
		p = fuzz_ptr(&f->mem, &w, sizeof(w), &kind);
		r = ioctl(fd, HWT_IOC_WAKEUP, p);
		fuzz_note(f, "WAKEUP", r, errno, kind == FUZZ_PTR_RO ? FUZZ_PTR_OK : kind);
		break;
	case 3:
		memset(&bp, 0, sizeof(bp));
		bp.size = fuzz_size(sizeof(bp), HWT_BUFPTR_SIZE_VER0);
		bp.id = fuzz_id(f);
		bp.flags = fuzz_below(4) ? 0 : (uint32_t)fuzz_rand() & 3;
		p = fuzz_ptr(&f->mem, &bp, sizeof(bp), &kind);
		r = ioctl(fd, HWT_IOC_BUFPTR, p);
		fuzz_note(f, "BUFPTR", r, errno, kind);
		break;
	case 4:
		memset(&br, 0, sizeof(br));
		br.size = fuzz_size(sizeof(br), HWT_BUFREAD_SIZE_VER0);
		br.id = fuzz_id(f);
		br.flags = fuzz_below(4) ? 0 : (uint32_t)fuzz_rand() & 3;
		br.offset = fuzz_below(2) ? fuzz_below(1 << 20) : fuzz_rand();
		p = fuzz_ptr(&f->mem, &br, sizeof(br), &kind);
		r = ioctl(fd, HWT_IOC_BUFREAD, p);
		fuzz_note(f, "BUFREAD", r, errno, kind == FUZZ_PTR_RO ? FUZZ_PTR_OK : kind);
		break;
	case 5: {
		/* Records into the arena, up to and past its guard page. */
		size_t len = fuzz_below(4) ? fuzz_below(4096) : fuzz_below(2 * FUZZ_ARENA);
		size_t off = fuzz_below(FUZZ_ARENA);
		ssize_t n = read(fd, f->mem.arena + off, len);

		fuzz_note(f, "read", n, errno, FUZZ_PTR_OK);
		break;
	}
	default:
		/*
		 * Commands of hwt's type, any number, direction and size, on
		 * either fd, with a zeroed argument (no long pause slips in).
		 * ALLOC's number on the device is left out: its fd would leak.
		 */
		cmd = _IOC(fuzz_below(4), HWT_IOC_TYPE, 2 + fuzz_below(0x1e), fuzz_below(256));
		memset(f->mem.arena, 0, 256);
		if (fuzz_below(2)) {
			int dev = dev_open();

			r = ioctl(dev, cmd, f->mem.arena);
			fuzz_note(f, "device ioctl", r, errno, FUZZ_PTR_OK);
			close(dev);
		} else {
			r = ioctl(fd, cmd, f->mem.arena);
			fuzz_note(f, "context ioctl", r, errno, FUZZ_PTR_OK);
		}
		break;
	}
}

/* Reads a mapping through the kernel: a page it cannot give is EFAULT, not SIGBUS here. */
static void fuzz_touch(const void *p)
{
	char c[64];
	int pp[2];

	if (pipe(pp))
		return;
	if (write(pp[1], p, sizeof(c)) == (ssize_t)sizeof(c) && read(pp[0], c, sizeof(c)) < 0)
		perror("fuzz pipe");
	close(pp[0]);
	close(pp[1]);
}

/*
 * Maps a buffer (sometimes a bad offset or length), or unmaps one in part or
 * whole, read first (its context may be closed by now).
 */
static void fuzz_mmap(struct fuzz *f)
{
	int slot, fd = fuzz_fd(f, &slot), i = (int)fuzz_below(FUZZ_MAPS);
	size_t len = 4096 * (1 + fuzz_below(fuzz_below(4) ? 2 : 40));
	uint64_t off = HWT_MMAP_OFFSET(fuzz_id(f)) | (fuzz_below(6) ? 0 : HWT_MMAP_AUX);
	int prot = fuzz_below(4) ? PROT_READ : PROT_READ | PROT_WRITE;
	void *p;

	if (fuzz_below(8) == 0)
		off += 4096 * fuzz_below(4) + (fuzz_below(2) ? 0 : 1);
	if (f->map[i].p) {
		fuzz_touch(f->map[i].p);
		/* Unmap in part (a page from the start) or whole. */
		if (f->map[i].len > 4096 && fuzz_below(2)) {
			munmap(f->map[i].p, 4096);
			f->map[i].p = (char *)f->map[i].p + 4096;
			f->map[i].len -= 4096;
		} else {
			munmap(f->map[i].p, f->map[i].len);
			f->map[i].p = NULL;
		}
		return;
	}
	p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)off);
	fuzz_note(f, "mmap", p == MAP_FAILED ? -1 : 0, errno, FUZZ_PTR_OK);
	if (p != MAP_FAILED) {
		f->map[i].p = p;
		f->map[i].len = len;
		fuzz_touch(p);
	}
}

struct fuzz_racer {
	int fd;
	uint64_t seed;
	int ops;
};

/* Another thread's ioctls, polls and maps on a context fd while it is closed. */
static void *fuzz_racer_body(void *arg)
{
	struct fuzz_racer *rc = arg;
	uint64_t s = rc->seed;
	int i;

	for (i = 0; i < 200; i++) {
		struct hwt_bufptr bp = { .size = sizeof(bp), .id = (uint32_t)shm->b_tid };
		struct pollfd pfd = { .fd = rc->fd, .events = POLLIN };
		void *p;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		switch (s % 5) {
		case 0:
			ioctl(rc->fd, HWT_IOC_BUFPTR, &bp);
			break;
		case 1:
			ioctl(rc->fd, (s & 64) ? HWT_IOC_START : HWT_IOC_STOP);
			break;
		case 2:
			poll(&pfd, 1, 0);
			break;
		case 3:
			p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, rc->fd, (off_t)HWT_MMAP_OFFSET(bp.id));
			if (p != MAP_FAILED)
				munmap(p, 4096);
			break;
		default: {
			struct hwt_wakeup w = { .size = sizeof(w), .tid = -1 };

			ioctl(rc->fd, HWT_IOC_WAKEUP, &w);
			break;
		}
		}
		rc->ops++;
	}
	return NULL;
}

/* Closes a context while another thread works on it (its number is not reused meanwhile). */
static void fuzz_close_racing(struct fuzz *f)
{
	int slot = (int)fuzz_below(FUZZ_SLOTS);
	struct fuzz_racer rc = { .fd = f->ctx[slot], .seed = fuzz_rand() | 1 };
	pthread_t th;

	if (rc.fd < 0)
		return;
	shm->b_tid = f->t.pid;
	if (pthread_create(&th, NULL, fuzz_racer_body, &rc) == 0) {
		while (rc.ops < (int)fuzz_below(100))
			sched_yield();
		close(rc.fd);
		pthread_join(th, NULL);
	} else {
		close(rc.fd);
	}
	f->ctx[slot] = -1;
	f->nops++;
}

/* New dmesg lines since @kmsg was opened that a clean run never prints. */
static int kmsg_bad(int kmsg, char *out, size_t len)
{
	static const char *const pats[] = { "WARNING:", "BUG:", "Oops", "general protection",
					    "KASAN", "UBSAN", "refcount_t:", "list_add corruption",
					    "list_del corruption", "sleeping function called",
					    "scheduling while atomic", "lockdep", "circular locking",
					    "Call Trace", "RIP:", "hwt: leak", "kmemleak",
					    "Bad page", "soft lockup", "blocked for more than" };
	char rec[2048];
	int bad = 0;
	size_t i;

	for (;;) {
		ssize_t n = read(kmsg, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			if (strstr(rec, pats[i])) {
				if (!bad++)
					snprintf(out, len, "%.400s", rec);
				break;
			}
		}
	}
	return bad;
}

/*
 * Random ioctl sequences for a fixed count with a fixed seed (HWT_FUZZ_SEED,
 * HWT_FUZZ_ROUNDS override them: on the kernel command line, through
 * run_qemu.sh's HWT_QEMU_APPEND): ALLOC, SET_CONFIG, START, STOP, WAKEUP,
 * BUFPTR, BUFREAD, read and unknown commands with odd sizes, flags and
 * pointers (NULL, kernel, unmapped, cut off by a guard page, read-only);
 * buffer maps unmapped in part, after the context closed or not; a context
 * closed while another thread works on it; a target that maps, forks, makes
 * threads, execs and is killed while traced. Every call returns, with
 * success or an errno of the module's (never one a struct it could not copy
 * was taken with); the kernel log gains no warning; the module's counters,
 * slab caches and vmalloc areas come back to where they were.
 */
static int t_fuzz(void)
{
	uint64_t seed = fuzz_env("HWT_FUZZ_SEED", FUZZ_SEED_DEFAULT);
	int rounds = (int)fuzz_env("HWT_FUZZ_ROUNDS", FUZZ_ROUNDS_DEFAULT);
	struct kcounts before, after;
	struct hwt_stats st;
	char err[128], fig[512], bad[512] = "";
	struct fuzz f;
	int i, kmsg, nbad, r;

	printf("KINFO fuzz seed %#llx rounds %d (HWT_FUZZ_SEED, HWT_FUZZ_ROUNDS)\n",
	       (unsigned long long)seed, rounds);
	fuzz_state = seed ? seed : 1;
	memset(&f, 0, sizeof(f));
	for (i = 0; i < FUZZ_SLOTS; i++)
		f.ctx[i] = -1;
	f.mem.arena = mmap(NULL, FUZZ_ARENA + 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.mem.ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	CHECK(f.devnull >= 0, "/dev/null: %s", strerror(errno));
	CHECK(f.mem.arena != MAP_FAILED && f.mem.ro != MAP_FAILED, "mmap");
	CHECK(mprotect(f.mem.arena + FUZZ_ARENA, 4096, PROT_NONE) == 0, "mprotect");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	CHECK(kmsg >= 0, "/dev/kmsg: %s", strerror(errno));
	lseek(kmsg, 0, SEEK_END);
	CHECK(stats_settle(&st, HANG_MS) == 0, "objects live before the fuzz");
	CHECK(kcounts_read(&before, err, sizeof(err)) == 0, "counts: %s", err);

	f.t.pid = 0;
	fuzz_target_restart(&f);
	for (i = 0; i < rounds; i++) {
		uint64_t op = fuzz_below(100);

		fuzz_odd = fuzz_below(3) == 0;
		if (op < 15)
			fuzz_alloc(&f);
		else if (op < 30)
			fuzz_config(&f);
		else if (op < 70)
			fuzz_small(&f);
		else if (op < 82)
			fuzz_mmap(&f);
		else if (op < 88)
			fuzz_close_racing(&f);
		else if (op < 96)
			shm->step = 2 + (int)fuzz_below(2);	/* a thread or a fork */
		else if (op < 98)
			shm->step = 1;				/* exec hwt_dyn */
		else
			fuzz_target_restart(&f);		/* killed while traced */
	}

	/* Everything let go: maps, contexts, the target. */
	for (i = 0; i < FUZZ_MAPS; i++)
		if (f.map[i].p)
			munmap(f.map[i].p, f.map[i].len);
	for (i = 0; i < FUZZ_SLOTS; i++)
		if (f.ctx[i] >= 0)
			close(f.ctx[i]);
	close(f.devnull);
	kill(f.t.pid, SIGKILL);
	CHECK(target_wait(&f.t, HANG_MS) != -1, "the target did not die");
	r = stats_settle(&st, HANG_MS);
	CHECK(r == 0, "module counters after the fuzz: %llu contexts %llu threads %llu buffers "
	      "%llu works %llu paused", (unsigned long long)st.contexts,
	      (unsigned long long)st.threads, (unsigned long long)st.buffers,
	      (unsigned long long)st.works, (unsigned long long)st.paused);
	r = kcounts_settle(&before, &after, HANG_MS);
	kcounts_fmt(fig, sizeof(fig), &before, NULL, &after);
	sub("fuzz.counts", r == 0, "%s", fig);
	nbad = kmsg_bad(kmsg, bad, sizeof(bad));
	close(kmsg);
	sub("fuzz.dmesg", nbad == 0, "%d bad lines%s%s", nbad, nbad ? ", first: " : "", bad);
	printf("KINFO fuzz %d calls, %d succeeded, %d unexpected errnos, %d accepted bad pointers\n",
	       f.nops, f.nok, f.nbad_errno, f.nbad_ok);
	CHECK(!f.first_bad[0], "seed %#llx: %s", (unsigned long long)seed, f.first_bad);
	CHECK(r == 0, "seed %#llx: objects left: %s", (unsigned long long)seed, fig);
	CHECK(nbad == 0, "seed %#llx: kernel log: %s", (unsigned long long)seed, bad);
	return 0;
}

/* ---- hooks: registered once a load; no look-up for untraced tasks ---- */

/*
 * 100 contexts allocated and closed, one at a time: the hooks were
 * registered once, at load, and no context registers them again (before,
 * each 0<->1 change of contexts registered them and patched kernel text).
 */
static int t_hooks_once(void)
{
	struct hwt_stats st;
	struct target t;
	int i, fd;

	CHECK(get_stats(&st) == 0, "STATS: %s", strerror(errno));
	CHECK(st.hook_registrations == 1, "hook_registrations %llu at the start, want 1",
	      (unsigned long long)st.hook_registrations);
	shm->step = 0;
	CHECK(target_start(&t, fn_wait_step, NULL) == 0, "fork");
	/* Running (it wakes every 5 ms): the task work START queues runs. */
	target_go(&t);
	for (i = 0; i < 100; i++) {
		fd = ctx_thread("test", t.pid, 0, 65536);
		CHECK(fd >= 0, "alloc %d: %s", i, strerror(-fd));
		if (i % 2)
			CHECK(ioctl(fd, HWT_IOC_START) == 0, "START %d", i);
		close(fd);
		CHECK(stats_settle(&st, 5000) == 0, "context %d not freed", i);
	}
	shm->step = 1;
	CHECK(target_wait(&t, 5000) == 0, "target");
	CHECK(get_stats(&st) == 0, "STATS");
	CHECK(st.hook_registrations == 1, "hook_registrations %llu after 100 contexts, want 1",
	      (unsigned long long)st.hook_registrations);
	return 0;
}

/* Untraced work: fork+exec+exit, executable mmap/munmap, a pipe ping-pong. */
static void untraced_work(void)
{
	char *argv[] = { DYN, "exit", NULL };
	int ab[2], ba[2], i, st;
	pid_t c;
	char b = 0;

	for (i = 0; i < 20; i++) {
		c = fork();
		if (c == 0) {
			execv(argv[0], argv);
			_exit(98);
		}
		waitpid(c, &st, 0);
	}
	for (i = 0; i < 200; i++) {
		void *p = map_exec_file();

		if (p != MAP_FAILED)
			munmap(p, 8192);
	}
	if (pipe(ab) || pipe(ba))
		return;
	c = fork();
	if (c == 0) {
		while (read(ab[0], &b, 1) == 1 && b)
			if (write(ba[1], &b, 1) != 1)
				break;
		_exit(0);
	}
	for (i = 0; i < 500; i++) {
		b = 1;
		if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
			break;
	}
	b = 0;
	if (write(ab[1], &b, 1) != 1)
		perror("ping-pong end");
	waitpid(c, &st, 0);
	close(ab[0]), close(ab[1]), close(ba[0]), close(ba[1]);
}

/*
 * While a context traces a process (which maps and unmaps, and is seen
 * doing so), other processes fork, exec, map executable files and switch
 * through a pipe: their hooks return at the marker, with no hash look-up.
 * A collision of the marker's filter would count one; its odds are about
 * 10^-3 for this case (kmod/README.md).
 */
static int t_untraced_no_lookup(void)
{
	struct hwt_stats s0, s1;
	struct target t;
	struct recs r;
	pid_t w;
	int fd, st;

	recs_init(&r);
	shm->a_done = 0;
	shm->step = 0;
	CHECK(target_start(&t, fn_mmap_exec, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc");
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	CHECK(get_stats(&s0) == 0, "STATS");
	w = fork();
	if (w == 0) {
		untraced_work();
		_exit(0);
	}
	CHECK(w > 0 && waitpid(w, &st, 0) == w && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "untraced worker");
	CHECK(get_stats(&s1) == 0, "STATS");
	/* The traced task is still seen: its MMAP and MUNMAP arrive. */
	target_go(&t);
	CHECK(target_wait(&t, 5000) == 0, "target");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, DYN, 3000), "no MMAP of the traced task");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MUNMAP, NULL, NULL, 3000), "no MUNMAP of the traced task");
	CHECK(s1.size >= HWT_STATS_SIZE_VER1 && s1.hook_registrations == 1,
	      "STATS without the hook counters (size %u)", s1.size);
	sub("untraced_no_lookup.lookups", s1.untraced_lookups == s0.untraced_lookups,
	    "%llu look-ups of untraced tasks",
	    (unsigned long long)(s1.untraced_lookups - s0.untraced_lookups));
	CHECK(s1.untraced_lookups == s0.untraced_lookups,
	      "%llu hash look-ups of untraced tasks while one process was traced",
	      (unsigned long long)(s1.untraced_lookups - s0.untraced_lookups));
	close(fd);
	return 0;
}

/* ---- a kprobe symbol the kernel lacks ---- */

static int sh_ok(const char *cmd)
{
	int st = system(cmd);

	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Reloads hwt.ko (and the test backends) with module parameters @params. */
static int reload_hwt(const char *params)
{
	char cmd[256];
	int i;

	for (i = 0; i < 20 && !sh_ok("rmmod hwt_test 2>/dev/null"); i++)
		sleep_ms(250);
	if (!sh_ok("rmmod hwt"))
		return -1;
	snprintf(cmd, sizeof(cmd), "insmod /hwt.ko %s && insmod /hwt_test.ko", params);
	return sh_ok(cmd) ? 0 : -1;
}

static int kprobe_missing_body(void)
{
	char *argv[] = { DYN, "exit", NULL };
	struct hwt_stats st;
	struct target t;
	struct recs r;
	int fd;

	CHECK(sh_ok("dmesg | grep -q 'hwt: function hook on perf_event_mmap: -2: MMAP records'"),
	      "no warning in dmesg naming the missing function hook");
	CHECK(get_stats(&st) == 0, "STATS");
	CHECK(st.features_off == HWT_FEATURE_MMAP, "features_off %#x, want MMAP only",
	      st.features_off);
	CHECK(st.hook_registrations == 1, "hook_registrations %llu",
	      (unsigned long long)st.hook_registrations);
	/* THREAD tracing works without it: ALLOC, EXEC and the image, MUNMAP, exit. */
	recs_init(&r);
	CHECK(target_start(&t, fn_mmap_exec, NULL) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc without the mmap kprobe: %s", strerror(-fd));
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, 5000) == 0, "target");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MUNMAP, NULL, NULL, 3000), "no MUNMAP record");
	CHECK(!recs_find(&r, HWT_RECORD_MMAP, pred_path, DYN), "an MMAP record without its kprobe");
	close(fd);
	recs_init(&r);
	CHECK(target_start(&t, fn_exec, argv) == 0, "fork");
	fd = ctx_thread("test", t.pid, 0, 65536);
	CHECK(fd >= 0, "alloc: %s", strerror(-fd));
	CHECK(ioctl(fd, HWT_IOC_START) == 0, "START");
	target_go(&t);
	CHECK(target_wait(&t, 5000) == 0, "target");
	CHECK(recs_wait(fd, &r, HWT_RECORD_EXEC, pred_path, DYN, 3000), "no EXEC record");
	CHECK(recs_wait(fd, &r, HWT_RECORD_MMAP, pred_path, DYN, 3000),
	      "no MMAP of the exec'd image (from the exec hook)");
	CHECK(recs_wait(fd, &r, HWT_RECORD_PROCESS_EXIT, pred_pid, &t.pid, 3000), "no PROCESS_EXIT");
	close(fd);
	return 0;
}

/*
 * hwt.ko loaded with pretend_missing=perf_event_mmap, as on a kernel that
 * renamed or inlined it: the load succeeds with a warning, STATS reports
 * the feature off, THREAD tracing works without it. Then hwt.ko is loaded
 * as before (the record phase of run_qemu.sh needs it). Runs last.
 */
static int t_kprobe_missing(void)
{
	struct hwt_stats st;
	int r;

	CHECK(stats_settle(&st, 5000) == 0, "contexts left before the reload");
	CHECK(reload_hwt("pretend_missing=perf_event_mmap") == 0, "reload with pretend_missing");
	r = kprobe_missing_body();
	CHECK(stats_settle(&st, 5000) == 0, "contexts left after the case");
	CHECK(reload_hwt("") == 0, "reload without pretend_missing");
	CHECK(get_stats(&st) == 0 && st.features_off == 0, "features_off %#x after the reload",
	      st.features_off);
	return r;
}

struct ktest {
	const char *name;
	int (*fn)(void);
};

static const struct ktest tests[] = {
	{ "slab_names", t_slab_names },
	{ "alloc_thread", t_alloc_thread },
	{ "alloc_cpu", t_alloc_cpu },
	{ "cpu_per_cpu", t_cpu_per_cpu },
	{ "attach_kick", t_attach_kick },
	{ "bad_args", t_bad_args },
	{ "perm_other_user", t_perm },
	{ "access_root_only", t_access_root_only },
	{ "access_group", t_access_group },
	{ "perm_yama", t_perm_yama },
	{ "memlock_allowance", t_memlock_allowance },
	{ "contexts_per_user", t_contexts_per_user },
	{ "perm_exec_yama", t_perm_exec_yama },
	{ "perm_exec_owner_gone", t_perm_exec_owner_gone },
	{ "perm_exec_owner_stopped", t_perm_exec_owner_stopped },
	{ "exec_setuid_untraced", t_exec_setuid_untraced },
	{ "exec_setuid_root_traced", t_exec_setuid_root_traced },
	{ "select_bad_args", t_select_bad_args },
	{ "select_shell", t_select_shell },
	{ "select_globs", t_select_globs },
	{ "select_debug_files", t_select_debug_files },
	{ "select_descendants", t_select_descendants },
	{ "select_setuid_root", t_select_setuid_root },
	{ "select_off", t_select_off },
	{ "two_contexts", t_two_contexts },
	{ "ebusy", t_ebusy },
	{ "rec_exec", t_rec_exec },
	{ "rec_clock", t_rec_clock },
	{ "rec_dlopen", t_rec_dlopen },
	{ "rec_mmap_munmap", t_rec_mmap },
	{ "rec_buildid", t_rec_buildid },
	{ "rec_thread", t_rec_thread },
	{ "rec_fork", t_rec_fork },
	{ "poll", t_poll },
	{ "buffer_full", t_buffer_full },
	{ "lost", t_lost },
	{ "pause_wakeup", t_pause_wakeup },
	{ "pause_timeout", t_pause_timeout },
	{ "pause_collector_killed", t_pause_collector_killed },
	{ "pause_target_killed", t_pause_target_killed },
	{ "close_while_running", t_close_while_running },
	{ "exit_orders", t_exit_orders },
	{ "churn", t_churn },
	{ "rmmod_busy", t_rmmod_busy },
	{ "fuzz", t_fuzz },
	{ "hooks_once", t_hooks_once },
	{ "untraced_no_lookup", t_untraced_no_lookup },
	{ "no_leak", t_no_leak },
	{ "kprobe_missing", t_kprobe_missing },
};

/* The cases that make pauses end by their timeout. */
static int pause_timeouts_expected(const char *name)
{
	return !strcmp(name, "pause_timeout") || !strcmp(name, "fuzz");
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void run(const struct ktest *t)
{
	uint64_t t0 = now_ms(), end = t0 + CASE_TIMEOUT_MS;
	struct hwt_stats s0, s1;
	int st = 0;
	pid_t p;

	p = fork();
	if (p == 0) {
		int r;

		setpgid(0, 0);
		failmsg[0] = '\0';
		get_stats(&s0);
		r = t->fn();
		/*
		 * The state waits' limits are longer than the cases' pause
		 * timeouts: a pause that ended by its timeout, not by the
		 * wakeup the case expects, is caught here instead. The count
		 * is since load: a case that reloads hwt.ko (kprobe_missing)
		 * starts it again at 0, so only a rise counts.
		 */
		get_stats(&s1);
		if (!r && !pause_timeouts_expected(t->name) && s1.pause_timeouts > s0.pause_timeouts) {
			r = 1;
			snprintf(failmsg, sizeof(failmsg), "%llu pauses ended by their timeout",
				 (unsigned long long)(s1.pause_timeouts - s0.pause_timeouts));
		}
		printf("KTEST %s %s %s (%llu ms)\n", t->name, r ? "FAIL" : "PASS", failmsg,
		       (unsigned long long)(now_ms() - t0));
		fflush(stdout);
		_exit(r);
	}
	setpgid(p, p);
	for (;;) {
		if (waitpid(p, &st, WNOHANG) == p)
			break;
		if (now_ms() > end) {
			printf("KTEST %s FAIL timeout after %d ms\n", t->name, CASE_TIMEOUT_MS);
			fflush(stdout);
			kill(-p, SIGKILL);
			waitpid(p, &st, 0);
			break;
		}
		sleep_ms(10);
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
		printf("KTEST %s FAIL killed by signal %d\n", t->name, WTERMSIG(st));
		fflush(stdout);
	}
	kill(-p, SIGKILL);	/* leftover targets and collectors */
	sleep_ms(20);
	reap();
}

int main(int argc, char **argv)
{
	size_t i;
	int j;

	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return 1;
	if (access_reset())
		printf("KINFO hwt.ko has no access parameters: the cases as other users fail\n");
	{
		char err[128];

		kbase_ok = kcounts_read(&kbase, err, sizeof(err)) == 0;
		if (!kbase_ok)
			printf("KINFO baseline: %s\n", err);
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int want = argc < 2;

		for (j = 1; j < argc; j++)
			want |= strcmp(argv[j], tests[i].name) == 0;
		if (want) {
			memset((void *)shm, 0, sizeof(*shm));
			run(&tests[i]);
		}
	}
	return 0;
}
