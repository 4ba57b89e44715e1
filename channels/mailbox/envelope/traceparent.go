package envelope

// TraceID returns the trace id (32 lowercase hex digits) of a W3C
// traceparent value ("00-<trace id>-<parent id>-<flags>"), or "" when it is
// empty or malformed, as the W3C Trace Context recommendation reads it:
// version ff and all-zero ids are invalid; version 00 has nothing after
// the flags, a later version may have more fields after a "-".
func TraceID(traceparent string) string {
	tp := traceparent
	if len(tp) < 55 || tp[2] != '-' || tp[35] != '-' || tp[52] != '-' {
		return ""
	}
	version, trace, parent, flags := tp[0:2], tp[3:35], tp[36:52], tp[53:55]
	if !lowerHex(version) || version == "ff" || !lowerHex(trace) || !lowerHex(parent) || !lowerHex(flags) ||
		allZero(trace) || allZero(parent) {
		return ""
	}
	if len(tp) > 55 && (version == "00" || tp[55] != '-') {
		return ""
	}
	return trace
}

func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool {
	for i := range len(s) {
		if s[i] != '0' {
			return false
		}
	}
	return true
}
