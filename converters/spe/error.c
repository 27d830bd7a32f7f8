#include "hwt_spe_profile.h"

const char *hwt_spe_profile_errstr(int code)
{
	switch (code < 0 ? -code : code) {
	case hspe_ok: return "success";
	case hspe_internal: return "internal error";
	case hspe_invalid: return "invalid argument";
	case hspe_nomem: return "out of memory";
	case hspe_io: return "input/output error";
	case hspe_no_spe: return "the bundle has no SPE records (hwt record --spe)";
	}
	return "unknown error";
}
