/* Listing the Intel PT packets of one stream with libipt's packet decoder. */
#include "hwt_dump.h"
#include "hwt_bundle.h"

#include <inttypes.h>
#include <string.h>

#include <intel-pt.h>

static const char *ipc_name(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed: return "suppressed";
	case pt_ipc_update_16:  return "update16";
	case pt_ipc_update_32:  return "update32";
	case pt_ipc_sext_48:    return "sext48";
	case pt_ipc_update_48:  return "update48";
	case pt_ipc_full:       return "full";
	}
	return "unknown";
}

/* Applies an IP packet to the last IP as a decoder does; 0 or -1 (no IP). */
static int last_ip_update(uint64_t *last_ip, const struct pt_packet_ip *ip)
{
	switch (ip->ipc) {
	case pt_ipc_suppressed:
		return -1;
	case pt_ipc_update_16:
		*last_ip = (*last_ip & ~0xffffull) | (ip->ip & 0xffffull);
		return 0;
	case pt_ipc_update_32:
		*last_ip = (*last_ip & ~0xffffffffull) | (ip->ip & 0xffffffffull);
		return 0;
	case pt_ipc_sext_48:
		*last_ip = ip->ip & 0xffffffffffffull;
		if (*last_ip & (1ull << 47))
			*last_ip |= 0xffff000000000000ull;
		return 0;
	case pt_ipc_update_48:
		*last_ip = (*last_ip & ~0xffffffffffffull) | (ip->ip & 0xffffffffffffull);
		return 0;
	case pt_ipc_full:
		*last_ip = ip->ip;
		return 0;
	}
	return -1;
}

static void print_ip(FILE *out, const char *name, const struct pt_packet_ip *ip,
		     uint64_t *last_ip)
{
	fprintf(out, "%s", name);
	if (last_ip_update(last_ip, ip) < 0) {
		fprintf(out, " ipc=%s", ipc_name(ip->ipc));
		return;
	}
	fprintf(out, " ip=0x%" PRIx64 " ipc=%s payload=0x%" PRIx64, *last_ip,
		ipc_name(ip->ipc), ip->ip);
}

static void print_tnt(FILE *out, const char *name, const struct pt_packet_tnt *tnt)
{
	uint8_t i;

	fprintf(out, "%s ", name);
	/* The oldest branch is the highest bit. */
	for (i = tnt->bit_size; i > 0; i--)
		fputc(tnt->payload & (1ull << (i - 1)) ? '!' : '.', out);
}

static void print_packet(FILE *out, const struct pt_packet *p, uint64_t *last_ip)
{
	switch (p->type) {
	case ppt_invalid:  fputs("invalid", out); break;
	case ppt_unknown:  fputs("unknown", out); break;
	case ppt_pad:      fputs("pad", out); break;
	case ppt_psb:      fputs("psb", out); *last_ip = 0; break;
	case ppt_psbend:   fputs("psbend", out); break;
	case ppt_stop:     fputs("stop", out); break;
	case ppt_ovf:      fputs("ovf", out); *last_ip = 0; break;
	case ppt_fup:      print_ip(out, "fup", &p->payload.ip, last_ip); break;
	case ppt_tip:      print_ip(out, "tip", &p->payload.ip, last_ip); break;
	case ppt_tip_pge:  print_ip(out, "tip.pge", &p->payload.ip, last_ip); break;
	case ppt_tip_pgd:  print_ip(out, "tip.pgd", &p->payload.ip, last_ip); break;
	case ppt_tnt_8:    print_tnt(out, "tnt.8", &p->payload.tnt); break;
	case ppt_tnt_64:   print_tnt(out, "tnt.64", &p->payload.tnt); break;
	case ppt_mode:
		if (p->payload.mode.leaf == pt_mol_exec) {
			const struct pt_packet_mode_exec *e = &p->payload.mode.bits.exec;
			enum pt_exec_mode mode = pt_get_exec_mode(e);

			fprintf(out, "mode.exec cs.l=%u cs.d=%u (%s)", e->csl, e->csd,
				mode == ptem_64bit ? "64-bit" : mode == ptem_32bit ? "32-bit"
				: mode == ptem_16bit ? "16-bit" : "invalid");
		} else if (p->payload.mode.leaf == pt_mol_tsx) {
			fprintf(out, "mode.tsx intx=%u abrt=%u", p->payload.mode.bits.tsx.intx,
				p->payload.mode.bits.tsx.abrt);
		} else {
			fprintf(out, "mode leaf=0x%x", (unsigned)p->payload.mode.leaf);
		}
		break;
	case ppt_pip:
		fprintf(out, "pip cr3=0x%" PRIx64 " nr=%u", p->payload.pip.cr3, p->payload.pip.nr);
		break;
	case ppt_vmcs:
		fprintf(out, "vmcs 0x%" PRIx64, p->payload.vmcs.base);
		break;
	case ppt_cbr:
		fprintf(out, "cbr 0x%x", p->payload.cbr.ratio);
		break;
	case ppt_tsc:
		fprintf(out, "tsc 0x%" PRIx64, p->payload.tsc.tsc);
		break;
	case ppt_tma:
		fprintf(out, "tma ctc=0x%x fc=0x%x", p->payload.tma.ctc, p->payload.tma.fc);
		break;
	case ppt_mtc:
		fprintf(out, "mtc 0x%x", p->payload.mtc.ctc);
		break;
	case ppt_cyc:
		fprintf(out, "cyc 0x%" PRIx64, p->payload.cyc.value);
		break;
	case ppt_mnt:
		fprintf(out, "mnt 0x%" PRIx64, p->payload.mnt.payload);
		break;
	case ppt_exstop:
		fprintf(out, "exstop ip=%u", p->payload.exstop.ip);
		break;
	case ppt_mwait:
		fprintf(out, "mwait hints=0x%" PRIx32 " ext=0x%" PRIx32, p->payload.mwait.hints,
			p->payload.mwait.ext);
		break;
	case ppt_pwre:
		fprintf(out, "pwre c-state=%u sub-state=%u hw=%u", p->payload.pwre.state,
			p->payload.pwre.sub_state, p->payload.pwre.hw);
		break;
	case ppt_pwrx:
		fprintf(out, "pwrx last=%u deepest=%u interrupt=%u store=%u autonomous=%u",
			p->payload.pwrx.last, p->payload.pwrx.deepest, p->payload.pwrx.interrupt,
			p->payload.pwrx.store, p->payload.pwrx.autonomous);
		break;
	case ppt_ptw:
		fprintf(out, "ptw payload=0x%" PRIx64 " plc=%u ip=%u", p->payload.ptw.payload,
			p->payload.ptw.plc, p->payload.ptw.ip);
		break;
	default:
		fprintf(out, "packet type %d", (int)p->type);
		break;
	}
}

/* Decodes the trace in [begin, begin+size). Returns the number of problems. */
int hwt_dump_packets(FILE *out, struct hwt_bundle *bundle, const char *path,
		     const uint8_t *begin, size_t size)
{
	struct pt_packet_decoder *decoder;
	struct pt_config config;
	uint64_t last_ip = 0, offset = 0, sync = 0, prev_sync;
	int problems = 0, status, error;

	pt_config_init(&config);
	config.begin = (uint8_t *)begin;
	config.end = (uint8_t *)begin + size;
	decoder = pt_pkt_alloc_decoder(&config);
	if (!decoder)
		return -1;

	status = pt_pkt_sync_forward(decoder);
	if (status < 0) {
		fprintf(out, "  no PSB in %zu bytes: nothing to decode\n", size);
		hwt_bundle_diag_add(bundle, hwt_diag_stream, path, 0,
				    "no PSB in its %zu bytes: the stream cannot be decoded", size);
		pt_pkt_free_decoder(decoder);
		return 1;
	}
	pt_pkt_get_sync_offset(decoder, &sync);
	if (sync > 0) {
		fprintf(out, "  0x%08" PRIx64 " skipped %" PRIu64 " bytes before the first PSB\n",
			(uint64_t)0, sync);
		hwt_bundle_diag_add(bundle, hwt_diag_stream, path, 0,
				    "%" PRIu64 " bytes before the first PSB were skipped", sync);
		problems++;
	}

	for (;;) {
		struct pt_packet packet;

		if (pt_pkt_get_offset(decoder, &offset) < 0)
			break;
		status = pt_pkt_next(decoder, &packet, sizeof(packet));
		if (status >= 0) {
			fprintf(out, "  0x%08" PRIx64 " ", offset);
			print_packet(out, &packet, &last_ip);
			fputc('\n', out);
			continue;
		}
		if (status == -pte_eos && offset >= size)
			break;
		problems++;
		if (status == -pte_eos) {
			fprintf(out, "  0x%08" PRIx64 " error: the stream ends inside a packet "
				"(%" PRIu64 " bytes left)\n", offset, (uint64_t)size - offset);
			hwt_bundle_diag_add(bundle, hwt_diag_stream, path, (int64_t)offset,
					    "the stream ends inside a packet at offset 0x%" PRIx64
					    " (%" PRIu64 " bytes left): truncated?",
					    offset, (uint64_t)size - offset);
			break;
		}
		fprintf(out, "  0x%08" PRIx64 " error: %s\n", offset,
			pt_errstr(pt_errcode(status)));
		error = status;
		prev_sync = sync;
		status = pt_pkt_sync_forward(decoder);
		if (status < 0 || pt_pkt_get_sync_offset(decoder, &sync) < 0 || sync <= prev_sync) {
			fprintf(out, "  0x%08" PRIx64 " no PSB after the error: %" PRIu64
				" bytes not decoded\n", offset, (uint64_t)size - offset);
			hwt_bundle_diag_add(bundle, hwt_diag_stream, path, (int64_t)offset,
					    "decode error at offset 0x%" PRIx64 " (%s); no PSB "
					    "after it, %" PRIu64 " bytes not decoded", offset,
					    pt_errstr(pt_errcode(error)), (uint64_t)size - offset);
			break;
		}
		fprintf(out, "  0x%08" PRIx64 " resync at the next PSB\n", sync);
		hwt_bundle_diag_add(bundle, hwt_diag_stream, path, (int64_t)offset,
				    "decode error at offset 0x%" PRIx64 " (%s); resynchronised "
				    "at the next PSB (0x%" PRIx64 ")", offset,
				    pt_errstr(pt_errcode(error)), sync);
		last_ip = 0;
	}
	pt_pkt_free_decoder(decoder);
	return problems;
}
