/* Error codes of the bundle library and their text. */
#include "hwt_bundle.h"

const char *hwt_bundle_errstr(int code)
{
	if (code < 0)
		code = -code;

	switch ((enum hwt_bundle_error)code) {
	case hbe_ok:         return "success";
	case hbe_internal:   return "internal error";
	case hbe_invalid:    return "invalid argument";
	case hbe_nomem:      return "out of memory";
	case hbe_io:         return "input/output error";
	case hbe_no_dir:     return "no such bundle directory";
	case hbe_not_dir:    return "not a directory";
	case hbe_not_bundle: return "not a trace bundle (no hwt-bundle header)";
	case hbe_bad_header: return "bad hwt-bundle header";
	case hbe_version:    return "unsupported bundle version";
	case hbe_exists:     return "directory exists and is not empty";
	case hbe_eos:        return "end of records";
	case hbe_torn:       return "torn tail: the file ends inside a record";
	case hbe_corrupt:    return "corrupt record";
	}
	return "unknown error";
}
