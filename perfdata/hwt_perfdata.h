/*
 * perf.data: the file that Linux perf (perf record, perf inject) writes and
 * the rest of perf reads. This library reads and writes it, file mode and
 * pipe mode, its header and feature sections, the event attributes and the
 * records that a trace import needs (docs/perf.md).
 *
 * In the style of libipt: small opaque objects with alloc/free, functions
 * that return a negative enum hwt_perf_error on failure (hwt_perf_errstr
 * names it), no hidden global state, nothing printed. A reader keeps what
 * is wrong with a readable file (a feature section out of range, a record
 * that does not parse) as text for its caller.
 *
 * The record layouts are the kernel's (linux/perf_event.h) and perf's own
 * user-space records (types 64 and up). Only native-endian (little-endian)
 * files are read.
 */
#ifndef HWT_PERFDATA_H
#define HWT_PERFDATA_H

#include "hwt_errors.h"
#include "hwt_warn.h"
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes, returned negated. */
enum hwt_perf_error {
	hpf_ok = hwt_ok,
	hpf_internal = hwt_err_internal,   /* a bug in this library */
	hpf_invalid = hwt_err_invalid,     /* bad argument */
	hpf_nomem = hwt_err_nomem,
	hpf_io = hwt_err_io,               /* a system call failed; errno tells why */
	hpf_magic = HWT_ERR_PERFDATA_BASE, /* not a perf.data file (no PERFILE2 magic) */
	hpf_endian,                        /* a perf.data file of the other byte order */
	hpf_bad_header,                    /* the file header does not describe a file */
	hpf_truncated,                     /* the file ends inside its header or a record */
	hpf_bad_record,                    /* a record does not parse (size, fields) */
	hpf_compressed,                    /* compressed records that do not decompress */
	hpf_eos,                           /* no more records */
	hpf_no_feature,                    /* the file has no such feature section */
	hpf_opencsd,                       /* OpenCSD cannot be loaded (hwt_opencsd_error says why) */
};

/* A human readable string for an error code (negative or not). */
const char *hwt_perf_errstr(int code);

/* ----- perf's own record types and header features ---------------------- */

/* Record types that perf (not the kernel) writes. */
enum hwt_perf_user_type {
	HWT_PERF_RECORD_HEADER_ATTR = 64,
	HWT_PERF_RECORD_HEADER_EVENT_TYPE = 65,
	HWT_PERF_RECORD_HEADER_TRACING_DATA = 66,
	HWT_PERF_RECORD_HEADER_BUILD_ID = 67,
	HWT_PERF_RECORD_FINISHED_ROUND = 68,
	HWT_PERF_RECORD_ID_INDEX = 69,
	HWT_PERF_RECORD_AUXTRACE_INFO = 70,
	HWT_PERF_RECORD_AUXTRACE = 71,
	HWT_PERF_RECORD_AUXTRACE_ERROR = 72,
	HWT_PERF_RECORD_THREAD_MAP = 73,
	HWT_PERF_RECORD_CPU_MAP = 74,
	HWT_PERF_RECORD_STAT_CONFIG = 75,
	HWT_PERF_RECORD_STAT = 76,
	HWT_PERF_RECORD_STAT_ROUND = 77,
	HWT_PERF_RECORD_EVENT_UPDATE = 78,
	HWT_PERF_RECORD_TIME_CONV = 79,
	HWT_PERF_RECORD_HEADER_FEATURE = 80,
	HWT_PERF_RECORD_COMPRESSED = 81,
	HWT_PERF_RECORD_FINISHED_INIT = 82,
};

/* Feature bits of the file header (sections after the data). */
enum hwt_perf_feature {
	HWT_PERF_FEAT_TRACING_DATA = 1,
	HWT_PERF_FEAT_BUILD_ID = 2,
	HWT_PERF_FEAT_HOSTNAME = 3,
	HWT_PERF_FEAT_OSRELEASE = 4,
	HWT_PERF_FEAT_VERSION = 5,
	HWT_PERF_FEAT_ARCH = 6,
	HWT_PERF_FEAT_NRCPUS = 7,
	HWT_PERF_FEAT_CPUDESC = 8,
	HWT_PERF_FEAT_CPUID = 9,
	HWT_PERF_FEAT_TOTAL_MEM = 10,
	HWT_PERF_FEAT_CMDLINE = 11,
	HWT_PERF_FEAT_EVENT_DESC = 12,
	HWT_PERF_FEAT_CPU_TOPOLOGY = 13,
	HWT_PERF_FEAT_NUMA_TOPOLOGY = 14,
	HWT_PERF_FEAT_BRANCH_STACK = 15,
	HWT_PERF_FEAT_PMU_MAPPINGS = 16,
	HWT_PERF_FEAT_GROUP_DESC = 17,
	HWT_PERF_FEAT_AUXTRACE = 18,
	HWT_PERF_FEAT_STAT = 19,
	HWT_PERF_FEAT_CACHE = 20,
	HWT_PERF_FEAT_SAMPLE_TIME = 21,
	HWT_PERF_FEAT_MEM_TOPOLOGY = 22,
	HWT_PERF_FEAT_CLOCKID = 23,
	HWT_PERF_FEAT_DIR_FORMAT = 24,
	HWT_PERF_FEAT_BPF_PROG_INFO = 25,
	HWT_PERF_FEAT_BPF_BTF = 26,
	HWT_PERF_FEAT_COMPRESSED = 27,
	HWT_PERF_FEAT_CPU_PMU_CAPS = 28,
	HWT_PERF_FEAT_CLOCK_DATA = 29,
	HWT_PERF_FEAT_HYBRID_TOPOLOGY = 30,
	HWT_PERF_FEAT_PMU_CAPS = 31,
	/*
	 * hwt's own section: what a trace bundle knows and perf.data cannot
	 * say (docs/perf.md). No feature bit in file mode: the file header's
	 * event_types section names it (perf ignores that section, and perf
	 * inject 6.1 crashes on a feature bit it does not know); the reader
	 * takes that section when it starts with "hwt-perf ", and a feature
	 * section of this bit too. In pipe mode a HEADER_FEATURE record of
	 * this number (perf skips a feature it does not know there).
	 */
	HWT_PERF_FEAT_HWT = 255,
	HWT_PERF_FEAT_BITS = 256,
};

/* perf's AUXTRACE_INFO types. */
#define HWT_PERF_AUXTRACE_INTEL_PT 1u
/* Arm SPE (perf's arm_spe): priv[] is the PMU type and whether the AUX
   buffers are per CPU (perf 6.1's layout, tools/perf/util/arm-spe.h). */
#define HWT_PERF_AUXTRACE_ARM_SPE  4u
#define HWT_PERF_ARM_SPE_PMU_TYPE      0u
#define HWT_PERF_ARM_SPE_PER_CPU_MMAPS 1u
#define HWT_PERF_ARM_SPE_INFO_WORDS    2u

/* The compression perf uses for COMPRESSED records (HEADER_COMPRESSED type). */
#define HWT_PERF_COMP_ZSTD 1u

/* ----- Records ---------------------------------------------------------- */

/* Which fields of hwt_perf_sample_id a record carries (sample_id_all). */
#define HWT_PERF_SID_TID       0x1u
#define HWT_PERF_SID_TIME      0x2u
#define HWT_PERF_SID_ID        0x4u
#define HWT_PERF_SID_STREAM_ID 0x8u
#define HWT_PERF_SID_CPU       0x10u

/* The sample_id trailer of a record (or the same fields of a SAMPLE). */
struct hwt_perf_sample_id {
	uint32_t fields;     /* HWT_PERF_SID_* present */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

/* One entry of an ID_INDEX record. */
struct hwt_perf_id_index_entry {
	uint64_t id, idx, cpu, tid;
};

/*
 * One record, decoded. A reader fills it (pointers into the reader, valid
 * until its next call); a writer encodes one from it (the type and the
 * member of u named after it; misc as given; size computed).
 */
struct hwt_perf_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;           /* reader: header.size */
	uint64_t offset;         /* reader: file offset of the record (inside a
	                            COMPRESSED record: of that record) */
	int compressed;          /* reader: it came out of a COMPRESSED record */
	const void *raw;         /* reader: the whole record (size bytes) */
	int known;               /* reader: a type decoded into u below */
	struct hwt_perf_sample_id sample;
	union {
		/* MMAP and MMAP2 (MMAP leaves what it does not carry zero). */
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
			uint8_t build_id[20];
			uint8_t build_id_size; /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
			const char *filename;
		} mmap;
		/* COMM: misc & PERF_RECORD_MISC_COMM_EXEC for an exec. */
		struct {
			uint32_t pid, tid;
			const char *comm;
		} comm;
		/* FORK and EXIT. */
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t lost;
		} lost_samples;
		/* AUX: flags PERF_AUX_FLAG_*. */
		struct {
			uint64_t offset, size, flags;
		} aux;
		struct {
			uint32_t pid, tid;
		} itrace_start;
		/* SWITCH_CPU_WIDE (SWITCH has no body). */
		struct {
			uint32_t next_prev_pid, next_prev_tid;
		} sw;
		struct {
			uint32_t type;
			const uint64_t *priv;
			size_t npriv;
		} auxtrace_info;
		/*
		 * AUXTRACE: data follows the record in the file (size bytes).
		 * The reader hands out data_size bytes of it: all of them, or
		 * fewer when the file ends first (then the next call returns
		 * -hpf_truncated).
		 */
		struct {
			uint64_t size, offset, reference;
			uint32_t idx, tid, cpu;
			const uint8_t *data;
			uint64_t data_size;
		} auxtrace;
		/* AUXTRACE_ERROR: fmt 1 and up carry time. */
		struct {
			uint32_t type, code, cpu, pid, tid, fmt;
			uint64_t ip, time;
			char msg[65];        /* NUL-terminated */
		} auxtrace_error;
		struct {
			uint64_t nr;
			const struct hwt_perf_id_index_entry *entries;
		} id_index;
		struct {
			uint64_t time_shift, time_mult, time_zero;
			uint64_t time_cycles, time_mask;
			uint8_t cap_user_time_zero, cap_user_time_short;
			int extended;        /* the fields after time_zero are present */
		} time_conv;
		/* SAMPLE: the fields before the callchain (sample carries the ids). */
		struct {
			uint64_t ip, addr, period;
		} sample;
	} u;
};

/* The name of a record type ("MMAP2", "AUXTRACE", ...), "unknown" when none. */
const char *hwt_perf_record_name(uint32_t type);

/* ----- Reading ---------------------------------------------------------- */

struct hwt_perf_reader;

/* One event attribute and the ids of its events. */
struct hwt_perf_attr {
	struct perf_event_attr attr; /* zero-extended to this header's size */
	const uint64_t *ids;
	size_t nids;
};

/* A build-id entry (HEADER_BUILD_ID feature, or its pipe-mode record). */
struct hwt_perf_build_id {
	int32_t pid;
	uint16_t misc;           /* cpumode (PERF_RECORD_MISC_KERNEL/USER...) */
	uint8_t build_id[20];
	uint8_t size;            /* 20 when the entry does not say */
	const char *filename;
};

struct hwt_perf_reader *hwt_perf_reader_alloc(void);
void hwt_perf_reader_free(struct hwt_perf_reader *reader);

/*
 * Opens a perf.data file (path "-": standard input) and reads its header:
 * file mode (attrs and features read here, bounds-checked) or pipe mode
 * (attrs and features arrive as records, read as hwt_perf_reader_next
 * meets them). Returns 0, or -hpf_io, -hpf_magic, -hpf_endian,
 * -hpf_bad_header, -hpf_truncated, -hpf_nomem; hwt_perf_reader_error says
 * what is wrong. A reader is opened once.
 */
int hwt_perf_reader_open(struct hwt_perf_reader *reader, const char *path);
/* The same on an open descriptor (not closed by the reader); name for messages. */
int hwt_perf_reader_open_fd(struct hwt_perf_reader *reader, int fd, const char *name);

/* 1 for a pipe-mode file. */
int hwt_perf_reader_pipe_mode(const struct hwt_perf_reader *reader);

/*
 * Reads the next record into *record (user-space header records of pipe
 * mode, HEADER_ATTR, HEADER_FEATURE and HEADER_BUILD_ID, are taken in and
 * also returned). COMPRESSED records are decompressed and their records
 * returned in their place. Returns 0, -hpf_eos at the end of the data,
 * -hpf_truncated when the data ends inside a record (an AUXTRACE record's
 * data cut short is returned first, with what there is), -hpf_bad_record,
 * -hpf_compressed, -hpf_io, -hpf_nomem. Errors are sticky: reading stops
 * at the first damage, and everything before it was returned.
 */
int hwt_perf_reader_next(struct hwt_perf_reader *reader, struct hwt_perf_record *record);

/* After an error: what is wrong, with the offset. Empty otherwise. */
const char *hwt_perf_reader_error(const struct hwt_perf_reader *reader);
/* Records returned so far. */
uint64_t hwt_perf_reader_count(const struct hwt_perf_reader *reader);

/*
 * Where warnings about a readable file go (a feature section out of range
 * or that does not parse, attrs whose sample ids disagree, ...), as they
 * are found; set it before opening. Without one they are dropped.
 */
void hwt_perf_reader_set_warn(struct hwt_perf_reader *reader, const struct hwt_warn_sink *sink);

/* Event attributes (file header, or HEADER_ATTR records read so far). */
size_t hwt_perf_attr_count(const struct hwt_perf_reader *reader);
const struct hwt_perf_attr *hwt_perf_attr_at(const struct hwt_perf_reader *reader, size_t i);
/* The attribute of the event with this id, or NULL. */
const struct hwt_perf_attr *hwt_perf_attr_find(const struct hwt_perf_reader *reader, uint64_t id);

/*
 * A feature section, raw: 0 and its bytes (valid while the reader lives),
 * or -hpf_no_feature when the file has none (or it was out of range).
 */
int hwt_perf_feature(const struct hwt_perf_reader *reader, unsigned feature,
		     const void **data, uint64_t *size);
/* A string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID), or NULL. */
const char *hwt_perf_feature_string(const struct hwt_perf_reader *reader, unsigned feature);
/* NRCPUS: 0, or -hpf_no_feature. */
int hwt_perf_feature_nrcpus(const struct hwt_perf_reader *reader, uint32_t *online,
			    uint32_t *available);
/* CMDLINE: the words (NULL-terminated, *argc of them), or NULL. */
const char *const *hwt_perf_feature_cmdline(const struct hwt_perf_reader *reader, size_t *argc);
/* Build-ids: of the feature section (file mode) or of the records read. */
size_t hwt_perf_build_id_count(const struct hwt_perf_reader *reader);
const struct hwt_perf_build_id *hwt_perf_build_id_at(const struct hwt_perf_reader *reader,
						     size_t i);

/* ----- Writing ---------------------------------------------------------- */

struct hwt_perf_writer;

/* Writer flags. */
#define HWT_PERF_WRITE_PIPE     0x1u /* pipe mode (header records, no seeks) */
#define HWT_PERF_WRITE_COMPRESS 0x2u /* records (not AUX data) zstd-compressed in
                                        COMPRESSED records, as perf record -z */

struct hwt_perf_writer *hwt_perf_writer_alloc(void);
/* Frees the writer; a file not closed with hwt_perf_writer_close stays as it is. */
void hwt_perf_writer_free(struct hwt_perf_writer *writer);

/*
 * Starts a file at path ("-": standard output, which implies pipe mode).
 * Then: attributes and features, then records, then hwt_perf_writer_close.
 * Returns 0, -hpf_io, -hpf_nomem, -hpf_invalid.
 */
int hwt_perf_writer_open(struct hwt_perf_writer *writer, const char *path, unsigned flags);

/*
 * Adds an event attribute with the ids of its events (copied). All
 * attributes must give the same sample_id layout (sample_type bits TID,
 * TIME, ID, STREAM_ID, CPU, IDENTIFIER), which the writer uses for the
 * trailers of the records it encodes. Before the first record.
 */
int hwt_perf_writer_add_attr(struct hwt_perf_writer *writer, const struct perf_event_attr *attr,
			     const uint64_t *ids, size_t nids);
/*
 * Sets a feature section (copied; set again to replace). Pipe mode writes
 * them as HEADER_FEATURE records before the first record, so set them
 * first; file mode writes them at close. HWT_PERF_FEAT_AUXTRACE is written
 * by the writer itself (file mode: the index of its AUXTRACE records).
 */
int hwt_perf_writer_feature(struct hwt_perf_writer *writer, unsigned feature, const void *data,
			    size_t size);
/* A string feature in perf's layout (length, NUL-padded string). */
int hwt_perf_writer_feature_string(struct hwt_perf_writer *writer, unsigned feature,
				   const char *value);
int hwt_perf_writer_feature_nrcpus(struct hwt_perf_writer *writer, uint32_t online,
				   uint32_t available);
int hwt_perf_writer_feature_cmdline(struct hwt_perf_writer *writer, size_t argc,
				    const char *const *argv);
/* Adds an entry to the HEADER_BUILD_ID feature (file mode) / record (pipe mode). */
int hwt_perf_writer_build_id(struct hwt_perf_writer *writer, int32_t pid, uint16_t misc,
			     const uint8_t *build_id, uint8_t size, const char *filename);
/* EVENT_DESC from the attributes added so far, with these names (one per attr). */
int hwt_perf_writer_feature_event_desc(struct hwt_perf_writer *writer, const char *const *names);

/*
 * Encodes record (its type, misc, the member of u for the type, and the
 * sample_id trailer from record->sample for kernel records when the
 * attributes have sample_id_all) and writes it. AUXTRACE writes the
 * record then u.auxtrace.data_size bytes of data (u.auxtrace.size must
 * equal it). Types the writer does not encode are written from
 * record->raw (record->size bytes). Returns 0, -hpf_invalid, -hpf_io,
 * -hpf_nomem.
 */
int hwt_perf_writer_write(struct hwt_perf_writer *writer, const struct hwt_perf_record *record);
/* Writes bytes as they are (a record someone else encoded; tests). */
int hwt_perf_writer_write_raw(struct hwt_perf_writer *writer, const void *bytes, size_t size);

/*
 * Finishes the file: file mode writes the attributes, the feature sections
 * and the header over the placeholder at the start. Closes the file (not
 * a descriptor given to open_fd). Returns 0 or a negative error.
 */
int hwt_perf_writer_close(struct hwt_perf_writer *writer);

#ifdef __cplusplus
}
#endif

#endif /* HWT_PERFDATA_H */
