/*
 * The process image being traced: its sideband file, its generation in the
 * bundle, its sideband clock (docs/bundle.md, "Clock"), and the file helpers.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* Guards the sideband file, the clock and the image table (image.c). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t hwt_qemu_clock_now;
static char sideband_name[48];
static char image_name[32];
static bool sideband_open, lost_write;
static unsigned generation;
/* The command line QEMU runs: path, argv[0] (-0 or the path), arguments. */
static char *exe_path = "";
static char **guest_argv;
static int guest_argc;
static bool exe_static;

const char *hwt_qemu_process_name(void)
{
	return image_name;
}

const char *hwt_qemu_process_exe(void)
{
	return exe_path;
}

bool hwt_qemu_process_static(void)
{
	return exe_static;
}

/*
 * No descriptor stays open between writes: guest descriptors are host
 * descriptors here, and a program that closes every descriptor (daemons,
 * Python's subprocess with close_fds) would close ours, or reuse their
 * numbers. So each write opens, appends and closes.
 */
static int open_in_bundle(const char *dir, const char *name, int flags, bool quiet_exists)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", hwt_qemu_opts.bundle, dir, name) >=
	    sizeof(path))
		return -1;
	fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0 && !(quiet_exists && errno == EEXIST))
		dprintf(2, "hwt: cannot open %s: %s\n", path, strerror(errno));
	return fd;
}

bool hwt_qemu_file_create(const char *dir, const char *name, bool exclusive)
{
	int fd = open_in_bundle(dir, name, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : O_TRUNC),
				exclusive);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool hwt_qemu_file_append(const char *dir, const char *name, const void *buf, size_t len)
{
	int fd = open_in_bundle(dir, name, O_WRONLY | O_APPEND, false);
	const char *p = buf;

	if (fd < 0)
		return false;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return len == 0;
}

static void record_locked(struct hwt_record_header *hdr, unsigned type, uint32_t size)
{
	hwt_record_finish(hdr, (uint16_t)type, size,
			  __atomic_add_fetch(&hwt_qemu_clock_now, 1, __ATOMIC_RELEASE),
			  (uint32_t)getpid(), (uint32_t)gettid());
	if (!sideband_open || !hwt_qemu_file_append("sideband", sideband_name, hdr, hdr->size)) {
		if (!lost_write)
			dprintf(2, "hwt: cannot write the sideband of %s: records lost\n", image_name);
		lost_write = true;
	}
}

void hwt_qemu_process_record(struct hwt_record_header *hdr, unsigned type, uint32_t size)
{
	/* Blocks that ran before this record must be in the stream before its time. */
	hwt_qemu_vcpu_flush_self();
	pthread_mutex_lock(&lock);
	record_locked(hdr, type, size);
	pthread_mutex_unlock(&lock);
}

/* Creates sideband/<pid>.<gen>.sb with the smallest free generation. */
static void open_sideband(void)
{
	int pid = getpid();

	sideband_open = false;
	for (generation = 0; generation < 100000; generation++) {
		char path[sizeof(hwt_qemu_opts.bundle) + 64];
		struct stat st;

		snprintf(image_name, sizeof(image_name), "%d.%u", pid, generation);
		snprintf(sideband_name, sizeof(sideband_name), "%s.sb", image_name);
		if (hwt_qemu_file_create("sideband", sideband_name, true)) {
			sideband_open = true;
			return;
		}
		snprintf(path, sizeof(path), "%s/sideband/%s", hwt_qemu_opts.bundle, sideband_name);
		if (stat(path, &st) != 0)
			break;
	}
	dprintf(2, "hwt: cannot create a sideband file in %s/sideband: nothing will be recorded\n",
		hwt_qemu_opts.bundle);
}

static void write_process_start(void)
{
	static uint64_t words[HWT_RECORD_MAX_SIZE / 8];
	struct hwt_record_process *rec = (struct hwt_record_process *)words;

	hwt_qemu_process_record(&rec->hdr, HWT_RECORD_PROCESS_START,
				hwt_record_process_build(words, sizeof(words), (uint32_t)getppid(),
							 generation, exe_path,
							 (const char *const *)guest_argv,
							 (uint32_t)guest_argc));
}

/* A statically linked ELF has no PT_INTERP: the preloaded library never runs in it. */
static bool elf_is_static(const char *path)
{
	Elf64_Ehdr eh;
	bool interp = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_phentsize == sizeof(Elf64_Phdr) &&
	    eh.e_phnum < 256) {
		for (unsigned i = 0; i < eh.e_phnum && !interp; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) ==
			    (ssize_t)sizeof(ph))
				interp = ph.p_type == PT_INTERP;
		}
		close(fd);
		return !interp;
	}
	close(fd);
	return false;
}

/*
 * QEMU's command line: `qemu-x86_64 [options] [-0 ARGV0] -- PROGRAM ARGS`
 * (as `hwt record` and the preloaded library write it). The guest's argv
 * is ARGV0 (or PROGRAM) and ARGS.
 */
static void read_command_line(void)
{
	static char buf[1 << 20];
	const char *argv0 = NULL;
	char **args;
	size_t len = 0, n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return;
	while (len < sizeof(buf) - 1 && (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		n++;
	args = calloc(n + 1, sizeof(*args));
	if (!args)
		return;
	n = 0;
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		args[n++] = buf + i;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(args[i], "-0") == 0 && i + 1 < n) {
			argv0 = args[++i];
		} else if (strcmp(args[i], "--") == 0 && i + 1 < n) {
			exe_path = args[i + 1];
			guest_argv = args + i + 1;
			guest_argc = (int)(n - i - 1);
			if (argv0)
				guest_argv[0] = (char *)argv0;
			break;
		}
	}
}

struct hwt_trace_budget *hwt_qemu_budget;

/* Maps the run's select/trace-budget when `hwt record` made one (--max-trace-size). */
static void map_budget(void)
{
	char path[PATH_MAX];
	void *map;
	int fd;

	/* No file: no cap (quietly). */
	if ((size_t)snprintf(path, sizeof(path), "%s/" HWT_TRACE_BUDGET_FILE,
			     hwt_qemu_opts.bundle) >= sizeof(path))
		return;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	map = mmap(NULL, HWT_TRACE_BUDGET_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map != MAP_FAILED)
		hwt_qemu_budget = map;
}

void hwt_qemu_process_start(void)
{
	map_budget();
	read_command_line();
	exe_static = exe_path[0] && elf_is_static(exe_path);
	open_sideband();
	write_process_start();
}

void hwt_qemu_process_start_forked(void)
{
	/* The parent may have held the lock at fork: the child starts afresh. */
	pthread_mutex_init(&lock, NULL);
	hwt_qemu_clock_now = 0;
	lost_write = false;
	open_sideband();
	write_process_start();
	hwt_qemu_image_replay();
}

void hwt_qemu_process_lost(unsigned reason, unsigned records, uint64_t bytes)
{
	hwt_record_write_lost(hwt_qemu_process_record, reason, records, bytes);
}

void hwt_qemu_process_exit(int status)
{
	hwt_record_write_exit(hwt_qemu_process_record, status);
	sideband_open = false;
}

/* image.c takes the same lock around its table and records. */
void hwt_qemu_process_lock(void)
{
	pthread_mutex_lock(&lock);
}

void hwt_qemu_process_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

void hwt_qemu_process_record_locked(struct hwt_record_header *hdr, unsigned type, uint32_t size)
{
	record_locked(hdr, type, size);
}
