/*
 * tb_log_plugin.c - a QEMU user-mode TCG plugin that does what the hot path
 * of a QEMU-based hwt trace unit would do, to measure its per-process cost:
 *
 *   - at translation time: record each TB's start address, the address and
 *     kind (conditional / direct / indirect / other) of its last instruction;
 *   - at each TB execution: append (start, last|kind) to a per-vCPU 16 KiB log;
 *   - when the log is full (and at exit): run an encoding pass that turns the
 *     block sequence into Intel-PT-like bytes (short TNT packets, one bit per
 *     conditional and per ret, as with PT's return compression; TIP packets
 *     with IP compression for indirect jumps and calls and unexplained
 *     discontinuities) and write(2) them to a file;
 *   - a syscall callback counting the sideband a real unit needs
 *     (mmap/munmap/mprotect/exec/fork/clone).
 *
 * Not a real encoder: packet bytes are PT-shaped so the byte counts and the
 * work per block are realistic, nothing reads them back.
 *
 * Arguments (-plugin file=tb_log_plugin.so,out=PATH,stats=PATH):
 *   out=PATH    trace bytes go to PATH.<pid> (default: /dev/null)
 *   stats=PATH  one "key=value" line per process appended to PATH
 *               (default: stderr)
 *   mode=M      full (default): all of the above; trans: translation
 *               callback only (no per-block callback, no log); noop: the
 *               plugin loads and registers nothing - to split the cost
 *
 * QEMU 7.2 ships no installed qemu-plugin.h in Debian: the API is declared
 * in collector/qemu/qemu_plugin_api.h (plugin API version 1).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- QEMU 7.2 plugin API: the declarations the QEMU trace unit uses ---- */
#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* ---- per-TB descriptor, built at translation time ---- */

enum br_kind {
	BR_OTHER = 0,
	BR_COND = 1,
	BR_DIRECT = 2,
	BR_INDIRECT = 3,
	BR_RET = 4, /* near ret: PT's return compression makes it a TNT bit */
};

/* `last` packs: bits 0..47 last-instruction address, 48..55 its length,
 * 56..58 its branch kind. User-space x86-64 addresses fit in 47 bits. */
#define LAST_ADDR(x) ((x) & 0xffffffffffffULL)
#define LAST_LEN(x) (((x) >> 48) & 0xff)
#define LAST_KIND(x) ((unsigned)((x) >> 56) & 7)

struct tb_desc {
	uint64_t start;
	uint64_t last;
};

/* ---- per-vCPU log and encoder state ---- */

#define LOG_BYTES (16 * 1024)
#define LOG_WORDS (LOG_BYTES / sizeof(uint64_t))
#define OUT_CAP (LOG_BYTES) /* worst case << 16 KiB per 1024 blocks */
#define MAX_VCPUS 256

struct vcpu {
	uint64_t log[LOG_WORDS];
	size_t n;
	/* encoder state carried across flushes */
	uint64_t prev_last; /* packed `last` of the previous block, 0 = none */
	uint64_t last_ip;   /* for TIP IP compression */
	unsigned tnt;       /* pending TNT bits, in order */
	unsigned tnt_n;
	uint8_t out[OUT_CAP];
	size_t out_n;
	/* counters */
	uint64_t executed, tnt_bits, tips, bytes, flushes, rep_iters;
};

static struct vcpu *vcpus[MAX_VCPUS];
static uint64_t translated; /* updated atomically */
static uint64_t sc_mmap, sc_munmap, sc_mprotect, sc_exec, sc_fork, sc_other;
static uint64_t fork_children_seen;
static uint64_t vcpu_inits, vcpu_exits; /* vcpu_init callbacks: one per guest thread? */
static int out_fd = -1;
static char out_path[4096];
static char stats_path[4096];
static pid_t owner_pid;
static enum { MODE_FULL, MODE_TRANS, MODE_NOOP } mode = MODE_FULL;
static int err_fd = 2; /* a dup of the start-up stderr: programs such as
			 * coreutils close fd 2 before exiting */

static void die(const char *msg)
{
	dprintf(2, "tb_log_plugin: %s\n", msg);
	_exit(97);
}

/* Classify an x86-64 instruction by its bytes (enough for branch kinds). */
static enum br_kind classify(const uint8_t *p, size_t len)
{
	size_t i = 0;
	while (i < len) {
		uint8_t b = p[i];
		if (b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 ||
		    b == 0xf0 || b == 0x2e || b == 0x3e || b == 0x26 ||
		    b == 0x36 || b == 0x64 || b == 0x65 || (b & 0xf0) == 0x40)
			i++;
		else
			break;
	}
	if (i >= len)
		return BR_OTHER;
	uint8_t op = p[i];
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
		return BR_COND;
	if (op == 0x0f && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x8f)
		return BR_COND;
	if (op == 0xe8 || op == 0xe9 || op == 0xeb)
		return BR_DIRECT;
	if (op == 0xc3 || op == 0xc2)
		return BR_RET;
	if (op == 0xcb || op == 0xca)
		return BR_INDIRECT;
	if (op == 0xff && i + 1 < len) {
		unsigned reg = (p[i + 1] >> 3) & 7;
		if (reg >= 2 && reg <= 5)
			return BR_INDIRECT;
	}
	return BR_OTHER;
}

static void out_flush(struct vcpu *v)
{
	size_t off = 0;
	while (off < v->out_n) {
		ssize_t w = write(out_fd, v->out + off, v->out_n - off);
		if (w <= 0)
			die("write of trace bytes failed");
		off += (size_t)w;
	}
	v->bytes += v->out_n;
	v->out_n = 0;
}

static inline void emit(struct vcpu *v, uint8_t b)
{
	if (v->out_n == OUT_CAP)
		out_flush(v);
	v->out[v->out_n++] = b;
}

/* Short TNT: up to 6 bits, a stop bit above them, bit 0 clear. */
static void tnt_flush(struct vcpu *v)
{
	if (!v->tnt_n)
		return;
	emit(v, (uint8_t)(((1u << v->tnt_n) | v->tnt) << 1));
	v->tnt = v->tnt_n = 0;
}

static void tnt_add(struct vcpu *v, bool taken)
{
	v->tnt = (v->tnt << 1) | taken;
	v->tnt_bits++;
	if (++v->tnt_n == 6)
		tnt_flush(v);
}

/* TIP with PT-style IP compression: 2, 4 or 6 payload bytes + header. */
static void tip(struct vcpu *v, uint64_t ip)
{
	tnt_flush(v);
	uint64_t diff = ip ^ v->last_ip;
	unsigned n = !(diff >> 16) ? 2 : !(diff >> 32) ? 4 : 6;
	emit(v, (uint8_t)(0x0d | (n == 2 ? 1 : n == 4 ? 2 : 3) << 5));
	for (unsigned i = 0; i < n; i++)
		emit(v, (uint8_t)(ip >> (8 * i)));
	v->last_ip = ip;
	v->tips++;
}

/* The encoding pass over the log: (start, last) pairs in execution order. */
static void encode(struct vcpu *v)
{
	for (size_t i = 0; i < v->n; i += 2) {
		uint64_t start = v->log[i], last = v->log[i + 1];
		uint64_t p = v->prev_last;
		if (p) {
			uint64_t fall = LAST_ADDR(p) + LAST_LEN(p);
			switch (LAST_KIND(p)) {
			case BR_COND:
				tnt_add(v, start != fall);
				break;
			case BR_INDIRECT:
				tip(v, start);
				break;
			case BR_RET:
				/* assumes well-nested calls (PT checks this
				 * with its return stack; a real encoder would
				 * keep one and TIP on a mismatch) */
				tnt_add(v, true);
				break;
			case BR_DIRECT:
				break; /* target known statically */
			default:
				/* QEMU ends a TB after each iteration of a rep
				 * string instruction and re-enters at it: no
				 * change of flow, no packet for PT */
				if (start == LAST_ADDR(p)) {
					v->rep_iters++;
					break;
				}
				/* fell through (TB split, syscall) or an
				 * asynchronous change of flow (signal) */
				if (start != fall)
					tip(v, start);
				break;
			}
		} else {
			tip(v, start); /* first block: TIP.PGE-like */
		}
		v->prev_last = last;
	}
	v->n = 0;
	v->flushes++;
	out_flush(v);
}

static struct vcpu *vcpu_get(unsigned idx)
{
	if (idx >= MAX_VCPUS)
		die("vcpu index beyond MAX_VCPUS");
	struct vcpu *v = vcpus[idx];
	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			die("out of memory");
		vcpus[idx] = v;
	}
	return v;
}

/* ---- callbacks ---- */

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu_index)
{
	(void)id;
	vcpu_get(vcpu_index);
	__atomic_fetch_add(&vcpu_inits, 1, __ATOMIC_RELAXED);
}

/* A guest thread ends: its vCPU index may be reused by the next thread, so
 * its log is encoded and its stream ended here (the counters stay). */
static void vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu_index)
{
	(void)id;
	struct vcpu *v = vcpu_get(vcpu_index);
	encode(v);
	tnt_flush(v);
	out_flush(v);
	v->prev_last = 0;
	v->last_ip = 0;
	__atomic_fetch_add(&vcpu_exits, 1, __ATOMIC_RELAXED);
}

static void tb_exec(unsigned int vcpu_index, void *udata)
{
	struct vcpu *v = vcpus[vcpu_index];
	const struct tb_desc *d = udata;
	if (__builtin_expect(!v, 0))
		v = vcpu_get(vcpu_index);
	v->log[v->n] = d->start;
	v->log[v->n + 1] = d->last;
	v->n += 2;
	v->executed++;
	if (__builtin_expect(v->n == LOG_WORDS, 0))
		encode(v);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct tb_desc *d = malloc(sizeof(*d));
	if (!d)
		die("out of memory");
	d->start = qemu_plugin_tb_vaddr(tb);
	d->last = 0;
	if (n) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, n - 1);
		size_t len = qemu_plugin_insn_size(in);
		enum br_kind k = classify(qemu_plugin_insn_data(in), len);
		d->last = (qemu_plugin_insn_vaddr(in) & 0xffffffffffffULL) |
			  ((uint64_t)(len & 0xff) << 48) | ((uint64_t)k << 56);
	}
	__atomic_fetch_add(&translated, 1, __ATOMIC_RELAXED);
	if (mode == MODE_TRANS) {
		free(d);
		return;
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     d);
}

static void open_out(void)
{
	char path[4200];
	if (!out_path[0]) {
		snprintf(path, sizeof(path), "/dev/null");
	} else {
		snprintf(path, sizeof(path), "%s.%d", out_path, (int)getpid());
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot open trace output file");
	if (out_fd >= 0)
		close(out_fd);
	out_fd = fd;
	owner_pid = getpid();
}

static void syscall_entry(qemu_plugin_id_t id, unsigned int vcpu_index,
			  int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
			  uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
			  uint64_t a8)
{
	(void)id, (void)vcpu_index, (void)a1, (void)a2, (void)a3, (void)a4;
	(void)a5, (void)a6, (void)a7, (void)a8;
	switch (num) { /* x86-64 syscall numbers */
	case 9: __atomic_fetch_add(&sc_mmap, 1, __ATOMIC_RELAXED); break;
	case 10: __atomic_fetch_add(&sc_mprotect, 1, __ATOMIC_RELAXED); break;
	case 11: __atomic_fetch_add(&sc_munmap, 1, __ATOMIC_RELAXED); break;
	case 59: case 322:
		__atomic_fetch_add(&sc_exec, 1, __ATOMIC_RELAXED);
		break;
	case 56: case 57: case 58: case 435:
		__atomic_fetch_add(&sc_fork, 1, __ATOMIC_RELAXED);
		break;
	default: __atomic_fetch_add(&sc_other, 1, __ATOMIC_RELAXED); break;
	}
}

/* A fork's child: the plugin state was copied with the process; give the
 * child its own output file (the parent's trace bytes already written stay
 * in the parent's file, the log's unflushed part is the parent's history and
 * is dropped here). */
static void syscall_ret(qemu_plugin_id_t id, unsigned int vcpu_idx, int64_t num,
			int64_t ret)
{
	(void)id;
	if ((num == 56 || num == 57 || num == 58 || num == 435) && ret == 0 &&
	    getpid() != owner_pid) {
		fork_children_seen++;
		for (unsigned i = 0; i < MAX_VCPUS; i++)
			if (vcpus[i] && i != vcpu_idx) {
				free(vcpus[i]);
				vcpus[i] = NULL;
			}
		struct vcpu *v = vcpu_get(vcpu_idx);
		v->n = v->out_n = 0;
		v->executed = v->tnt_bits = v->tips = v->bytes = v->flushes = 0;
		v->rep_iters = 0;
		open_out();
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id, (void)p;
	uint64_t ex = 0, tnt = 0, tips = 0, bytes = 0, fl = 0, rep = 0;
	unsigned nv = 0;
	for (unsigned i = 0; i < MAX_VCPUS; i++) {
		struct vcpu *v = vcpus[i];
		if (!v)
			continue;
		nv++;
		encode(v);
		tnt_flush(v);
		out_flush(v);
		ex += v->executed, tnt += v->tnt_bits, tips += v->tips;
		bytes += v->bytes, fl += v->flushes;
		rep += v->rep_iters;
	}
	int fd = err_fd;
	if (stats_path[0]) {
		fd = open(stats_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0644);
		if (fd < 0)
			die("cannot open stats file");
	}
	dprintf(fd,
		"tb_log pid=%d vcpus=%u tb_translated=%llu tb_executed=%llu "
		"tnt_bits=%llu tips=%llu rep_iters=%llu pt_bytes=%llu flushes=%llu "
		"sc_mmap=%llu sc_munmap=%llu sc_mprotect=%llu sc_exec=%llu "
		"sc_fork=%llu sc_other=%llu fork_child=%llu vcpu_inits=%llu vcpu_exits=%llu\n",
		(int)getpid(), nv, (unsigned long long)translated,
		(unsigned long long)ex, (unsigned long long)tnt,
		(unsigned long long)tips, (unsigned long long)rep,
		(unsigned long long)bytes,
		(unsigned long long)fl, (unsigned long long)sc_mmap,
		(unsigned long long)sc_munmap, (unsigned long long)sc_mprotect,
		(unsigned long long)sc_exec, (unsigned long long)sc_fork,
		(unsigned long long)sc_other,
		(unsigned long long)fork_children_seen,
		(unsigned long long)vcpu_inits,
		(unsigned long long)vcpu_exits);
	if (fd != err_fd)
		close(fd);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	if (info->system_emulation || strcmp(info->target_name, "x86_64")) {
		dprintf(2, "tb_log_plugin: wants x86_64 user mode, got %s%s\n",
			info->target_name,
			info->system_emulation ? " (system)" : "");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
		else if (!strncmp(argv[i], "stats=", 6))
			snprintf(stats_path, sizeof(stats_path), "%s",
				 argv[i] + 6);
		else if (!strcmp(argv[i], "mode=full"))
			mode = MODE_FULL;
		else if (!strcmp(argv[i], "mode=trans"))
			mode = MODE_TRANS;
		else if (!strcmp(argv[i], "mode=noop"))
			mode = MODE_NOOP;
		else {
			dprintf(2, "tb_log_plugin: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	if (mode == MODE_NOOP)
		return 0;
	err_fd = fcntl(2, F_DUPFD_CLOEXEC, 100);
	if (err_fd < 0)
		err_fd = 2;
	open_out();
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_entry);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, syscall_ret);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
