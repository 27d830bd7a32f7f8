/*
 * cs_etm's AUXTRACE_INFO words (perfdata/cs_etm.c) on hand-made layouts:
 * perf's header versions 0, 1 and 2, ETMv3, ETMv4 and ETE blocks by their
 * magic numbers and register counts (version 0's fixed 4 and 7; perf 6.1's
 * 7 and 8; later perf's 8 and 9 with TS_SOURCE; a future perf's extra
 * registers skipped by the count), and every way a record can be wrong.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_perf_cs_etm.h"
#include "hwt_perfdata.h"
#include "unit_check.h"

#define V4 HWT_CS_ETMV4_MAGIC
#define ETE HWT_CS_ETE_MAGIC
#define V3 HWT_CS_ETMV3_MAGIC
#define HDR(version, ncpus) (version), ((uint64_t)9 << 32 | (ncpus)), 0

static int parse(const uint64_t *w, size_t n, struct hwt_perf_cs_etm_info *info, char *error)
{
	return hwt_perf_cs_etm_parse(w, n, info, error, 256);
}

int main(void)
{
	struct hwt_perf_cs_etm_info info;
	char error[256];
	uint64_t *built;
	size_t nbuilt;

	/* Version 0: magic, CPU, 7 ETMv4 registers; an ETMv3 block of 4. */
	{
		const uint64_t w[] = { HDR(0, 2), V4, 3, 0x840, 0x10, 0x28000ea1, 0x4100f400, 0x488,
				       0, 0xcc, V3, 5, 0x1, 0x12, 0x3, 0x4 };

		CHECK(parse(w, sizeof(w) / 8, &info, error) == 0);
		CHECK(info.version == 0 && info.pmu_type == 9 && info.ncpus == 2);
		CHECK(info.cpus[0].kind == HWT_CS_ETMV4 && info.cpus[0].cpu == 3);
		CHECK(info.cpus[0].trcconfigr == 0x840 && info.cpus[0].trctraceidr == 0x10);
		CHECK(info.cpus[0].trcidr0 == 0x28000ea1 && info.cpus[0].trcidr1 == 0x4100f400);
		CHECK(info.cpus[0].trcidr2 == 0x488 && info.cpus[0].trcauthstatus == 0xcc);
		CHECK(info.cpus[0].nregs == 7 && info.cpus[0].ts_source == UINT64_MAX);
		CHECK(info.cpus[1].kind == HWT_CS_ETMV3 && info.cpus[1].etmtraceidr == 0x12 &&
		      info.cpus[1].etmidr == 0x4);
		/* Built again in version 0: the same words. */
		CHECK(hwt_perf_cs_etm_build(&info, &built, &nbuilt) == 0);
		CHECK(nbuilt == sizeof(w) / 8 && !memcmp(built, w, sizeof(w)));
		free(built);
		hwt_perf_cs_etm_info_free(&info);
	}
	/* Version 1: perf 6.1's ETMv4 (7) and ETE (8), later perf's with TS_SOURCE,
	   and a block of a future perf with two registers more (skipped). */
	{
		const uint64_t w[] = { HDR(1, 4),
				       V4, 0, 7, 1, 0x10, 2, 3, 4, 5, 6,
				       ETE, 1, 8, 1, 0x12, 2, 3, 4, 5, 6, 0x47705a13,
				       V4, 2, 8, 1, 0x14, 2, 3, 4, 5, 6, 1,
				       ETE, 3, 11, 1, 0x16, 2, 3, 4, 5, 6, 0x47705a13, 0, 77, 78 };

		CHECK(parse(w, sizeof(w) / 8, &info, error) == 0);
		CHECK(info.ncpus == 4);
		CHECK(info.cpus[0].kind == HWT_CS_ETMV4 && info.cpus[0].nregs == 7);
		CHECK(info.cpus[1].kind == HWT_CS_ETE && info.cpus[1].trcdevarch == 0x47705a13 &&
		      info.cpus[1].ts_source == UINT64_MAX);
		CHECK(info.cpus[2].ts_source == 1 && info.cpus[2].trctraceidr == 0x14);
		CHECK(info.cpus[3].kind == HWT_CS_ETE && info.cpus[3].nregs == 11 &&
		      info.cpus[3].ts_source == 0 && info.cpus[3].trctraceidr == 0x16);
		/* Built again: the same words but the two extra registers (and the
		   count that named them). */
		CHECK(hwt_perf_cs_etm_build(&info, &built, &nbuilt) == 0);
		CHECK(nbuilt == sizeof(w) / 8 - 2 && !memcmp(built, w, 37 * 8));
		CHECK(built[37] == 9 && !memcmp(built + 38, w + 38, 9 * 8));
		free(built);
		hwt_perf_cs_etm_info_free(&info);
	}
	/* Version 2 reads as 1. */
	{
		const uint64_t w[] = { HDR(2, 1), V4, 0, 7, 1, 0, 2, 3, 4, 5, 6 };

		CHECK(parse(w, sizeof(w) / 8, &info, error) == 0 && info.version == 2);
		hwt_perf_cs_etm_info_free(&info);
	}
	/* Damage, each refused with what is wrong. */
	{
		const uint64_t v3[] = { HDR(3, 1), V4, 0, 7, 1, 0, 2, 3, 4, 5, 6 };
		const uint64_t magic[] = { HDR(1, 1), 0x4141414141414141ull, 0, 7, 1, 0, 2, 3, 4, 5, 6 };
		const uint64_t ete0[] = { HDR(0, 1), ETE, 0, 1, 0, 2, 3, 4, 5, 6, 7 };
		const uint64_t few[] = { HDR(1, 1), V4, 0, 5, 1, 0, 2, 3, 4 };
		const uint64_t cut[] = { HDR(1, 2), V4, 0, 7, 1, 0, 2, 3, 4, 5, 6, V4, 1, 7, 1 };
		const uint64_t huge[] = { HDR(1, 1), V4, 0, UINT64_MAX, 1, 0, 2, 3, 4, 5, 6 };
		const uint64_t none[] = { HDR(1, 0) };
		const uint64_t cpus[] = { HDR(1, 100), V4, 0, 7, 1, 0, 2, 3, 4, 5, 6 };

		CHECK(parse(v3, 2, &info, error) == -hpf_bad_record && strstr(error, "header"));
		CHECK(parse(v3, sizeof(v3) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "version 3"));
		CHECK(parse(magic, sizeof(magic) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "magic number 0x4141414141414141"));
		CHECK(parse(ete0, sizeof(ete0) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "ETE needs version 1"));
		CHECK(parse(few, sizeof(few) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "5 registers, fewer than the decoder needs"));
		CHECK(parse(cut, sizeof(cut) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "ends inside the block of CPU 1"));
		CHECK(parse(huge, sizeof(huge) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "ends inside"));
		CHECK(parse(none, sizeof(none) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "names no CPU"));
		CHECK(parse(cpus, sizeof(cpus) / 8, &info, error) == -hpf_bad_record &&
		      strstr(error, "100 CPUs in 13 words"));
		/* Every cut of a good record is refused or read, never read past. */
		for (size_t n = 0; n < sizeof(cut) / 8; n++) {
			int err = parse(cut, n, &info, error);

			CHECK(err == -hpf_bad_record || err == 0);
			if (!err)
				hwt_perf_cs_etm_info_free(&info);
		}
	}
	/* The writer refuses what it cannot write. */
	{
		struct hwt_perf_cs_etm_cpu c = { .kind = HWT_CS_ETE, .ts_source = UINT64_MAX };
		struct hwt_perf_cs_etm_info bad = { .version = 0, .ncpus = 1, .cpus = &c };

		CHECK(hwt_perf_cs_etm_build(&bad, &built, &nbuilt) == -hpf_invalid);
		bad.version = 2;
		CHECK(hwt_perf_cs_etm_build(&bad, &built, &nbuilt) == -hpf_invalid);
	}
	CHECK(!strcmp(hwt_perf_cs_etm_kind_name(HWT_CS_ETE), "ETE"));
	return unit_exit("cs_etm_info_unit");
}
