/*
 * One ETMv4 stream: OpenCSD's ETMv4 instruction decoder (its C API) over
 * the unformatted trace of one thread, in the address space of its process
 * image as it was at each point in time, handed to a consumer in execution
 * order (hwt_flow.h): the ETMv4 counterpart of stream.c.
 *
 * OpenCSD walks the code itself, through a memory callback that reads the
 * files the current epoch maps, and hands back generic elements: an
 * instruction range (straight-line instructions ending at a branch, with
 * the branch's kind and whether it was taken: ETMv4 traces every branch,
 * so a range is already a block of hwt_flow.h), an exception (the thread
 * left user code: a system call, a signal), trace on (it came back), a
 * timestamp (the sideband clock: docs/bundle.md, "Clock"). Each distinct
 * range of the current address space becomes one block, found again by
 * {first instruction, instruction count} in a hash index; the kind of the
 * previous range's last instruction (and whether it was taken) is the kind
 * of the step into the next one.
 *
 * Errors come from OpenCSD's packet monitor, which sees every packet with
 * its offset: a bad or reserved packet, a packet cut by the end of the
 * stream. After one, OpenCSD waits for the next A-Sync: the bytes in
 * between are counted as skipped, and handed out as an error event. Code
 * that cannot be read (a missing or replaced file) stops the walk until
 * the next address packet.
 *
 * What every producer does alike (epochs, events, errors, stats) is the
 * flow producer's (flow_producer.c); this file keeps what is OpenCSD's.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include "etm_config.h"
#include "etm_packets.h"
#include "flow_producer.h"
#include "grow.h"
#include "hash_index.h"
/* Bytes handed to OpenCSD at once (progress between them). */
#define CHUNK (64 * 1024)

struct etm_ctx;

/* A decode tree of the pool below; ctx the stream it decodes, NULL when free. */
struct etm_tree {
	dcd_tree_handle_t tree;
	ocsd_etmv4_cfg cfg;
	struct etm_ctx *ctx;
	struct etm_tree *next;
};

struct etm_ctx {
	/* The flow, its epoch, what went wrong. p.enabled: in user code (not
	   after an exception); p.err.status: a negative ocsd_err_t, its
	   error waits for the A-Sync that resolves it. */
	struct hwt_flow_producer p;
	const struct hwt_opencsd *ocsd; /* loaded: etm_decode checks */
	const struct hwt_mapping *last_map; /* of the last memory read */
	struct etm_tree *pool;
	dcd_tree_handle_t tree;
	/* The blocks of the current epoch, by {vaddr, insns}. */
	const struct hwt_flow_block **known;
	size_t known_count, known_capacity;
	struct hwt_hash_index index;
	int last_taken;              /* p.last's final instruction was executed (taken) */
	int off;                     /* the trace went off (an exception): the next
	                                range says where it came back */
	int synced;                  /* an A-Sync was seen */
	uint64_t first_sync;         /* where the first one starts */
	int epoch_change;            /* a timestamp moved the epoch: re-add the memory callback */
	char err_what[256];          /* what p.err is */
};

static uint64_t file_offset(const struct hwt_mapping *m, uint64_t ip)
{
	return ip - m->start + m->pgoff;
}

static int readable(const struct hwt_mapping *m)
{
	return m && m->file->state == hwt_file_ok && m->pgoff < m->file->elf.size;
}

/* ----- Handing out ------------------------------------------------------ */

/* The class of a range's last instruction, as OpenCSD read it. */
static uint32_t exit_class(const ocsd_generic_trace_elem *e)
{
	switch (e->last_i_type) {
	case OCSD_INSTR_BR:
		if (e->last_instr_cond)
			return hwt_flow_exit_cond;
		return e->last_i_subtype == OCSD_S_INSTR_BR_LINK ? hwt_flow_exit_call
								 : hwt_flow_exit_jump;
	case OCSD_INSTR_BR_INDIRECT:
		if (e->last_i_subtype == OCSD_S_INSTR_BR_LINK)
			return hwt_flow_exit_indirect_call;
		if (e->last_i_subtype == OCSD_S_INSTR_V8_RET)
			return hwt_flow_exit_return;
		return e->last_i_subtype == OCSD_S_INSTR_V8_ERET ? hwt_flow_exit_far
								   : hwt_flow_exit_indirect_jump;
	default:
		/* Not a branch: cut short (unreadable code follows, an exception),
		   or a waypoint such as ISB. */
		return hwt_flow_exit_other;
	}
}

/* How a range at ip is entered from prev (taken: its last instruction was). */
static uint32_t entry_kind(const struct hwt_flow_block *prev, int taken, uint64_t ip)
{
	uint32_t kind = hwt_flow_exit_kind(prev->exit);

	if (kind != hwt_flow_kind_count)
		return kind;
	if (prev->exit == hwt_flow_exit_cond)
		return taken ? hwt_flow_cond_taken : hwt_flow_cond_not_taken;
	return ip == prev->vnext ? hwt_flow_next : hwt_flow_unknown;
}

static void bad_block(struct etm_ctx *s, uint64_t ip, uint32_t ninsn, const char *what)
{
	hwt_flow_producer_bad_block(&s->p, "range at 0x%" PRIx64 " (%" PRIu32 " instructions): %s",
				    ip, ninsn, what);
}

static uint64_t block_hash(uint64_t ip, uint32_t ninsn)
{
	return hwt_hash_mix(ip ^ (uint64_t)ninsn << 48);
}

/* The block of range e in the current epoch (made on first sight), or NULL. */
static const struct hwt_flow_block *block_of(struct etm_ctx *s, const ocsd_generic_trace_elem *e,
					     uint32_t ninsn, uint64_t end)
{
	uint64_t hash = block_hash(e->st_addr, ninsn);
	const struct hwt_flow_block **known;
	const struct hwt_mapping *m;
	struct hwt_flow_block *b;
	struct hwt_hash_probe probe;

	for (long k = hwt_hash_index_find(&s->index, hash, &probe); k >= 0;
	     k = hwt_hash_index_next(&s->index, &probe))
		if (s->known[k]->vaddr == e->st_addr && s->known[k]->insns == ninsn)
			return s->known[k];
	known = hwt_grow_array(s->known, &s->known_capacity, s->known_count + 1, sizeof(*known));
	if (!known)
		return NULL;
	s->known = known;
	b = hwt_flow_out_blocks(&s->p.out, 1);
	if (!b || hwt_hash_index_add(&s->index, hash, s->known_count) < 0)
		return NULL;
	m = hwt_epoch_find(&s->p.space->epochs[s->p.epoch], e->st_addr);
	*b = (struct hwt_flow_block){ .vaddr = e->st_addr, .vend = end, .vnext = e->en_addr,
				      .image = -1, .insns = ninsn, .exit = exit_class(e),
				      .id = s->p.out.block_count++ };
	if (!readable(m) || end >= m->end) {
		bad_block(s, e->st_addr, ninsn, !readable(m) ? "no readable mapping"
							      : "leaves its mapping");
		b->flags = HWT_FLOW_BLOCK_UNREADABLE;
	} else {
		b->offset = file_offset(m, e->st_addr);
		b->end_offset = file_offset(m, end);
		b->image = m->file->image;
		b->flags = m->file->trace_unit ? HWT_FLOW_BLOCK_TRACE_UNIT : 0;
	}
	s->known[s->known_count++] = b;
	return b;
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
		m = hwt_epoch_find(&s->p.space->epochs[s->p.epoch], address);
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
	s->ocsd->dt_remove_mem_acc(s->tree, 0, OCSD_MEM_SPACE_ANY);
	s->last_map = NULL;
	return s->ocsd->dt_add_callback_mem_acc(s->tree, 0, ~(ocsd_vaddr_t)0, OCSD_MEM_SPACE_ANY,
						read_code, s) == OCSD_OK ? 0 : -1;
}

/* Applies the records up to time: the blocks of the old epoch are not found
   again (those handed out stay valid; the flow goes on across). */
static void advance_epoch(struct etm_ctx *s, uint64_t time)
{
	if (!hwt_flow_producer_epoch(&s->p, time))
		return;
	hwt_hash_index_clear(&s->index);
	s->known_count = 0;
	s->epoch_change = 1;
}

/* ----- Errors ----------------------------------------------------------- */

/* The file to blame for code at ip that could not be read, or NULL. */
static struct hwt_file *blame(struct etm_ctx *s, uint64_t ip)
{
	const struct hwt_mapping *m = hwt_epoch_find(&s->p.space->epochs[s->p.epoch], ip);

	return m && !readable(m) ? m->file : NULL;
}

static void describe_ip(struct etm_ctx *s, uint64_t ip, char *out, size_t size)
{
	const struct hwt_mapping *m = hwt_epoch_find(&s->p.space->epochs[s->p.epoch], ip);

	if (!m)
		snprintf(out, size, "ip 0x%" PRIx64 ", no mapping there", ip);
	else
		snprintf(out, size, "ip 0x%" PRIx64 " in %s+0x%" PRIx64, ip,
			 m->file->path[0] ? m->file->path : "anonymous code", file_offset(m, ip));
}

/* An error at offset: reported once resolved (where decoding resumes, or the end). */
static void error_at(struct etm_ctx *s, uint64_t offset, int status, uint64_t ip,
		     struct hwt_file *file, const char *what)
{
	if (!hwt_flow_producer_error_at(&s->p, offset, status, ip, file))
		return;
	snprintf(s->err_what, sizeof(s->err_what), "%s", what);
	s->p.last = NULL;
}

static void error_resolved(struct etm_ctx *s, uint64_t resumed, int at_end)
{
	const struct hwt_flow_error *err = &s->p.err;
	int resolved = hwt_flow_producer_resolve(&s->p, resumed);
	char owner[300];

	if (resolved == hwt_flow_resolved_none)
		return;
	s->off = 0;
	if (resolved != hwt_flow_resolved_say)
		return;
	hwt_stream_owner(s->p.stream, s->p.space, owner, sizeof(owner));
	hwt_decode_diag(s->p.d, hwt_diag_stream, s->p.stream->path, (int64_t)err->offset,
			"decode error at offset 0x%" PRIx64 " (%s); %s %" PRIu64 " trace bytes skipped:"
			" trace of %s lost",
			err->offset, s->err_what,
			at_end ? "no A-Sync after it," : "resynced at the next A-Sync,", err->skipped,
			owner);
}

/* ----- OpenCSD's outputs ------------------------------------------------ */

static void range(struct etm_ctx *s, ocsd_trc_index_t index, const ocsd_generic_trace_elem *e)
{
	uint32_t ninsn = e->num_instr_range;
	uint64_t end = e->en_addr - e->last_instr_sz;
	const struct hwt_flow_block *b;
	uint32_t kind;

	if (!ninsn || e->en_addr <= e->st_addr)
		return;
	error_resolved(s, index, 0);
	b = block_of(s, e, ninsn, end);
	if (!b) {
		s->p.nomem = 1;
		return;
	}
	if (!s->p.started) {
		kind = hwt_flow_start;
		s->off = 0;
	} else if (s->off) {
		/* Back from an exception: where says how (hwt_flow_resume). */
		struct hwt_flow_event ev = { .type = hwt_flow_ev_enabled, .ip = e->st_addr };
		int k = hwt_flow_resume_on(&s->p.resume, e->st_addr);

		if (k < 0)
			s->p.nomem = 1;
		hwt_flow_out_event(&s->p.out, &ev);
		kind = k < 0 ? hwt_flow_enabled : (uint32_t)k;
		s->off = 0;
	} else if (s->p.last) {
		kind = entry_kind(s->p.last, s->last_taken, e->st_addr);
	} else {
		kind = s->p.next_kind;
	}
	hwt_flow_out_step(&s->p.out, b, kind);
	s->p.started = 1;
	s->p.last = b;
	s->last_taken = e->last_instr_exec;
	s->p.enabled = 1;
	s->p.blocks++;
	s->p.insns += ninsn;
}

/* The thread left user code (a system call, a signal, a fault). */
static void exception(struct etm_ctx *s, const ocsd_generic_trace_elem *e)
{
	struct hwt_flow_event ev = { .type = hwt_flow_ev_disabled };

	/* Where it would go on: the preferred return address. */
	if (e->elem_type == OCSD_GEN_TRC_ELEM_EXCEPTION && e->excep_ret_addr)
		ev.ip = e->en_addr;
	hwt_flow_resume_off(&s->p.resume, ev.ip);
	if (s->p.started)
		hwt_flow_producer_break(&s->p, &ev, hwt_flow_enabled);
	s->off = 1;
	s->p.enabled = 0;
}

/* A gap in the trace (after which the stacks start over, hwt_flow_start). */
static void gap(struct etm_ctx *s, const struct hwt_flow_event *ev)
{
	if (ev && s->p.started)
		hwt_flow_producer_break(&s->p, ev, hwt_flow_start);
	s->p.last = NULL;
	s->p.next_kind = hwt_flow_start;
	s->off = 0;
	hwt_flow_resume_reset(&s->p.resume);
}

static ocsd_datapath_resp_t element(const void *context, const ocsd_trc_index_t index,
				    const uint8_t chan, const ocsd_generic_trace_elem *e)
{
	struct etm_ctx *s = ((const struct etm_tree *)context)->ctx;
	struct hwt_flow_event ev = { 0 };
	char where[200];

	(void)chan;
	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		range(s, index, e);
		break;
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
	case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
		exception(s, e);
		break;
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
		if (e->trace_on_reason == TRACE_ON_OVERFLOW) {
			ev.type = hwt_flow_ev_overflow;
			ev.offset = index;
			gap(s, &ev);
		} else if (s->p.started && !s->off) {
			/* Back with nothing before to say it went: a filter, a restart. */
			hwt_flow_resume_off(&s->p.resume, 0);
			s->off = 1;
		}
		break;
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
		/* A gap: the next range does not follow the last one. (A context, as
		   at every sync point, does not break the flow.) */
		gap(s, NULL);
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		if (e->timestamp >= s->p.next_time)
			advance_epoch(s, e->timestamp);
		if (s->p.out.want_time)
			hwt_flow_producer_time(&s->p, e->timestamp);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
		describe_ip(s, e->st_addr, where, sizeof(where));
		error_at(s, index, -OCSD_ERR_MEM_NACC, e->st_addr, blame(s, e->st_addr), where);
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
		gap(s, NULL);
		break;
	default:
		break;
	}
	return s->p.nomem || s->epoch_change ? OCSD_RESP_WAIT : OCSD_RESP_CONT;
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
		hwt_flow_producer_overflow(&s->p, (int64_t)index);
		break;
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
		if (p->type == ETM4_PKT_I_BAD_SEQUENCE)
			error_at(s, index, -OCSD_ERR_BAD_PACKET_SEQ, 0, NULL,
				 "a packet with a bad byte sequence");
		else
			error_at(s, index, -OCSD_ERR_INVALID_PCKT_HDR, 0, NULL,
				 "a reserved packet header");
		break;
	case ETM4_PKT_I_INCOMPLETE_EOT:
		error_at(s, index, -OCSD_ERR_BAD_PACKET_SEQ, 0, NULL,
			 "the stream ends inside a packet: cut while recording?");
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
 * per thread decoding at a time and configuration. hwt_etm_ocsd_lock
 * (etm_packets.h) guards the list and the making of trees.
 */
static struct etm_tree *trees;

static struct etm_tree *tree_make(const struct hwt_opencsd *ocsd, const ocsd_etmv4_cfg *cfg)
{
	struct etm_tree *t = calloc(1, sizeof(*t));
	unsigned char csid = 0;

	if (!t)
		return NULL;
	t->cfg = *cfg;
	hwt_etm_ocsd_quiet();
	t->tree = ocsd->create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!t->tree ||
	    ocsd->dt_create_decoder(t->tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER,
				    &t->cfg, &csid) != OCSD_OK ||
	    ocsd->dt_set_gen_elem_outfn(t->tree, element, t) != OCSD_OK ||
	    ocsd->dt_attach_packet_callback(t->tree, csid, OCSD_C_API_CB_PKT_MON, (void *)packet,
					    t) != OCSD_OK) {
		if (t->tree)
			ocsd->destroy_dcd_tree(t->tree);
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

	hwt_etm_config(s->p.d->shared->bundle, &cfg);
	pthread_mutex_lock(&hwt_etm_ocsd_lock);
	for (t = trees; t && (t->ctx || memcmp(&t->cfg, &cfg, sizeof(cfg))); t = t->next)
		;
	if (!t && (t = tree_make(s->ocsd, &cfg)) != NULL) {
		t->next = trees;
		trees = t;
	}
	if (t)
		t->ctx = s;
	pthread_mutex_unlock(&hwt_etm_ocsd_lock);
	if (t)
		s->ocsd->dt_process_data(t->tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	return t;
}

static void tree_put(struct etm_ctx *s, struct etm_tree *t)
{
	s->ocsd->dt_remove_mem_acc(t->tree, 0, OCSD_MEM_SPACE_ANY);
	pthread_mutex_lock(&hwt_etm_ocsd_lock);
	t->ctx = NULL;
	pthread_mutex_unlock(&hwt_etm_ocsd_lock);
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
			s->ocsd->dt_process_data(s->tree, OCSD_OP_DATA, (ocsd_trc_index_t)at,
						 (uint32_t)n, buf + at, &used);

		while (!s->p.nomem && OCSD_DATA_RESP_IS_WAIT(resp)) {
			if (s->epoch_change) {
				s->epoch_change = 0;
				if (attach_memory(s) < 0)
					return -1;
			}
			resp = s->ocsd->dt_process_data(s->tree, OCSD_OP_FLUSH, 0, 0, NULL, NULL);
		}
		if (s->p.nomem)
			return -1;
		if (OCSD_DATA_RESP_IS_FATAL(resp)) {
			error_at(s, at + used, -OCSD_ERR_DATA_DECODE_FATAL, 0, NULL,
				 "the decoder could not go on");
			s->ocsd->dt_process_data(s->tree, OCSD_OP_RESET, (ocsd_trc_index_t)(at + used),
						 0, NULL, NULL);
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

/*
 * Offsets of packets of speculative trace (Commit, Cancel, Mispredict) in
 * a stream whose trace unit does not trace speculatively (TRCIDR8.MAXSPEC
 * 0, as the software unit and most cores say): damage, and OpenCSD 1.3's
 * decoder can crash on one (a Mispredict with no atom to take back). The
 * decoder is not given them: each is a decode error, as a bad packet is.
 */
struct speculation {
	uint64_t *at;
	size_t count, capacity;
	int nomem;
};

static void speculation_packet(void *context, uint64_t offset, const ocsd_etmv4_i_pkt *p)
{
	struct speculation *sp = context;

	switch (p->type) {
	case ETM4_PKT_I_COMMIT:
	case ETM4_PKT_I_CANCEL_F1:
	case ETM4_PKT_I_CANCEL_F1_MISPRED:
	case ETM4_PKT_I_MISPREDICT:
	case ETM4_PKT_I_CANCEL_F2:
	case ETM4_PKT_I_CANCEL_F3:
		break;
	default:
		return;
	}
	if (sp->count == sp->capacity) {
		size_t capacity = sp->capacity ? 2 * sp->capacity : 16;
		uint64_t *at = realloc(sp->at, capacity * sizeof(*at));

		if (!at) {
			sp->nomem = 1;
			return;
		}
		sp->at = at;
		sp->capacity = capacity;
	}
	sp->at[sp->count++] = offset;
}

/* Feeds buf[0, size) to the decoder, in chunks, leaving out speculation packets. */
static void feed_stream(struct etm_ctx *s, const uint8_t *buf, size_t size)
{
	struct speculation sp = { 0 };
	size_t at = 0, next = 0;

	if (!s->pool->cfg.reg_idr8 &&
	    (hwt_etm_packets(&s->pool->cfg, buf, size, speculation_packet, &sp) < 0 || sp.nomem)) {
		s->p.nomem = 1;
		goto out;
	}
	while (at < size && !s->p.nomem) {
		size_t n = size - at < CHUNK ? size - at : CHUNK;

		if (next < sp.count && sp.at[next] < at + n)
			n = (size_t)(sp.at[next] - at);
		if (n && feed(s, buf, at, n) < 0)
			s->p.nomem = 1;
		at += n;
		if (next < sp.count && sp.at[next] == at) {
			error_at(s, at, -OCSD_ERR_BAD_PACKET_SEQ, 0, NULL,
				 "a packet of speculative trace from a trace unit that does not "
				 "trace speculatively (TRCIDR8.MAXSPEC 0)");
			at++;
			s->ocsd->dt_process_data(s->tree, OCSD_OP_RESET, (ocsd_trc_index_t)at, 0, NULL,
						 NULL);
			next++;
		}
		hwt_decode_progress(s->p.d, s->p.d->done_bytes + at);
	}
out:
	free(sp.at);
}

/* A stream starts with an A-Sync: anything before the first one is lost. */
static void check_start(struct etm_ctx *s, size_t size)
{
	struct hwt_flow_producer *p = &s->p;
	uint64_t lost = s->synced ? s->first_sync : size;
	char owner[300];

	if (s->synced && !s->first_sync)
		return;
	hwt_flow_producer_count_error(p, lost);
	hwt_stream_owner(p->stream, p->space, owner, sizeof(owner));
	hwt_decode_diag(p->d, hwt_diag_stream, p->stream->path, 0,
			"%s: %" PRIu64 " trace bytes not decoded: trace of %s lost", s->synced ?
			"the stream does not start with an A-Sync" :
			"no A-Sync in the whole stream (not ETMv4 trace?)", lost, owner);
}

static int etm_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space)
{
	struct etm_ctx s = { 0 };
	size_t size;
	uint8_t *buf;
	int status;

	s.ocsd = hwt_opencsd();
	if (!s.ocsd) {
		hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
				"not decoded: ETMv4 trace needs OpenCSD (%s)", hwt_opencsd_error());
		return 0;
	}
	hwt_flow_producer_init(&s.p, d, stream, space);
	buf = hwt_flow_producer_map(&s.p, &size);
	if (!buf)
		return 0;
	hwt_space_check(d, space);
	s.pool = tree_get(&s);
	s.tree = s.pool ? s.pool->tree : NULL;
	if (!s.tree || attach_memory(&s) < 0 || hwt_flow_producer_begin(&s.p) < 0) {
		s.p.nomem = 1;
	} else {
		feed_stream(&s, buf, size);
		if (!s.p.nomem)
			s.ocsd->dt_process_data(s.tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
		error_resolved(&s, size, 1);
		check_start(&s, size);
		hwt_flow_producer_cut(&s.p, size, "the thread ran user code");
	}
	status = hwt_flow_producer_end(&s.p, "ranges");
	if (s.pool)
		tree_put(&s, s.pool);
	free(s.known);
	hwt_hash_index_free(&s.index);
	hwt_flow_producer_fini(&s.p);
	munmap(buf, size);
	return status;
}

const struct hwt_trace_decoder hwt_etm_decoder = {
	.name = "etmv4",
	.decode_stream = etm_decode,
};
