/*
 * One ETMv4 stream: OpenCSD's ETMv4 instruction decoder (its C API) over
 * the unformatted trace of one thread, in the address space of its process
 * image as it was at each point in time: the ETMv4 counterpart of
 * stream.c, into the same profile counts.
 *
 * OpenCSD walks the code itself, through a memory callback that reads the
 * files the current epoch maps, and hands back generic elements: an
 * instruction range (straight-line instructions ending at a branch, with
 * the branch's kind and whether it was taken), an exception (the thread
 * left user code: a system call, a signal), trace on (it came back), a
 * timestamp (the sideband clock: docs/bundle.md, "Clock"). A range is a
 * block of the profile, and the kind of its last instruction makes the
 * edge to the next range. The hot loop only counts, in a table keyed by
 * {the previous range's last instruction, the range, the edge kind}; the
 * table becomes profile counts when the address space changes and at the
 * end of the stream.
 *
 * Errors come from OpenCSD's packet monitor, which sees every packet with
 * its offset: a bad or reserved packet, a packet cut by the end of the
 * stream. After one, OpenCSD waits for the next A-Sync: the bytes in
 * between are counted as skipped. Code that cannot be read (a missing or
 * replaced file) stops the walk until the next address packet.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include "decode_int.h"
#include "etm_config.h"

/* Errors of one stream listed one by one; the rest are summed up. */
#define MAX_ERROR_MESSAGES 5
/* Bytes handed to OpenCSD at once (progress between them). */
#define CHUNK (64 * 1024)

struct count_entry {
	uint64_t prev;    /* last instruction of the range before, 0: none */
	uint64_t ip;      /* first instruction */
	uint64_t end;     /* last instruction */
	uint32_t ninsn;   /* 0: empty slot */
	uint32_t kind;    /* enum hwt_edge_kind from prev, when prev */
	uint64_t count;
};

struct etm_ctx;

/* A decode tree of the pool below; ctx the stream it decodes, NULL when free. */
struct etm_tree {
	dcd_tree_handle_t tree;
	ocsd_etmv4_cfg cfg;
	struct etm_ctx *ctx;
	struct etm_tree *next;
};

struct etm_ctx {
	struct hwt_decoder *d;
	const struct hwt_bundle_stream *stream;
	struct hwt_space *space;
	size_t epoch;
	uint64_t next_time;          /* of epoch + 1, UINT64_MAX when none */
	const struct hwt_mapping *last_map; /* of the last memory read */
	struct etm_tree *pool;
	dcd_tree_handle_t tree;
	struct count_entry *table;
	size_t mask, used;
	/* The range before: its last instruction and the kind of edge it leaves by. */
	uint64_t prev;
	uint32_t prev_kind;
	/* A transition that crossed an address space change. */
	int pending;
	uint64_t pending_prev;
	uint32_t pending_kind;
	size_t pending_epoch;
	int enabled;                 /* in user code (not after an exception) */
	int synced;                  /* an A-Sync was seen */
	uint64_t first_sync;         /* where the first one starts */
	int epoch_change;            /* a timestamp moved the epoch: re-add the memory callback */
	uint64_t blocks, insns;
	/* What went wrong. */
	int err_pending;             /* an error waits for the A-Sync that resolves it */
	uint64_t err_offset;
	char err_what[256];
	struct hwt_file *err_file;
	uint64_t errors, error_bytes, error_messages;
	uint64_t bad_blocks;
	char bad_example[160];
	int nomem;
};

/* ----- Counting --------------------------------------------------------- */

static size_t slot(uint64_t prev, uint64_t ip, uint32_t ninsn, uint32_t kind, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ prev * 0xc2b2ae3d27d4eb4full ^ ninsn ^
		     (uint64_t)kind << 40;

	h ^= h >> 29;
	return (size_t)h & mask;
}

static int grow(struct etm_ctx *s)
{
	size_t size = s->mask ? (s->mask + 1) * 2 : 4096;
	struct count_entry *table = calloc(size, sizeof(*table));

	if (!table)
		return -1;
	for (size_t k = 0; s->table && k <= s->mask; k++) {
		struct count_entry *e = &s->table[k];
		size_t i;

		if (!e->ninsn)
			continue;
		for (i = slot(e->prev, e->ip, e->ninsn, e->kind, size - 1); table[i].ninsn;
		     i = (i + 1) & (size - 1))
			;
		table[i] = *e;
	}
	free(s->table);
	s->table = table;
	s->mask = size - 1;
	return 0;
}

static void count(struct etm_ctx *s, uint64_t prev, uint32_t kind, uint64_t ip, uint64_t end,
		  uint32_t ninsn)
{
	size_t i = slot(prev, ip, ninsn, kind, s->mask);

	for (;; i = (i + 1) & s->mask) {
		struct count_entry *e = &s->table[i];

		if (e->ip == ip && e->prev == prev && e->ninsn == ninsn && e->kind == kind) {
			e->count++;
			return;
		}
		if (!e->ninsn)
			break;
	}
	s->table[i] = (struct count_entry){ prev, ip, end, ninsn, kind, 1 };
	if (++s->used * 2 > s->mask && grow(s) < 0)
		s->nomem = 1;
}

/* ----- Counts into the profile ------------------------------------------ */

static uint64_t file_offset(const struct hwt_mapping *m, uint64_t ip)
{
	return ip - m->start + m->pgoff;
}

static int readable(const struct hwt_mapping *m)
{
	return m && m->file->state == hwt_file_ok && m->pgoff < m->file->elf.size;
}

static void bad_block(struct etm_ctx *s, uint64_t ip, uint32_t ninsn, const char *what)
{
	if (!s->bad_blocks++)
		snprintf(s->bad_example, sizeof(s->bad_example),
			 "range at 0x%" PRIx64 " (%" PRIu32 " instructions): %s", ip, ninsn, what);
}

static void add_edge(struct etm_ctx *s, const struct hwt_epoch *from_epoch, uint64_t from_ip,
		     const struct hwt_epoch *to_epoch, uint64_t to_ip, uint32_t kind, uint64_t n)
{
	const struct hwt_mapping *from = hwt_epoch_find(from_epoch, from_ip);
	const struct hwt_mapping *to = hwt_epoch_find(to_epoch, to_ip);
	struct hwt_profile_edge e;

	if (!readable(from) || !readable(to) || from->file->trace_unit || to->file->trace_unit ||
	    from->file->image < 0 || to->file->image < 0)
		return;
	e.from_image = (uint32_t)from->file->image;
	e.to_image = (uint32_t)to->file->image;
	e.from = file_offset(from, from_ip);
	e.to = file_offset(to, to_ip);
	e.kind = kind;
	e.count = n;
	if (hwt_profile_add_edge(s->d->profile, &e) == -hpe_nomem)
		s->nomem = 1;
}

/* Moves the counts of the table (in the current epoch) into the profile. */
static void flush(struct etm_ctx *s)
{
	const struct hwt_epoch *epoch = &s->space->epochs[s->epoch];

	for (size_t k = 0; s->used && k <= s->mask; k++) {
		const struct count_entry *e = &s->table[k];
		const struct hwt_mapping *m;

		if (!e->ninsn)
			continue;
		m = hwt_epoch_find(epoch, e->ip);
		if (!readable(m) || e->end >= m->end) {
			bad_block(s, e->ip, e->ninsn, !readable(m) ? "no readable mapping"
								     : "leaves its mapping");
			continue;
		}
		if (!m->file->trace_unit && m->file->image >= 0 &&
		    hwt_profile_add_block(s->d->profile, (size_t)m->file->image,
					  file_offset(m, e->ip), file_offset(m, e->end), e->ninsn,
					  e->count) == -hpe_nomem)
			s->nomem = 1;
		if (e->prev)
			add_edge(s, epoch, e->prev, epoch, e->ip, e->kind, e->count);
	}
	if (s->used)
		memset(s->table, 0, (s->mask + 1) * sizeof(*s->table));
	s->used = 0;
}

/* ----- Address spaces --------------------------------------------------- */

/* OpenCSD's memory callback: bytes of the file the current epoch maps at address. */
static uint32_t read_code(const void *context, const ocsd_vaddr_t address,
			  const ocsd_mem_space_acc_t mem_space, const uint32_t req, uint8_t *buf)
{
	struct etm_ctx *s = (struct etm_ctx *)context;
	const struct hwt_mapping *m = s->last_map;
	uint64_t off, avail;

	(void)mem_space;
	if (!m || address < m->start || address >= m->end) {
		m = hwt_epoch_find(&s->space->epochs[s->epoch], address);
		s->last_map = m;
	}
	if (!readable(m))
		return 0;
	off = file_offset(m, address);
	if (off >= m->file->elf.size)
		return 0;
	avail = m->file->elf.size - off;
	if (avail > m->end - address)
		avail = m->end - address;
	if (avail > req)
		avail = req;
	memcpy(buf, m->file->elf.data + off, (size_t)avail);
	return (uint32_t)avail;
}

/* (Re)attaches the memory callback: OpenCSD drops what it read through the old one. */
static int attach_memory(struct etm_ctx *s)
{
	ocsd_dt_remove_mem_acc(s->tree, 0, OCSD_MEM_SPACE_ANY);
	s->last_map = NULL;
	return ocsd_dt_add_callback_mem_acc(s->tree, 0, ~(ocsd_vaddr_t)0, OCSD_MEM_SPACE_ANY,
					    read_code, s) == OCSD_OK ? 0 : -1;
}

/* Applies the records up to time: flushes the counts of the old epoch. */
static void advance_epoch(struct etm_ctx *s, uint64_t time)
{
	size_t e = s->epoch;

	while (e + 1 < s->space->count && s->space->epochs[e + 1].time <= time)
		e++;
	if (e == s->epoch)
		return;
	flush(s);
	if (s->prev) {
		s->pending = 1;
		s->pending_prev = s->prev;
		s->pending_kind = s->prev_kind;
		s->pending_epoch = s->epoch;
		s->prev = 0;
	}
	s->epoch = e;
	s->next_time = e + 1 < s->space->count ? s->space->epochs[e + 1].time : UINT64_MAX;
	s->epoch_change = 1;
}

/* ----- Errors ----------------------------------------------------------- */

/* The file to blame for code at ip that could not be read, or NULL. */
static struct hwt_file *blame(struct etm_ctx *s, uint64_t ip)
{
	const struct hwt_mapping *m = hwt_epoch_find(&s->space->epochs[s->epoch], ip);

	return m && !readable(m) ? m->file : NULL;
}

static void describe_ip(struct etm_ctx *s, uint64_t ip, char *out, size_t size)
{
	const struct hwt_mapping *m = hwt_epoch_find(&s->space->epochs[s->epoch], ip);

	if (!m)
		snprintf(out, size, "ip 0x%" PRIx64 ", no mapping there", ip);
	else
		snprintf(out, size, "ip 0x%" PRIx64 " in %s+0x%" PRIx64, ip,
			 m->file->path[0] ? m->file->path : "anonymous code", file_offset(m, ip));
}

/* An error at offset: reported once resolved (where decoding resumes, or the end). */
static void error_at(struct etm_ctx *s, uint64_t offset, struct hwt_file *file, const char *what)
{
	if (s->err_pending)
		return; /* the first error of a stretch is the one that counts */
	s->err_pending = 1;
	s->err_offset = offset;
	s->err_file = file;
	snprintf(s->err_what, sizeof(s->err_what), "%s", what);
	s->prev = 0;
}

static void error_resolved(struct etm_ctx *s, uint64_t resumed, int at_end)
{
	uint64_t skipped = resumed > s->err_offset ? resumed - s->err_offset : 0;

	if (!s->err_pending)
		return;
	s->err_pending = 0;
	s->errors++;
	s->error_bytes += skipped;
	s->d->stats.errors++;
	s->d->stats.error_bytes += skipped;
	if (s->err_file) {
		hwt_file_failed(s->d, s->err_file, s->stream, skipped);
		return; /* reported once per file at the end */
	}
	if (s->error_messages++ >= MAX_ERROR_MESSAGES)
		return;
	hwt_decode_diag(s->d, hwt_diag_stream, s->stream->path, (int64_t)s->err_offset,
			"decode error at offset 0x%" PRIx64 " (%s); %s %" PRIu64 " trace bytes skipped",
			s->err_offset, s->err_what,
			at_end ? "no A-Sync after it," : "resynced at the next A-Sync,", skipped);
}

/* ----- OpenCSD's outputs ------------------------------------------------ */

/* The edge a range leaves by, from OpenCSD's view of its last instruction. */
static uint32_t exit_kind(const ocsd_generic_trace_elem *e)
{
	switch (e->last_i_type) {
	case OCSD_INSTR_BR:
		if (e->last_instr_cond)
			return e->last_instr_exec ? hwt_edge_cond_taken : hwt_edge_cond_not_taken;
		return e->last_i_subtype == OCSD_S_INSTR_BR_LINK ? hwt_edge_call : hwt_edge_jump;
	case OCSD_INSTR_BR_INDIRECT:
		if (e->last_i_subtype == OCSD_S_INSTR_BR_LINK)
			return hwt_edge_indirect_call;
		if (e->last_i_subtype == OCSD_S_INSTR_V8_RET)
			return hwt_edge_return;
		return e->last_i_subtype == OCSD_S_INSTR_V8_ERET ? hwt_edge_far : hwt_edge_indirect_jump;
	default:
		/* Cut short (unreadable code follows, an exception): no transfer. */
		return hwt_edge_far;
	}
}

static void range(struct etm_ctx *s, ocsd_trc_index_t index, const ocsd_generic_trace_elem *e)
{
	uint32_t ninsn = e->num_instr_range;
	uint64_t end = e->en_addr - e->last_instr_sz;

	if (!ninsn || e->en_addr <= e->st_addr)
		return;
	error_resolved(s, index, 0);
	count(s, s->prev, s->prev ? s->prev_kind : 0, e->st_addr, end, ninsn);
	if (s->pending) {
		s->pending = 0;
		add_edge(s, &s->space->epochs[s->pending_epoch], s->pending_prev,
			 &s->space->epochs[s->epoch], e->st_addr, s->pending_kind, 1);
	}
	s->prev = end;
	s->prev_kind = exit_kind(e);
	/* A range that ends without a branch (unreadable code next) has no successor edge. */
	if (e->last_i_type != OCSD_INSTR_BR && e->last_i_type != OCSD_INSTR_BR_INDIRECT)
		s->prev = 0;
	s->enabled = 1;
	s->blocks++;
	s->insns += ninsn;
}

static ocsd_datapath_resp_t element(const void *context, const ocsd_trc_index_t index,
				    const uint8_t chan, const ocsd_generic_trace_elem *e)
{
	struct etm_ctx *s = ((const struct etm_tree *)context)->ctx;
	char where[200];

	(void)chan;
	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		range(s, index, e);
		break;
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
	case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
		/* The thread left user code (a system call, a signal): no edge across. */
		s->prev = 0;
		s->enabled = 0;
		break;
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
		/* A gap: the next range does not follow the last one. (A context, as
		   at every sync point, does not break the flow.) */
		s->prev = 0;
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		if (e->timestamp >= s->next_time)
			advance_epoch(s, e->timestamp);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
		describe_ip(s, e->st_addr, where, sizeof(where));
		error_at(s, index, blame(s, e->st_addr), where);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
		s->prev = 0;
		break;
	default:
		break;
	}
	return s->nomem || s->epoch_change ? OCSD_RESP_WAIT : OCSD_RESP_CONT;
}

/* Every packet, as the packet processor cut it: where errors are seen. */
static void packet(const void *context, const ocsd_datapath_op_t op, const ocsd_trc_index_t index,
		   const void *pkt, const uint32_t size, const uint8_t *data)
{
	struct etm_ctx *s = ((const struct etm_tree *)context)->ctx;
	const ocsd_etmv4_i_pkt *p = pkt;

	(void)size;
	(void)data;
	if (op != OCSD_OP_DATA || !p)
		return;
	switch (p->type) {
	case ETM4_PKT_I_ASYNC:
		if (!s->synced) {
			s->synced = 1;
			s->first_sync = index;
		}
		error_resolved(s, index, 0);
		break;
	case ETM4_PKT_I_OVERFLOW:
		s->d->stats.overflows++;
		hwt_decode_diag(s->d, hwt_diag_stream, s->stream->path, (int64_t)index,
				"trace overflow: the trace unit dropped trace, counts are low");
		break;
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
		error_at(s, index, NULL, p->type == ETM4_PKT_I_BAD_SEQUENCE ?
					 "a packet with a bad byte sequence" :
					 "a reserved packet header");
		break;
	case ETM4_PKT_I_INCOMPLETE_EOT:
		error_at(s, index, NULL, "the stream ends inside a packet: cut while recording?");
		break;
	default:
		break;
	}
}

/* ----- The stream ------------------------------------------------------- */

/*
 * OpenCSD decode trees, kept for the life of the process and reused from
 * stream to stream (reset in between): a tree is not cheap to make, and
 * OpenCSD 1.3.3's ocsd_destroy_dcd_tree leaks its element callback. One
 * per thread decoding at a time and configuration.
 */
static struct etm_tree *trees;
static pthread_mutex_t trees_lock = PTHREAD_MUTEX_INITIALIZER;

static struct etm_tree *tree_make(const ocsd_etmv4_cfg *cfg)
{
	struct etm_tree *t = calloc(1, sizeof(*t));
	unsigned char csid = 0;

	if (!t)
		return NULL;
	t->cfg = *cfg;
	t->tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!t->tree ||
	    ocsd_dt_create_decoder(t->tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER,
				   &t->cfg, &csid) != OCSD_OK ||
	    ocsd_dt_set_gen_elem_outfn(t->tree, element, t) != OCSD_OK ||
	    ocsd_dt_attach_packet_callback(t->tree, csid, OCSD_C_API_CB_PKT_MON, (void *)packet,
					   t) != OCSD_OK) {
		if (t->tree)
			ocsd_destroy_dcd_tree(t->tree);
		free(t);
		return NULL;
	}
	return t;
}

/* A free tree of the bundle's configuration, for s; NULL when out of memory. */
static struct etm_tree *tree_get(struct etm_ctx *s)
{
	ocsd_etmv4_cfg cfg;
	struct etm_tree *t;

	hwt_etm_config(s->d->bundle, &cfg);
	pthread_mutex_lock(&trees_lock);
	for (t = trees; t && (t->ctx || memcmp(&t->cfg, &cfg, sizeof(cfg))); t = t->next)
		;
	if (!t && (t = tree_make(&cfg)) != NULL) {
		t->next = trees;
		trees = t;
	}
	if (t)
		t->ctx = s;
	pthread_mutex_unlock(&trees_lock);
	if (t)
		ocsd_dt_process_data(t->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	return t;
}

static void tree_put(struct etm_tree *t)
{
	ocsd_dt_remove_mem_acc(t->tree, 0, OCSD_MEM_SPACE_ANY);
	pthread_mutex_lock(&trees_lock);
	t->ctx = NULL;
	pthread_mutex_unlock(&trees_lock);
}

/*
 * Feeds bytes to OpenCSD. A WAIT asks for a pause (the epoch moved: the
 * memory callback is attached again, then OpenCSD's pending output is
 * flushed); a fatal answer resets the decoder, which then looks for the
 * next A-Sync.
 */
static int feed(struct etm_ctx *s, const uint8_t *buf, size_t at, size_t n)
{
	while (n) {
		uint32_t used = 0;
		ocsd_datapath_resp_t resp =
			ocsd_dt_process_data(s->tree, OCSD_OP_DATA, (ocsd_trc_index_t)at,
					     (uint32_t)n, buf + at, &used);

		while (!s->nomem && OCSD_DATA_RESP_IS_WAIT(resp)) {
			if (s->epoch_change) {
				s->epoch_change = 0;
				if (attach_memory(s) < 0)
					return -1;
			}
			resp = ocsd_dt_process_data(s->tree, OCSD_OP_FLUSH, 0, 0, NULL, NULL);
		}
		if (s->nomem)
			return -1;
		if (OCSD_DATA_RESP_IS_FATAL(resp)) {
			error_at(s, at + used, NULL, "the decoder could not go on");
			ocsd_dt_process_data(s->tree, OCSD_OP_RESET, (ocsd_trc_index_t)(at + used), 0,
					     NULL, NULL);
			if (!used)
				used = 1; /* the byte it stopped at goes */
		}
		if (used > n)
			used = (uint32_t)n;
		at += used;
		n -= used;
	}
	return 0;
}

static int etm_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space)
{
	struct etm_ctx s = { 0 };
	size_t size, at;
	uint8_t *buf;

	s.d = d;
	s.stream = stream;
	s.space = space;
	s.next_time = space->count > 1 ? space->epochs[1].time : UINT64_MAX;
	buf = hwt_stream_map(stream->path, &size);
	if (!buf) {
		if (stream->size)
			hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
					"cannot read the stream: %s", strerror(errno));
		return 0;
	}
	d->stats.streams++;
	d->stats.trace_bytes += size;
	hwt_space_check(d, space);
	s.pool = tree_get(&s);
	s.tree = s.pool ? s.pool->tree : NULL;
	if (!s.tree || grow(&s) < 0 || attach_memory(&s) < 0) {
		s.nomem = 1;
		goto out;
	}
	for (at = 0; at < size && !s.nomem; at += CHUNK) {
		size_t n = size - at < CHUNK ? size - at : CHUNK;

		if (feed(&s, buf, at, n) < 0)
			s.nomem = 1;
		hwt_decode_progress(d, d->done_bytes + at + n);
	}
	if (!s.nomem)
		ocsd_dt_process_data(s.tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	error_resolved(&s, size, 1);
	/* A stream starts with an A-Sync: anything before the first one is lost. */
	if (!s.synced || s.first_sync) {
		uint64_t lost = s.synced ? s.first_sync : size;

		s.errors++;
		s.error_bytes += lost;
		d->stats.errors++;
		d->stats.error_bytes += lost;
		hwt_decode_diag(d, hwt_diag_stream, stream->path, 0,
				"%s: %" PRIu64 " trace bytes not decoded", s.synced ?
				"the stream does not start with an A-Sync" :
				"no A-Sync in the whole stream (not ETMv4 trace?)", lost);
	}
	if (s.enabled && !s.errors)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, (int64_t)size,
				"the trace ends at offset 0x%zx while the thread ran user code: the "
				"stream was cut (recorder killed?) or the thread was killed", size);
	flush(&s);
out:
	if (s.nomem)
		d->nomem = 1;
	d->stats.blocks += s.blocks;
	d->stats.insns += s.insns;
	if (s.error_messages > MAX_ERROR_MESSAGES)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
				"%" PRIu64 " more decode errors not listed (%" PRIu64
				" decode errors in all, %" PRIu64 " trace bytes skipped)",
				s.error_messages - MAX_ERROR_MESSAGES, s.errors, s.error_bytes);
	if (s.bad_blocks)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
				"%" PRIu64 " decoded ranges do not match the code in the image files "
				"and were not counted, e.g. %s", s.bad_blocks, s.bad_example);
	if (s.pool)
		tree_put(s.pool);
	free(s.table);
	munmap(buf, size);
	d->done_bytes += size;
	hwt_decode_progress(d, d->done_bytes);
	return s.nomem ? -hbe_nomem : 0;
}

const struct hwt_trace_decoder hwt_etm_decoder = {
	.name = "etmv4",
	.decode_stream = etm_decode,
};
