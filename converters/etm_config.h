/*
 * The ETMv4 trace unit of a bundle as OpenCSD wants it: the ID and
 * configuration registers the bundle header names (etm_trcidr0=...,
 * docs/bundle.md), else those of hwt's software unit (common/etm4_encoder.h).
 * For the converters that read ETMv4 streams (the decoder, hwt dump).
 */
#ifndef HWT_ETM_CONFIG_H
#define HWT_ETM_CONFIG_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm4_encoder.h"
#include "hwt_bundle.h"

/* Register name (trcidr0, ...): the header's etm_<name> when it parses, else dflt. */
static inline uint32_t hwt_etm_register(const struct hwt_bundle *bundle, const char *name,
					uint32_t dflt)
{
	char key[40];
	const char *v;
	char *end;
	unsigned long long x;

	snprintf(key, sizeof(key), "etm_%s", name);
	v = hwt_bundle_key(bundle, key);
	if (!v)
		return dflt;
	errno = 0;
	x = strtoull(v, &end, 0);
	return errno || *end || end == v || x > UINT32_MAX ? dflt : (uint32_t)x;
}

/* An ARMv8-A ETMv4 with the bundle's registers. */
static inline void hwt_etm_config(const struct hwt_bundle *bundle, ocsd_etmv4_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->reg_idr0 = hwt_etm_register(bundle, "trcidr0", HWT_ETM4_TRCIDR0);
	cfg->reg_idr1 = hwt_etm_register(bundle, "trcidr1", HWT_ETM4_TRCIDR1);
	cfg->reg_idr2 = hwt_etm_register(bundle, "trcidr2", HWT_ETM4_TRCIDR2);
	cfg->reg_idr8 = hwt_etm_register(bundle, "trcidr8", HWT_ETM4_TRCIDR8);
	cfg->reg_configr = hwt_etm_register(bundle, "trcconfigr", HWT_ETM4_TRCCONFIGR);
	cfg->reg_traceidr = 0x10;
	cfg->arch_ver = ARCH_V8;
	cfg->core_prof = profile_CortexA;
}

#endif /* HWT_ETM_CONFIG_H */
