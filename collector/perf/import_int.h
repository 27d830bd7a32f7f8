/* Internals of hwt import, shared by its files. */
#ifndef HWT_PERF_IMPORT_INT_H
#define HWT_PERF_IMPORT_INT_H

#include <stdio.h>

#include "hwt_perf_import.h"
#include "hwt_perfdata.h"
#include "hwt_perf_cs_etm.h"
#include "hwt_record.h"

/* ----- What the perf.data file says ------------------------------------- */

/* A sideband record, on the TSC clock (sorted by time, then file order). */
struct ievent {
	uint64_t time;
	uint64_t seq;
	uint32_t type;             /* PERF_RECORD_* */
	uint16_t misc;
	uint32_t pid, tid, cpu;    /* the sample id (pid, tid -1 when absent) */
	int has_cpu;
	union {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t prot;
			uint8_t build_id[20];
			uint8_t build_id_size;
			char *filename;
		} mmap;
		struct {
			uint32_t pid, tid;
			char *comm;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
		} task;
		struct {
			uint32_t pid, tid;   /* SWITCH_CPU_WIDE next/prev; ITRACE_START's */
		} sw;
		struct {
			uint64_t count;      /* LOST, LOST_SAMPLES */
		} lost;
		struct {
			uint64_t offset, size, flags;
		} aux;
		struct {
			uint32_t code, cpu, pid, tid;
			uint64_t ip;
			char msg[65];
		} error;
	} u;
};

/* One AUXTRACE record's data. */
struct iaux {
	uint64_t offset, size, reference;
	uint32_t idx, tid, cpu;
	const uint8_t *data;       /* have bytes (fewer than size when cut) */
	uint64_t have;
	uint8_t *owned;            /* a copy (pipe mode), freed with it */
	uint64_t seq;
};

/* hwt's own section of a perf.data that hwt export wrote. */
struct inote_mmap {
	uint32_t pid;
	uint64_t time, addr;
	uint16_t flags;
	char *path;
};
struct inote {
	int present;
	char **keys;               /* "key=value" of the bundle's header */
	size_t nkeys;
	struct inote_mmap *mmaps;
	size_t nmmaps;
	struct hwt_record_munmap *munmaps; /* pid, tid, time, addr, len */
	size_t nmunmaps;
	struct { uint32_t pid; uint64_t time; int32_t status; } *exits;
	size_t nexits;
	struct { uint32_t pid, ppid; uint64_t time; char *path; } *procs;
	size_t nprocs;
};

/* ----- What the bundle gets --------------------------------------------- */

/* One process image being built; its records in memory until written. */
struct iimage {
	uint32_t pid, generation, ppid;
	uint64_t start;
	int exec_entered;          /* began at an exec (else a fork or first sight) */
	int ended;                 /* EXEC or PROCESS_EXIT written */
	char *path;                /* PROCESS_START's path (fixed up at the end) */
	char *comm;
	uint8_t *records;          /* sealed hwt records after PROCESS_START */
	size_t len, cap;
	uint64_t nrecords;
	size_t *mmaps;             /* offsets of its MMAP records (copied at a fork) */
	size_t nmmaps, cap_mmaps;
};

/* One thread's stream of one image. */
struct istream {
	struct iimage *image;
	uint32_t tid;
	char *path;
	uint8_t *buf;              /* not yet written to the file */
	size_t len, cap;
	int created;               /* the file exists */
	uint64_t bytes;
	int started;               /* has a sync point */
	int lost_sync;             /* the last run ended in damage: OVF written */
};

/* A change of who runs on a CPU (or which image a thread is in). */
struct iowner {
	uint64_t time;
	struct istream *out;       /* NULL: no traced thread */
};

/* One AUX queue: a CPU's buffers (per-CPU mode) or a thread's. */
struct iqueue {
	int per_cpu;
	uint32_t cpu, idx, tid;
	struct iaux **bufs;
	size_t nbufs, cap;
	struct iowner *owners;
	size_t nowners, cap_owners;
	/* AUX data the kernel's AUX records say it wrote and the file lacks */
	uint64_t missing, missing_time;
	uint32_t missing_pid, missing_tid;
	/* Gaps between its AUXTRACE buffers (snapshot mode: overwritten trace) */
	uint64_t gaps, gap_bytes;
	int formatted;             /* cs_etm: CoreSight frames (an ETR's), not raw */
};

/* The decoder-relevant configuration of the PMU (AUXTRACE_INFO and attr). */
struct ipt_config {
	int have_info;
	uint32_t pmu_type;
	uint64_t tsc_bit, noretcomp_bit, mtc_bit, mtc_freq_bits, cyc_bit;
	uint64_t config;           /* the intel_pt event's config */
	int exclude_kernel;
	int tsc, mtc, cyc, retcomp;
	unsigned mtc_freq;
	uint32_t ctc_n, ctc_d;     /* TSC:CTC ratio (CPUID 0x15 EBX:EAX) */
	uint32_t nom_freq;         /* max non-turbo ratio */
	uint64_t time_shift, time_mult, time_zero;
	int per_cpu, snapshot;
	char *filter;
};

/* CoreSight ETM: AUXTRACE_INFO's trace units (cs_etm_import.c). */
struct ietm_config {
	int have_info;
	struct hwt_perf_cs_etm_info info;
	char error[320];           /* why a cs_etm AUXTRACE_INFO was refused */
};

/* Arm SPE: arm_spe's AUXTRACE_INFO (arm_spe_import.c). */
struct ispe_config {
	int have_info;
	uint32_t pmu_type;
	int per_cpu;
};

struct import {
	const struct hwt_perf_import_options *opt;
	struct hwt_perf_import_stats stats;
	struct hwt_perf_reader *reader;
	const char *perf_path;
	char *dir;                 /* the bundle */
	struct ipt_config pt;
	struct ietm_config etm;
	struct ispe_config spe;

	struct ievent *events;
	size_t nevents, cap_events;
	struct iaux *aux;
	size_t naux, cap_aux;
	struct iqueue *queues;
	size_t nqueues, cap_queues;
	struct inote note;

	struct iimage **images;
	size_t nimages, cap_images;
	struct istream **streams;
	size_t nstreams, cap_streams;
	/* per pid: its current image (process.c) */
	struct { uint32_t pid; struct iimage *image; } *procs;
	size_t nprocs, cap_procs;
	/* per tid: its pid */
	struct { uint32_t tid, pid; } *threads;
	size_t nthreads, cap_threads;
	uint64_t untraced_lost;    /* losses of no known process */
	size_t *orphan_aux;        /* AUX events of threads without AUX data */
	size_t norphan_aux, cap_orphan_aux;
	int nomem;
};

/* import.c */
void hwt_import_warn(struct import *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* perf time (ns) to TSC with the file's conversion. */
uint64_t hwt_import_tsc(const struct import *im, uint64_t perf_time);
/* A grown array (elem bytes each) holding need; 0 or -1 (out of memory: im->nomem). */
int hwt_import_grow(struct import *im, void **items, size_t *cap, size_t need, size_t elem);

/* note.c: hwt's own feature section, when the file has one. */
int hwt_import_note_read(struct import *im);
void hwt_import_note_free(struct inote *note);
/* The flags and path the note gives the mapping of pid at addr and time, or NULL. */
const struct inote_mmap *hwt_import_note_mmap(const struct import *im, uint32_t pid,
					      uint64_t time, uint64_t addr);

/* process.c: images from the sorted sideband; then the queues' owners. */
int hwt_import_processes(struct import *im);
int hwt_import_owners(struct import *im);
/* The queue's owner at time t: the last change at or before it, else the first. */
struct istream *hwt_import_owner_at(const struct iqueue *q, uint64_t t);
/* The stream of thread tid in the image it was in at time t, or NULL. */
struct istream *hwt_import_thread_stream(struct import *im, uint32_t tid, uint64_t t);
struct istream *hwt_import_stream(struct import *im, struct iimage *image, uint32_t tid);
/* Appends an hwt record (sealed here) to an image. */
int hwt_import_add_record(struct import *im, struct iimage *image, void *rec);
/* A LOST record in the image of pid (of the first image when pid is unknown). */
void hwt_import_lost(struct import *im, uint32_t pid, uint32_t tid, uint64_t time,
		     uint32_t reason, uint64_t records, uint64_t bytes);
void hwt_import_processes_free(struct import *im);

/* binary.c: where a mapped file is now (malloc'd), its build-id filled in when known. */
char *hwt_import_binary(struct import *im, const char *filename, uint8_t *build_id,
			uint8_t *build_id_size, uint16_t *flags);

/* split.c: one AUX queue into its threads' streams. */
int hwt_import_split(struct import *im, struct iqueue *q);

/*
 * cs_etm_import.c: a cs_etm AUXTRACE_INFO taken in (0, or -1 out of memory;
 * a record that does not parse leaves im->etm.error); the bundle's header
 * keys of its trace unit (up to room, returns how many); one AUX queue of
 * ETM trace into its threads' streams.
 */
int hwt_import_etm_info(struct import *im, const struct hwt_perf_record *rec);
size_t hwt_import_etm_keys(const struct import *im, char (*keys)[128], size_t room);
int hwt_import_etm_split(struct import *im, struct iqueue *q);

/*
 * arm_spe_import.c: an arm_spe AUXTRACE_INFO taken in; one AUX queue of SPE
 * records into its threads' SPE streams (spe/): each record goes to the
 * thread its Context packet names, else to the queue's owner at its
 * timestamp. Damage is counted, said and skipped to the next record.
 */
void hwt_import_spe_info(struct import *im, const struct hwt_perf_record *rec);
int hwt_import_spe_split(struct import *im, struct iqueue *q);

/* bundle.c: the bundle directory, streams and sideband files. */
int hwt_import_bundle_create(struct import *im);
int hwt_import_stream_write(struct import *im, struct istream *s, const void *data, size_t len);
int hwt_import_bundle_finish(struct import *im);

#endif /* HWT_PERF_IMPORT_INT_H */
