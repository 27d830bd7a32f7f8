/*
 * cs_etm's AUXTRACE_INFO words read and written (hwt_perf_cs_etm.h).
 */
#include "hwt_perf_cs_etm.h"
#include "hwt_perfdata.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hwt_perf_cs_etm_kind_name(enum hwt_cs_etm_kind kind)
{
	switch (kind) {
	case HWT_CS_ETMV3: return "ETMv3";
	case HWT_CS_ETMV4: return "ETMv4";
	case HWT_CS_ETE:   return "ETE";
	}
	return "unknown";
}

void hwt_perf_cs_etm_info_free(struct hwt_perf_cs_etm_info *info)
{
	free(info->cpus);
	info->cpus = NULL;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *error, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (error && size) {
		va_start(ap, fmt);
		vsnprintf(error, size, fmt, ap);
		va_end(ap);
	}
	return -hpf_bad_record;
}

/* The registers of one block, in the order of its kind. */
static void take_regs(struct hwt_perf_cs_etm_cpu *c, const uint64_t *r, size_t n)
{
	uint64_t *v4[] = { &c->trcconfigr, &c->trctraceidr, &c->trcidr0, &c->trcidr1,
			   &c->trcidr2, &c->trcidr8, &c->trcauthstatus, &c->ts_source };
	uint64_t *ete[] = { &c->trcconfigr, &c->trctraceidr, &c->trcidr0, &c->trcidr1,
			    &c->trcidr2, &c->trcidr8, &c->trcauthstatus, &c->trcdevarch,
			    &c->ts_source };
	uint64_t *v3[] = { &c->etmcr, &c->etmtraceidr, &c->etmccer, &c->etmidr };
	uint64_t **order = c->kind == HWT_CS_ETMV3 ? v3 : c->kind == HWT_CS_ETE ? ete : v4;
	size_t max = c->kind == HWT_CS_ETMV3 ? 4 : c->kind == HWT_CS_ETE ? 9 : 8;

	c->ts_source = UINT64_MAX;
	for (size_t i = 0; i < n && i < max; i++)
		*order[i] = r[i];
}

int hwt_perf_cs_etm_parse(const uint64_t *priv, size_t npriv, struct hwt_perf_cs_etm_info *info,
			  char *error, size_t error_size)
{
	size_t at = HWT_CS_ETM_HDR_WORDS;

	memset(info, 0, sizeof(*info));
	if (npriv < HWT_CS_ETM_HDR_WORDS)
		return bad(error, error_size, "cs_etm AUXTRACE_INFO of %zu words: its header "
			   "needs %u", npriv, HWT_CS_ETM_HDR_WORDS);
	info->version = priv[HWT_CS_ETM_HDR_VERSION];
	if (info->version > HWT_CS_ETM_VERSION_MAX)
		return bad(error, error_size, "cs_etm AUXTRACE_INFO version %" PRIu64
			   " (versions 0 to %u are known)", info->version, HWT_CS_ETM_VERSION_MAX);
	info->ncpus = (uint32_t)priv[HWT_CS_ETM_HDR_PMU_TYPE_CPUS];
	info->pmu_type = (uint32_t)(priv[HWT_CS_ETM_HDR_PMU_TYPE_CPUS] >> 32);
	info->snapshot = priv[HWT_CS_ETM_HDR_SNAPSHOT];
	if (!info->ncpus)
		return bad(error, error_size, "cs_etm AUXTRACE_INFO names no CPU");
	/* Each CPU takes 3 words at least: no more CPUs than that. */
	if (info->ncpus > (npriv - at) / 3)
		return bad(error, error_size, "cs_etm AUXTRACE_INFO names %" PRIu32
			   " CPUs in %zu words", info->ncpus, npriv);
	info->cpus = calloc(info->ncpus, sizeof(*info->cpus));
	if (!info->cpus)
		return -hpf_nomem;
	for (uint32_t i = 0; i < info->ncpus; i++) {
		struct hwt_perf_cs_etm_cpu *c = &info->cpus[i];
		uint64_t magic;
		size_t n;

		if (npriv - at < 2)
			goto cut;
		magic = priv[at];
		if (magic == HWT_CS_ETMV3_MAGIC)
			c->kind = HWT_CS_ETMV3;
		else if (magic == HWT_CS_ETMV4_MAGIC)
			c->kind = HWT_CS_ETMV4;
		else if (magic == HWT_CS_ETE_MAGIC && info->version > 0)
			c->kind = HWT_CS_ETE;
		else {
			hwt_perf_cs_etm_info_free(info);
			return bad(error, error_size, "cs_etm AUXTRACE_INFO: CPU block %" PRIu32
				   " at word %zu has the magic number %#" PRIx64 ", not ETMv3, "
				   "ETMv4 or ETE%s", i, at, magic,
				   magic == HWT_CS_ETE_MAGIC ? " (ETE needs version 1)" : "");
		}
		c->cpu = priv[at + 1];
		if (info->version == 0) {
			n = c->kind == HWT_CS_ETMV3 ? HWT_CS_ETMV3_REGS_V0 : HWT_CS_ETMV4_REGS_V0;
			at += 2;
		} else {
			if (npriv - at < 3)
				goto cut;
			n = priv[at + 2] > SIZE_MAX / 8 ? SIZE_MAX / 8 : (size_t)priv[at + 2];
			at += 3;
		}
		if (n > npriv - at)
			goto cut;
		/* Too few for the decoder: TRCIDR0 to TRCIDR8 are needed. */
		if (n < (c->kind == HWT_CS_ETMV3 ? 4u : 6u)) {
			enum hwt_cs_etm_kind kind = c->kind;
			uint64_t cpu = c->cpu;

			hwt_perf_cs_etm_info_free(info);
			return bad(error, error_size, "cs_etm AUXTRACE_INFO: the %s block of CPU %"
				   PRIu64 " has %zu registers, fewer than the decoder needs",
				   hwt_perf_cs_etm_kind_name(kind), cpu, n);
		}
		c->nregs = n;
		take_regs(c, priv + at, n);
		at += n;
		continue;
cut:
		hwt_perf_cs_etm_info_free(info);
		return bad(error, error_size, "cs_etm AUXTRACE_INFO ends inside the block of "
			   "CPU %" PRIu32 " (of %" PRIu32 ", %zu words)", i, info->ncpus, npriv);
	}
	return 0;
}

int hwt_perf_cs_etm_build(const struct hwt_perf_cs_etm_info *info, uint64_t **priv,
			  size_t *npriv)
{
	size_t n = HWT_CS_ETM_HDR_WORDS, at;
	uint64_t *p;

	if (!info || info->version > 1 || !info->ncpus || !info->cpus)
		return -hpf_invalid;
	for (uint32_t i = 0; i < info->ncpus; i++) {
		const struct hwt_perf_cs_etm_cpu *c = &info->cpus[i];

		if (c->kind == HWT_CS_ETE && info->version == 0)
			return -hpf_invalid;
		if (info->version == 0)
			n += 2 + (c->kind == HWT_CS_ETMV3 ? HWT_CS_ETMV3_REGS_V0 : HWT_CS_ETMV4_REGS_V0);
		else
			n += 3 + (c->kind == HWT_CS_ETMV3 ? HWT_CS_ETMV3_REGS_V0 :
				  c->kind == HWT_CS_ETE ? HWT_CS_ETE_REGS : HWT_CS_ETMV4_REGS) +
			     (c->kind != HWT_CS_ETMV3 && c->ts_source != UINT64_MAX);
	}
	p = calloc(n, sizeof(*p));
	if (!p)
		return -hpf_nomem;
	p[HWT_CS_ETM_HDR_VERSION] = info->version;
	p[HWT_CS_ETM_HDR_PMU_TYPE_CPUS] = (uint64_t)info->pmu_type << 32 | info->ncpus;
	p[HWT_CS_ETM_HDR_SNAPSHOT] = info->snapshot;
	at = HWT_CS_ETM_HDR_WORDS;
	for (uint32_t i = 0; i < info->ncpus; i++) {
		const struct hwt_perf_cs_etm_cpu *c = &info->cpus[i];
		uint64_t v4[] = { c->trcconfigr, c->trctraceidr, c->trcidr0, c->trcidr1,
				  c->trcidr2, c->trcidr8, c->trcauthstatus, c->ts_source };
		uint64_t ete[] = { c->trcconfigr, c->trctraceidr, c->trcidr0, c->trcidr1,
				   c->trcidr2, c->trcidr8, c->trcauthstatus, c->trcdevarch,
				   c->ts_source };
		uint64_t v3[] = { c->etmcr, c->etmtraceidr, c->etmccer, c->etmidr };
		const uint64_t *r = c->kind == HWT_CS_ETMV3 ? v3 : c->kind == HWT_CS_ETE ? ete : v4;
		size_t nr = c->kind == HWT_CS_ETMV3 ? HWT_CS_ETMV3_REGS_V0 :
			    info->version == 0 ? HWT_CS_ETMV4_REGS_V0 :
			    (c->kind == HWT_CS_ETE ? HWT_CS_ETE_REGS : HWT_CS_ETMV4_REGS) +
			    (c->kind != HWT_CS_ETMV3 && c->ts_source != UINT64_MAX);

		p[at++] = c->kind == HWT_CS_ETMV3 ? HWT_CS_ETMV3_MAGIC :
			  c->kind == HWT_CS_ETE ? HWT_CS_ETE_MAGIC : HWT_CS_ETMV4_MAGIC;
		p[at++] = c->cpu;
		if (info->version > 0)
			p[at++] = nr;
		memcpy(p + at, r, nr * sizeof(*r));
		at += nr;
	}
	*priv = p;
	*npriv = n;
	return 0;
}
