// Package workload holds what every blogbench Go app does alike besides SQL and HTML: the
// environment it reads (docs/spec.md §1), the slug rule (§3.1), the /compute route's function
// and query rule (§3.6), the comment form's rule (§3.9) and the plain-text bodies of §3.8.
// It is the twin of the Rust workload crate (workload/src/lib.rs), checked against the same
// vectors (../../workload/testdata).
package workload

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The defaults of docs/spec.md §1, the same as workload/src/lib.rs.
const (
	DefaultDatabaseURL = "postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable"
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"
	DefaultBind        = "127.0.0.1:8080"
)

// Config holds the settings every blogbench app reads from its environment.
type Config struct {
	DatabaseURL string
	RedisURL    string
	Bind        string
	Workers     int
	PoolMax     int32
	PoolMin     int32
	// PingOnAcquire is "always", "idle" (a connection idle for more than a second: pgxpool's
	// default, and workload::PingOnAcquire::Idle) or "never".
	PingOnAcquire string
}

// LoadConfig reads DATABASE_URL, REDIS_URL, BIND, WORKERS, POOL_MAX, POOL_MIN and
// PING_ON_ACQUIRE.
func LoadConfig() (Config, error) {
	return ConfigFrom(os.LookupEnv)
}

// ConfigFrom builds a Config from lookup (os.LookupEnv, or a map in tests). As in the Rust
// apps, a variable that is set but empty is a value, not an absent one.
func ConfigFrom(lookup func(string) (string, bool)) (Config, error) {
	text := func(name, def string) string {
		if v, ok := lookup(name); ok {
			return v
		}
		return def
	}
	c := Config{
		DatabaseURL:   text("DATABASE_URL", DefaultDatabaseURL),
		RedisURL:      text("REDIS_URL", DefaultRedisURL),
		Bind:          text("BIND", DefaultBind),
		PingOnAcquire: text("PING_ON_ACQUIRE", "idle"),
	}
	switch c.PingOnAcquire {
	case "always", "idle", "never":
	default:
		return Config{}, fmt.Errorf("PING_ON_ACQUIRE must be always, idle or never, got %q", c.PingOnAcquire)
	}
	workers, err := positive(lookup, "WORKERS", 4)
	if err != nil {
		return Config{}, err
	}
	poolMax, err := positive(lookup, "POOL_MAX", 16)
	if err != nil {
		return Config{}, err
	}
	poolMin, err := positive(lookup, "POOL_MIN", 4)
	if err != nil {
		return Config{}, err
	}
	if poolMin > poolMax {
		return Config{}, fmt.Errorf("POOL_MIN (%d) must not exceed POOL_MAX (%d)", poolMin, poolMax)
	}
	if poolMax > 1<<31-1 { // pgxpool counts connections in an int32
		return Config{}, fmt.Errorf("POOL_MAX must be at most %d, got %d", 1<<31-1, poolMax)
	}
	c.Workers, c.PoolMax, c.PoolMin = int(workers), int32(poolMax), int32(poolMin)
	return c, nil
}

// positive reads the variable name as a u32 above zero, parsed like Rust's str::parse::<u32>
// (decimal digits after an optional '+'), or returns def when it is not set.
func positive(lookup func(string) (string, bool), name string, def uint32) (uint32, error) {
	v, ok := lookup(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(v, "+"), 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%s must be a positive integer, got %q", name, v)
	}
	return uint32(n), nil
}
