package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The defaults of docs/spec.md §1, the same as workload/src/lib.rs.
const (
	defaultDatabaseURL = "postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable"
	defaultRedisURL    = "redis://127.0.0.1:6379/0"
	defaultBind        = "127.0.0.1:8080"
)

// config holds the settings every blogbench app reads from its environment.
type config struct {
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

// loadConfig reads DATABASE_URL, REDIS_URL, BIND, WORKERS, POOL_MAX, POOL_MIN and
// PING_ON_ACQUIRE.
func loadConfig() (config, error) {
	return configFrom(os.LookupEnv)
}

// configFrom builds a config from lookup (os.LookupEnv, or a map in tests). As in the Rust
// apps, a variable that is set but empty is a value, not an absent one.
func configFrom(lookup func(string) (string, bool)) (config, error) {
	text := func(name, def string) string {
		if v, ok := lookup(name); ok {
			return v
		}
		return def
	}
	c := config{
		DatabaseURL:   text("DATABASE_URL", defaultDatabaseURL),
		RedisURL:      text("REDIS_URL", defaultRedisURL),
		Bind:          text("BIND", defaultBind),
		PingOnAcquire: text("PING_ON_ACQUIRE", "idle"),
	}
	switch c.PingOnAcquire {
	case "always", "idle", "never":
	default:
		return config{}, fmt.Errorf("PING_ON_ACQUIRE must be always, idle or never, got %q", c.PingOnAcquire)
	}
	workers, err := positive(lookup, "WORKERS", 4)
	if err != nil {
		return config{}, err
	}
	poolMax, err := positive(lookup, "POOL_MAX", 16)
	if err != nil {
		return config{}, err
	}
	poolMin, err := positive(lookup, "POOL_MIN", 4)
	if err != nil {
		return config{}, err
	}
	if poolMin > poolMax {
		return config{}, fmt.Errorf("POOL_MIN (%d) must not exceed POOL_MAX (%d)", poolMin, poolMax)
	}
	if poolMax > 1<<31-1 { // pgxpool counts connections in an int32
		return config{}, fmt.Errorf("POOL_MAX must be at most %d, got %d", 1<<31-1, poolMax)
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
