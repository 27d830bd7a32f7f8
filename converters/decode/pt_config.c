/*
 * The libipt configuration a bundle's header names (docs/bundle.md): for a
 * recording of hardware (hwt import of perf.data) the CPU (pt_cpu, perf's
 * "GenuineIntel,FAMILY,MODEL,STEPPING": libipt applies that CPU's errata),
 * the MTC frequency (pt_mtc_freq), the TSC:CTC ratio (pt_tsc_ctc, CPUID
 * 0x15 EBX/EAX) and the nominal frequency (pt_nom_freq), which libipt needs
 * to turn MTC and CYC packets into time. The software units write none of
 * them: libipt's defaults then. Return compression needs no key: libipt
 * follows compressed returns whenever the trace has them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "decode_int.h"

void hwt_decode_shared_pt_config(struct hwt_decode_shared *s, const struct hwt_bundle *bundle)
{
	const char *cpu = hwt_bundle_key(bundle, "pt_cpu");
	const char *mtc = hwt_bundle_key(bundle, "pt_mtc_freq");
	const char *nom = hwt_bundle_key(bundle, "pt_nom_freq");
	const char *ctc = hwt_bundle_key(bundle, "pt_tsc_ctc");
	const char *kernel = hwt_bundle_key(bundle, "pt_streams_kernel");
	unsigned family, model, stepping, v;
	uint32_t n, dd;
	char vendor[32];

	pt_config_init(&s->pt);
	s->pt_kernel = kernel && !strcmp(kernel, "1");
	s->pt_async_resume = s->pt_kernel ||
			     (hwt_bundle_key(bundle, "pt_kernel") &&
			      !strcmp(hwt_bundle_key(bundle, "pt_kernel"), "1"));
	if (cpu && sscanf(cpu, "%31[^,],%u,%u,%u", vendor, &family, &model, &stepping) == 4 &&
	    !strcmp(vendor, "GenuineIntel") && family <= 0xffff && model <= 0xff &&
	    stepping <= 0xff) {
		s->pt.cpu.vendor = pcv_intel;
		s->pt.cpu.family = (uint16_t)family;
		s->pt.cpu.model = (uint8_t)model;
		s->pt.cpu.stepping = (uint8_t)stepping;
		pt_cpu_errata(&s->pt.errata, &s->pt.cpu);
	}
	if (mtc && sscanf(mtc, "%u", &v) == 1 && v < 16)
		s->pt.mtc_freq = (uint8_t)v;
	if (nom && sscanf(nom, "%u", &v) == 1 && v <= 0xff)
		s->pt.nom_freq = (uint8_t)v;
	if (ctc && sscanf(ctc, "%" SCNu32 "/%" SCNu32, &n, &dd) == 2 && n && dd) {
		s->pt.cpuid_0x15_ebx = n;
		s->pt.cpuid_0x15_eax = dd;
	}
}
