package workload

// MaxSlugLen is the longest slug looked up (the seeded ones are at most 58 bytes).
const MaxSlugLen = 100

// IsSlug reports whether a decoded path segment may be a slug (docs/spec.md §3.1): 1 to
// MaxSlugLen bytes, each a-z, 0-9 or '-'. Anything else gets the 404 page without a query:
// PostgreSQL rejects a NUL or invalid UTF-8 in a text parameter, which would otherwise read
// as an outage. Vectors: ../../workload/testdata/slugs.json (the Rust apps' rule checks them
// too).
func IsSlug(segment string) bool {
	if len(segment) == 0 || len(segment) > MaxSlugLen {
		return false
	}
	for i := 0; i < len(segment); i++ {
		c := segment[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
