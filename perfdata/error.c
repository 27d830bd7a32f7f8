/* Error codes of the perf.data library and the names of record types. */
#include "hwt_opencsd.h"
#include "hwt_perfdata.h"

const char *hwt_perf_errstr(int code)
{
	if (code < 0)
		code = -code;

	switch ((enum hwt_perf_error)code) {
	case hpf_ok:          return "success";
	case hpf_internal:    return "internal error";
	case hpf_invalid:     return "invalid argument";
	case hpf_nomem:       return "out of memory";
	case hpf_io:          return "input/output error";
	case hpf_magic:       return "not a perf.data file (no PERFILE2 magic)";
	case hpf_endian:      return "a perf.data file of the other byte order (not supported)";
	case hpf_bad_header:  return "bad perf.data header";
	case hpf_truncated:   return "the file ends inside a record";
	case hpf_bad_record:  return "bad record";
	case hpf_compressed:  return "compressed records do not decompress";
	case hpf_eos:         return "end of records";
	case hpf_no_feature:  return "no such feature section";
	case hpf_opencsd:     return "OpenCSD (" HWT_OPENCSD_LIBRARY ") cannot be loaded";
	}
	return "unknown error";
}

const char *hwt_perf_record_name(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:                   return "MMAP";
	case PERF_RECORD_LOST:                   return "LOST";
	case PERF_RECORD_COMM:                   return "COMM";
	case PERF_RECORD_EXIT:                   return "EXIT";
	case PERF_RECORD_THROTTLE:               return "THROTTLE";
	case PERF_RECORD_UNTHROTTLE:             return "UNTHROTTLE";
	case PERF_RECORD_FORK:                   return "FORK";
	case PERF_RECORD_READ:                   return "READ";
	case PERF_RECORD_SAMPLE:                 return "SAMPLE";
	case PERF_RECORD_MMAP2:                  return "MMAP2";
	case PERF_RECORD_AUX:                    return "AUX";
	case PERF_RECORD_ITRACE_START:           return "ITRACE_START";
	case PERF_RECORD_LOST_SAMPLES:           return "LOST_SAMPLES";
	case PERF_RECORD_SWITCH:                 return "SWITCH";
	case PERF_RECORD_SWITCH_CPU_WIDE:        return "SWITCH_CPU_WIDE";
	case PERF_RECORD_NAMESPACES:             return "NAMESPACES";
	case PERF_RECORD_KSYMBOL:                return "KSYMBOL";
	case PERF_RECORD_BPF_EVENT:              return "BPF_EVENT";
	case PERF_RECORD_CGROUP:                 return "CGROUP";
	case PERF_RECORD_TEXT_POKE:              return "TEXT_POKE";
	case PERF_RECORD_AUX_OUTPUT_HW_ID:       return "AUX_OUTPUT_HW_ID";
	case HWT_PERF_RECORD_HEADER_ATTR:        return "HEADER_ATTR";
	case HWT_PERF_RECORD_HEADER_EVENT_TYPE:  return "HEADER_EVENT_TYPE";
	case HWT_PERF_RECORD_HEADER_TRACING_DATA: return "HEADER_TRACING_DATA";
	case HWT_PERF_RECORD_HEADER_BUILD_ID:    return "HEADER_BUILD_ID";
	case HWT_PERF_RECORD_FINISHED_ROUND:     return "FINISHED_ROUND";
	case HWT_PERF_RECORD_ID_INDEX:           return "ID_INDEX";
	case HWT_PERF_RECORD_AUXTRACE_INFO:      return "AUXTRACE_INFO";
	case HWT_PERF_RECORD_AUXTRACE:           return "AUXTRACE";
	case HWT_PERF_RECORD_AUXTRACE_ERROR:     return "AUXTRACE_ERROR";
	case HWT_PERF_RECORD_THREAD_MAP:         return "THREAD_MAP";
	case HWT_PERF_RECORD_CPU_MAP:            return "CPU_MAP";
	case HWT_PERF_RECORD_STAT_CONFIG:        return "STAT_CONFIG";
	case HWT_PERF_RECORD_STAT:               return "STAT";
	case HWT_PERF_RECORD_STAT_ROUND:         return "STAT_ROUND";
	case HWT_PERF_RECORD_EVENT_UPDATE:       return "EVENT_UPDATE";
	case HWT_PERF_RECORD_TIME_CONV:          return "TIME_CONV";
	case HWT_PERF_RECORD_HEADER_FEATURE:     return "HEADER_FEATURE";
	case HWT_PERF_RECORD_COMPRESSED:         return "COMPRESSED";
	case HWT_PERF_RECORD_FINISHED_INIT:      return "FINISHED_INIT";
	default:                                 return "unknown";
	}
}
