/* Helpers for the bundle tests (see testlib.h). */
#include "testlib.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int test_failures;
int test_checks;

int test_check(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	test_checks++;
	if (ok)
		return 1;
	test_failures++;
	fprintf(stderr, "%s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 0;
}

int test_check_eq(long long a, long long b, const char *file, int line,
		  const char *as, const char *bs)
{
	return test_check(a == b, file, line, "%s == %s (%lld != %lld)", as, bs, a, b);
}

int test_check_contains(const char *hay, const char *needle, const char *file, int line,
			const char *what)
{
	return test_check(hay && strstr(hay, needle), file, line,
			  "%s should contain \"%s\"; it is:\n%s", what, needle,
			  hay ? hay : "(null)");
}

int test_check_lacks(const char *hay, const char *needle, const char *file, int line,
		     const char *what)
{
	return test_check(hay && !strstr(hay, needle), file, line,
			  "%s should not contain \"%s\"; it is:\n%s", what, needle,
			  hay ? hay : "(null)");
}

int test_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures ? 1 : 0;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "test setup: %s %s: %s\n", what, path, strerror(errno));
	exit(99);
}

char *test_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&path, "%s/hwt-%s-XXXXXX", base, tag) < 0)
		exit(99);
	if (!mkdtemp(path))
		die("mkdtemp", path);
	return path;
}

char *test_diag_text(const struct hwt_bundle *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		exit(99);
	for (size_t i = 0; i < hwt_bundle_diag_count(b); i++) {
		const struct hwt_bundle_diag *diag = hwt_bundle_diag_at(b, i);

		fprintf(f, "%s: %s\n", diag->kind == hwt_diag_fatal ? "error" : "warning",
			diag->message);
	}
	fclose(f);
	return text;
}

void test_rmtree(const char *path)
{
	(void)hwt_bundle_remove(path);
}

char *test_path(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		exit(99);
	return p;
}

char *test_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			cap = (n + 4096 + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(99);
		}
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void write_mode(const char *path, const void *bytes, size_t len, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		die("open", path);
	if (len && fwrite(bytes, 1, len, f) != len)
		die("write", path);
	if (fclose(f))
		die("close", path);
}

void test_write(const char *path, const void *bytes, size_t len)
{
	write_mode(path, bytes, len, "wb");
}

void test_append(const char *path, const void *bytes, size_t len)
{
	write_mode(path, bytes, len, "ab");
}

void test_mkdir(const char *path)
{
	if (mkdir(path, 0777) < 0 && errno != EEXIST)
		die("mkdir", path);
}

/* ----- records ----- */

void *rec_begin(struct test_rec *r, uint16_t type, size_t fixed, uint64_t time,
		uint32_t pid, uint32_t tid)
{
	struct hwt_record_header *hdr = (struct hwt_record_header *)r->words;

	memset(r->words, 0, sizeof(r->words));
	hdr->magic = HWT_RECORD_MAGIC;
	hdr->type = type;
	hdr->time = time;
	hdr->pid = pid;
	hdr->tid = tid;
	r->len = fixed;
	return r->words;
}

void rec_bytes(struct test_rec *r, const void *bytes, size_t len)
{
	memcpy((char *)r->words + r->len, bytes, len);
	r->len += len;
}

void rec_string(struct test_rec *r, const char *s)
{
	rec_bytes(r, s, strlen(s) + 1);
}

struct hwt_record_header *rec_end_size(struct test_rec *r, uint32_t size)
{
	struct hwt_record_header *hdr = (struct hwt_record_header *)r->words;

	hdr->size = size;
	return hdr;
}

struct hwt_record_header *rec_end(struct test_rec *r)
{
	struct hwt_record_header *hdr = rec_end_size(r, hwt_record_align((uint32_t)r->len));

	hwt_record_seal(hdr);
	return hdr;
}

/* ----- PT packets (Intel SDM vol. 3C, 33.4) ----- */

size_t pt_psb(uint8_t *p)
{
	int i;

	for (i = 0; i < 8; i++) {
		p[2 * i] = 0x02;
		p[2 * i + 1] = 0x82;
	}
	return 16;
}

size_t pt_psbend(uint8_t *p)
{
	p[0] = 0x02;
	p[1] = 0x23;
	return 2;
}

size_t pt_mode_exec64(uint8_t *p)
{
	p[0] = 0x99;
	p[1] = 0x01; /* CS.L=1, CS.D=0: 64-bit */
	return 2;
}

size_t pt_tsc(uint8_t *p, uint64_t tsc)
{
	int i;

	p[0] = 0x19;
	for (i = 0; i < 7; i++)
		p[1 + i] = (uint8_t)(tsc >> (8 * i));
	return 8;
}

size_t pt_ip(uint8_t *p, uint8_t opcode, unsigned ipc, uint64_t ip)
{
	static const size_t bytes[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	size_t i, n = bytes[ipc & 7];

	p[0] = (uint8_t)(opcode | (ipc << 5));
	for (i = 0; i < n; i++)
		p[1 + i] = (uint8_t)(ip >> (8 * i));
	return 1 + n;
}

size_t pt_tnt(uint8_t *p, const char *bits)
{
	size_t n = strlen(bits), i;
	uint8_t b = (uint8_t)(1u << (n + 1)); /* stop bit */

	/* The first branch sits just below the stop bit; bit 0 is 0. */
	for (i = 0; i < n; i++)
		if (bits[i] == '!')
			b |= (uint8_t)(1u << (n - i));
	p[0] = b;
	return 1;
}

size_t pt_pad(uint8_t *p)
{
	p[0] = 0x00;
	return 1;
}

size_t pt_ovf(uint8_t *p)
{
	p[0] = 0x02;
	p[1] = 0xf3;
	return 2;
}

/* ----- the synthetic bundle ----- */

void synth_record(struct test_bundle *tb, const char *file, struct test_rec *r,
		  const char *path, const char *reason, int argc, const char *const *argv)
{
	struct hwt_record_header *hdr = (struct hwt_record_header *)r->words;
	struct test_written *w;
	char name[64], *full;
	struct stat st;

	if (tb->nrecs == sizeof(tb->recs) / sizeof(tb->recs[0]))
		exit(99);
	snprintf(name, sizeof(name), "sideband/%s.sb", file);
	full = test_path(tb->dir, name);
	w = &tb->recs[tb->nrecs++];
	snprintf(w->file, sizeof(w->file), "%s", file);
	w->offset = stat(full, &st) == 0 ? (uint64_t)st.st_size : 0;
	w->size = hdr->size;
	w->bytes = malloc(hdr->size);
	if (!w->bytes)
		exit(99);
	memcpy(w->bytes, hdr, hdr->size);
	w->path = path;
	w->reason = reason;
	w->argc = argc;
	w->argv = argv;
	test_append(full, hdr, hdr->size);
	free(full);
}

static void put_process(struct test_bundle *tb, const char *file, uint16_t type, uint64_t t,
			uint32_t pid, uint32_t ppid, uint32_t gen, const char *path,
			int argc, const char *const *argv)
{
	struct test_rec r;
	struct hwt_record_process *p;
	int i;

	p = rec_begin(&r, type, sizeof(*p), t, pid, pid);
	p->ppid = ppid;
	p->argc = (uint32_t)argc;
	p->generation = gen;
	rec_string(&r, path);
	for (i = 0; i < argc; i++)
		rec_string(&r, argv[i]);
	rec_end(&r);
	synth_record(tb, file, &r, path, NULL, argc, argv);
}

static void put_mmap(struct test_bundle *tb, const char *file, uint64_t t, uint32_t pid,
		     uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t build_id_size,
		     uint16_t flags, const char *path)
{
	struct test_rec r;
	struct hwt_record_mmap *m;
	uint32_t i;

	m = rec_begin(&r, HWT_RECORD_MMAP, sizeof(*m), t, pid, pid);
	m->hdr.flags = flags;
	m->addr = addr;
	m->len = len;
	m->pgoff = pgoff;
	m->prot = HWT_PROT_READ | HWT_PROT_EXEC;
	m->build_id_size = build_id_size;
	for (i = 0; i < build_id_size; i++)
		m->build_id[i] = (uint8_t)(0xa0 + i);
	rec_string(&r, path);
	rec_end(&r);
	synth_record(tb, file, &r, path, NULL, 0, NULL);
}

/* A record with only fixed fields, filled by the caller through the returned pointer. */
static void put_simple(struct test_bundle *tb, const char *file, struct test_rec *r)
{
	rec_end(r);
	synth_record(tb, file, r, NULL, NULL, 0, NULL);
}

static void put_lost(struct test_bundle *tb, const char *file, uint64_t t, uint32_t pid,
		     uint32_t reason, uint32_t records, uint64_t bytes)
{
	struct test_rec r;
	struct hwt_record_lost *l = rec_begin(&r, HWT_RECORD_LOST, sizeof(*l), t, pid, pid);

	l->reason = reason;
	l->records = records;
	l->bytes = bytes;
	put_simple(tb, file, &r);
}

static void put_exit(struct test_bundle *tb, const char *file, uint64_t t, uint32_t pid,
		     int32_t status)
{
	struct test_rec r;
	struct hwt_record_exit *e = rec_begin(&r, HWT_RECORD_PROCESS_EXIT, sizeof(*e), t, pid, pid);

	e->status = status;
	put_simple(tb, file, &r);
}

static void put_stream(struct test_bundle *tb, const char *name, const uint8_t *bytes, size_t len)
{
	char rel[64], *full;

	snprintf(rel, sizeof(rel), "streams/%s.pt", name);
	full = test_path(tb->dir, rel);
	test_write(full, bytes, len);
	free(full);
	tb->totals.threads++;
	tb->totals.trace_bytes += len;
}

static const char *const argv_prog[] = { "prog", "--flag", "a b", "tab\there" };
static const char *const argv_true[] = { "true" };
static const char *const argv_child[] = { "child" };
static const char *const argv_nonexistent[] = { "nonexistent" };

void synth_bundle(struct test_bundle *tb, const char *dir, unsigned flags)
{
	static const char *const cmd_argv[] = { "/usr/bin/prog", "--flag", "a b", "tab\there" };
	struct test_rec r;
	uint8_t pt[256];
	size_t n, i;
	char *command;
	int err;

	memset(tb, 0, sizeof(*tb));
	tb->dir = strdup(dir);
	command = hwt_bundle_quote_argv(4, (char *const *)cmd_argv);
	err = hwt_bundle_create(dir, "valgrind", "sequence", command);
	free(command);
	if (err) {
		fprintf(stderr, "hwt_bundle_create(%s): %s\n", dir, hwt_bundle_errstr(err));
		exit(99);
	}

	/* Image 100.0: every record type, ends with exec. */
	put_process(tb, "100.0", HWT_RECORD_PROCESS_START, 1, 100, 1, 0, "/usr/bin/prog", 4,
		    argv_prog);
	put_mmap(tb, "100.0", 2, 100, 0x400000, 0x2000, 0, 20, 0, "/usr/bin/prog");
	put_mmap(tb, "100.0", 3, 100, 0x7fff0000, 0x1000, 0, 0, HWT_MMAP_VDSO, "images/vdso.so");
	put_mmap(tb, "100.0", 4, 100, 0x7f0000000000, 0x1a000, 0x28000, 8, 0,
		 "/lib/x86_64-linux-gnu/libc.so.6");
	{
		struct hwt_record_munmap *m = rec_begin(&r, HWT_RECORD_MUNMAP, sizeof(*m), 5, 100, 100);

		m->addr = 0x7f0000000000;
		m->len = 0x1000;
		put_simple(tb, "100.0", &r);
	}
	{
		struct hwt_record_thread *t = rec_begin(&r, HWT_RECORD_THREAD_CREATE, sizeof(*t), 6,
							100, 100);

		t->child_tid = 101;
		put_simple(tb, "100.0", &r);
	}
	{
		/* As hwt.ko wrote it before offset was added: readers take the shorter record. */
		struct hwt_record_switch *s = rec_begin(&r, HWT_RECORD_SWITCH,
							offsetof(struct hwt_record_switch, offset),
							7, 100, 101);

		s->cpu = 1;
		s->in = 1;
		put_simple(tb, "100.0", &r);
	}
	{
		struct hwt_record_buffer *b = rec_begin(&r, HWT_RECORD_BUFFER, sizeof(*b), 8, 100, 101);

		b->buffer = 101;
		b->offset = 0x1000;
		put_simple(tb, "100.0", &r);
	}
	{
		struct hwt_record_signal *s = rec_begin(&r, HWT_RECORD_SIGNAL, sizeof(*s), 9, 100, 101);

		s->signo = 11;
		s->ip = 0x401234;
		put_simple(tb, "100.0", &r);
	}
	if (flags & SYNTH_LOST) {
		put_lost(tb, "100.0", 10, 100, HWT_LOST_TRACE_WRITE, 0, 4096);
		put_lost(tb, "100.0", 11, 100, HWT_LOST_RECORD_QUEUE, 3, 0);
		tb->totals.lost_records += 3;
		tb->totals.lost_bytes += 4096;
	}
	rec_begin(&r, HWT_RECORD_THREAD_EXIT, sizeof(struct hwt_record_thread), 12, 100, 101);
	put_simple(tb, "100.0", &r);
	{
		struct hwt_record_fork *f = rec_begin(&r, HWT_RECORD_FORK, sizeof(*f), 13, 100, 100);

		f->child_pid = 102;
		put_simple(tb, "100.0", &r);
	}
	{
		struct hwt_record_untraced *u = rec_begin(&r, HWT_RECORD_UNTRACED, sizeof(*u), 14,
							  100, 100);

		u->ppid = 100;
		rec_string(&r, "/usr/bin/sudo");
		rec_string(&r, "setuid executable");
		rec_end(&r);
		synth_record(tb, "100.0", &r, "/usr/bin/sudo", "setuid executable", 0, NULL);
		tb->totals.untraced++;
	}
	{
		/* A type from the future: readers skip it. */
		static const uint8_t extra[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

		rec_begin(&r, 99, sizeof(struct hwt_record_header), 15, 100, 100);
		rec_bytes(&r, extra, sizeof(extra));
		put_simple(tb, "100.0", &r);
	}
	put_process(tb, "100.0", HWT_RECORD_EXEC, 16, 100, 1, 0, "/bin/true", 1, argv_true);

	/* Image 100.1: after the exec. */
	put_process(tb, "100.1", HWT_RECORD_PROCESS_START, 1, 100, 1, 1, "/bin/true", 1, argv_true);
	put_mmap(tb, "100.1", 2, 100, 0x500000, 0x3000, 0x1000, 20, 0, "/bin/true");
	put_mmap(tb, "100.1", 3, 100, 0x600000, 0x1000, 0, 0, HWT_MMAP_ANON, "");
	put_mmap(tb, "100.1", 4, 100, 0x58000000, 0x1000, 0, 0, HWT_MMAP_TRACE_UNIT | 0x100,
		 "/usr/libexec/valgrind/hwt-amd64-linux");
	put_exit(tb, "100.1", 5, 100, 0);

	/* Image 102.0: the fork child, killed by SIGSEGV with a core. */
	put_process(tb, "102.0", HWT_RECORD_PROCESS_START, 1, 102, 100, 0, "/usr/bin/prog", 1,
		    argv_child);
	put_mmap(tb, "102.0", 2, 102, 0x400000, 0x2000, 0, 20, 0, "/usr/bin/prog");
	if (flags & SYNTH_LOST) {
		put_lost(tb, "102.0", 3, 102, HWT_LOST_BUFFER_WRAP, 0, 100);
		tb->totals.lost_bytes += 100;
	}
	{
		/* An execve that failed: the image goes on. */
		struct test_rec e;
		struct hwt_record_process *p = rec_begin(&e, HWT_RECORD_EXEC, sizeof(*p), 4, 102, 102);

		p->hdr.flags = HWT_EXEC_FAILED;
		p->ppid = 100;
		p->argc = 1;
		rec_string(&e, "/nonexistent");
		rec_string(&e, "nonexistent");
		rec_end(&e);
		synth_record(tb, "102.0", &e, "/nonexistent", NULL, 1, argv_nonexistent);
	}
	put_exit(tb, "102.0", 5, 102, 0x8b);

	tb->totals.processes = 2;
	tb->totals.images = 3;
	for (i = 0; i < tb->nrecs; i++)
		tb->totals.sideband_bytes += tb->recs[i].size;

	/* Streams. 100.0-100: PSB+, TIP.PGE, TNT, TIP, TNT, TIP.PGD. */
	n = pt_psb(pt);
	n += pt_psbend(pt + n);
	n += pt_mode_exec64(pt + n);
	n += pt_ip(pt + n, PT_TIP_PGE, 3, 0x401000);
	n += pt_tnt(pt + n, "!.!");
	n += pt_ip(pt + n, PT_TIP, 1, 0x1234);
	n += pt_tnt(pt + n, "!!.!..");
	n += pt_ip(pt + n, PT_TIP_PGD, 0, 0);
	put_stream(tb, "100.0-100", pt, n);

	/* 100.0-101: PSB, TSC, PSBEND, PGE with a full IP, a pad, FUP, OVF. */
	n = pt_psb(pt);
	n += pt_tsc(pt + n, 5);
	n += pt_psbend(pt + n);
	n += pt_mode_exec64(pt + n);
	n += pt_ip(pt + n, PT_TIP_PGE, 6, 0x00007f0000001000ull);
	n += pt_pad(pt + n);
	n += pt_ip(pt + n, PT_FUP, 2, 0x2000);
	n += pt_ovf(pt + n);
	put_stream(tb, "100.0-101", pt, n);

	/* 100.1-100 and 102.0-102: short ones. */
	n = pt_psb(pt);
	n += pt_psbend(pt + n);
	n += pt_mode_exec64(pt + n);
	n += pt_ip(pt + n, PT_TIP_PGE, 3, 0x500100);
	n += pt_ip(pt + n, PT_TIP_PGD, 0, 0);
	put_stream(tb, "100.1-100", pt, n);
	put_stream(tb, "102.0-102", pt, n);

	if (flags & SYNTH_SUMMARY) {
		err = hwt_bundle_write_summary(dir, 0);
		if (err) {
			fprintf(stderr, "hwt_bundle_write_summary: %s\n", hwt_bundle_errstr(err));
			exit(99);
		}
	}
}

void synth_free(struct test_bundle *tb)
{
	size_t i;

	for (i = 0; i < tb->nrecs; i++)
		free(tb->recs[i].bytes);
	free(tb->dir);
	memset(tb, 0, sizeof(*tb));
}

/* ----- running hwt ----- */

void test_run(struct test_run *run, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	char *dir = test_tmpdir("run");
	char *out = test_path(dir, "out"), *err = test_path(dir, "err");
	extern char **environ;
	int status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
		fprintf(stderr, "cannot run %s\n", argv[0]);
		exit(99);
	}
	posix_spawn_file_actions_destroy(&fa);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			exit(99);
	run->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	run->out = test_read(out, NULL);
	run->err = test_read(err, NULL);
	test_rmtree(dir);
	free(out);
	free(err);
	free(dir);
}

void test_run_free(struct test_run *run)
{
	free(run->out);
	free(run->err);
	run->out = run->err = NULL;
}
