/*
 * hwt's QEMU trace unit: a qemu-x86_64 or qemu-aarch64 (user mode, QEMU
 * 7.2) TCG plugin that writes, per thread, the Intel PT packets a
 * user-mode-only PT unit with return compression off would write (x86-64
 * guests) or the ETMv4 packets of an ETM filtered to EL0 (aarch64 guests),
 * plus the process's sideband: the same bundle files as the Valgrind tool
 * (docs/bundle.md).
 *
 * QEMU runs guest threads in parallel host threads: a thread's stream is
 * touched only by that thread (and at exit, when QEMU has stopped the
 * others); the sideband file, the clock and the image table are shared
 * and locked.
 */
#ifndef HWT_QEMU_UNIT_H
#define HWT_QEMU_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwt_record.h"
#include "hwt_trace_budget.h"

struct hwt_qemu_options {
	char bundle[4096];      /* bundle directory, made by `hwt record` */
	long psb_period;        /* packet bytes between two PSB+ */
	bool debug_blocks;      /* write blocks/<image>-<tid>.blk */
	bool fast_encode;       /* x86-64: encode runs of plain blocks in one pass (off:
	                           block by block, the reference the tests compare with) */
	long spe_interval;      /* spe=N: aarch64 guests also write SPE records, one per N
				   operations (0: no SPE) */
	bool no_etm;            /* etm=off (aarch64, with spe=N): SPE alone, the ETMv4
	                           streams are not written (still encoded: the SPE unit
	                           shares their block callbacks) */
	const char *filters[16]; /* filter=GLOB: only images whose path or base name match
	                            are traced (none: every image) */
	unsigned nfilters;
	bool select_filter;     /* select_filter=on: only the images the selection rule
	                           selects (the HWT_SELECT_* environment, as the
	                           preloaded library judges libraries: docs/select.md) */
};
extern struct hwt_qemu_options hwt_qemu_opts;
/* The guest is aarch64: ETMv4 streams (else x86-64 and Intel PT). */
extern bool hwt_qemu_etm;

/* ---- process.c: this process image, its sideband file, clock and files ---- */

/* Opens this image's sideband file and writes PROCESS_START. */
void hwt_qemu_process_start(void);
/* In a fork child: a new image with its own sideband file and its parent's mappings. */
void hwt_qemu_process_start_forked(void);
/* Appends a record; fills the header (magic, type, size, time, pid, tid, CRC). */
void hwt_qemu_process_record(struct hwt_record_header *hdr, unsigned type, uint32_t size);
void hwt_qemu_process_lost(unsigned reason, unsigned records, uint64_t bytes);
void hwt_qemu_process_exit(int status);
/* The sideband clock: bumped by every record (read per block: inline). */
extern uint64_t hwt_qemu_clock_now;
static inline uint64_t hwt_qemu_process_clock(void)
{
	return __atomic_load_n(&hwt_qemu_clock_now, __ATOMIC_ACQUIRE);
}
/* "<pid>.<gen>": the prefix of this image's files in the bundle. */
const char *hwt_qemu_process_name(void);
/* The program QEMU runs, and whether it is statically linked. */
const char *hwt_qemu_process_exe(void);
bool hwt_qemu_process_static(void);
/* Creates (truncates) or appends to <bundle>/<dir>/<name>; no descriptor stays open. */
bool hwt_qemu_file_create(const char *dir, const char *name, bool exclusive);
bool hwt_qemu_file_append(const char *dir, const char *name, const void *buf, size_t len);
/* The run's trace size cap (select/trace-budget), NULL when none; mapped once
   at start, shared with every process of the run (fork children too). */
extern struct hwt_trace_budget *hwt_qemu_budget;
/* The sideband lock, for image.c's table; records written while holding it. */
void hwt_qemu_process_lock(void);
void hwt_qemu_process_unlock(void);
void hwt_qemu_process_record_locked(struct hwt_record_header *hdr, unsigned type, uint32_t size);

/* ---- image.c: the mappings guest code runs from ---- */

/* Makes sure the mapping holding addr is described by an MMAP record; true
   when it is a file's (false: anonymous code, or not found). */
bool hwt_qemu_image_seen(uint64_t addr);
/* With filter= options or select_filter=on: whether the image holding addr
   (seen before) is one they select; anonymous code is never selected.
   Without: true. */
bool hwt_qemu_image_filtered_in(uint64_t addr);
/* munmap, mprotect without exec, mmap MAP_FIXED over [a, a+len). */
void hwt_qemu_image_unmapped(uint64_t a, uint64_t len);
/* Records again every known mapping (a fork child inherits them). */
void hwt_qemu_image_replay(void);

/* ---- vcpu.c: per-thread trace stream ---- */

/*
 * One translated block, described at translation. QEMU ends a block at
 * every control transfer, so only its last instruction can branch.
 */
struct hwt_qemu_block {
	uint64_t start;       /* first instruction */
	uint64_t insn;        /* last instruction */
	uint64_t fallthrough; /* insn + its length */
	uint64_t target;      /* direct branch target, else 0 */
	uint32_t ninsns;
	uint8_t branch;       /* enum hwt_insn_kind of insn (a system call's TIP.PGD
	                         or Exception comes from the system call callback) */
	uint8_t rep;          /* insn is a REP string instruction */
	uint8_t untraced;     /* code a trace unit would not see (the signal return
	                         trampoline QEMU writes on an aarch64 guest's stack,
	                         where Linux has it in the vDSO), or code outside the
	                         filter: tracing is off from the branch to it on */
};

/* Translated code's callback: block ran on the calling thread (the vCPU index
   is not used: QEMU reuses one before its exit callback has run). */
void hwt_qemu_vcpu_block(unsigned vcpu, void *block);
/* The same for an untraced block: logged only when the thread comes from traced code. */
void hwt_qemu_vcpu_outside(unsigned vcpu, void *block);
/* The calling thread's vcpu turns its logged blocks into packets (before a record). */
void hwt_qemu_vcpu_flush_self(void);
/* The calling thread enters a system call (after the blocks that led there). */
void hwt_qemu_vcpu_syscall(bool sigreturn);
/* Signal handler addresses (rt_sigaction): entering one after an indirect branch
   is a signal delivery, not the branch. */
void hwt_qemu_vcpu_add_handler(uint64_t handler);
/* The calling thread is gone: finish its stream. */
void hwt_qemu_vcpu_finish_self(void);
/* The process ends (QEMU stopped the other threads): finish every stream. */
void hwt_qemu_vcpu_finish_all(void);
/* The process dies of a signal: the calling thread stops in its last block,
   every stream is finished. */
void hwt_qemu_vcpu_die(void);
/* Writes out what the calling thread's stream holds (before execve, kill). */
void hwt_qemu_vcpu_drain_self(void);
/* Other threads whose unflushed blocks an exec would lose. */
unsigned hwt_qemu_vcpu_others_busy(void);
/* In a fork child: forget the parent's streams (the parent writes them). */
void hwt_qemu_vcpu_forget_all(void);

/* ---- spe.c: the software SPE unit (aarch64 guests, spe=N) ---- */

struct qemu_plugin_tb;
struct hwt_qemu_spe_block;
/* Makes spe/ in the bundle. */
void hwt_qemu_spe_start(void);
/* At translation: what each instruction of b is; registers the memory
   callbacks of its loads and stores. NULL when out of memory. */
struct hwt_qemu_spe_block *hwt_qemu_spe_translate(const struct hwt_qemu_block *b,
						  struct qemu_plugin_tb *tb);
/* Translated code's callbacks: a block runs (userdata: its spe block), a
   load or store accesses vaddr (userdata: the instruction's address). */
void hwt_qemu_spe_block(unsigned vcpu, void *userdata);
void hwt_qemu_spe_mem(unsigned vcpu, uint32_t info, uint64_t vaddr, void *userdata);
/* The calling thread enters a system call. */
void hwt_qemu_spe_syscall(void);
/* Writes out the calling thread's records (before execve, kill). */
void hwt_qemu_spe_drain_self(void);
/* The calling thread is gone / the process ends / a fork child forgets the parent's. */
void hwt_qemu_spe_finish_self(void);
void hwt_qemu_spe_finish_all(void);
void hwt_qemu_spe_forget_all(void);

#endif /* HWT_QEMU_UNIT_H */
