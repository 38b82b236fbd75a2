package workload

// The plain-text bodies of docs/spec.md §3.8 for the failures every app answers alike, byte
// for byte the Rust apps' (workload::DB_UNAVAILABLE_MESSAGE).
const (
	// DBUnavailableMessage is the 503 body when PostgreSQL fails or cannot be reached.
	DBUnavailableMessage = "database unavailable\n"
	// InternalErrorMessage is the 500 body when a template fails.
	InternalErrorMessage = "internal server error\n"
)
