package workload

import (
	"strings"
	"testing"
)

func configOf(pairs ...string) (Config, error) {
	env := map[string]string{}
	for i := 0; i < len(pairs); i += 2 {
		env[pairs[i]] = pairs[i+1]
	}
	return ConfigFrom(func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	})
}

func TestConfigDefaults(t *testing.T) {
	c, err := configOf()
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		DatabaseURL: "postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable",
		RedisURL:    "redis://127.0.0.1:6379/0",
		Bind:        "127.0.0.1:8080",
		Workers:     4, PoolMax: 16, PoolMin: 4,
		PingOnAcquire: "idle",
	}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
}

func TestConfigValues(t *testing.T) {
	c, err := configOf("WORKERS", "2", "BIND", "127.0.0.1:9000", "POOL_MAX", "+8", "POOL_MIN", "8",
		"DATABASE_URL", "postgres://x@h/db", "REDIS_URL", "redis://h:1/2", "PING_ON_ACQUIRE", "never")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{"postgres://x@h/db", "redis://h:1/2", "127.0.0.1:9000", 2, 8, 8, "never"}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
}

func TestConfigRejectsBadNumbersByName(t *testing.T) {
	for _, c := range []struct{ name, value, prefix string }{
		{"WORKERS", "four", "WORKERS"},
		{"WORKERS", "", "WORKERS"},
		{"WORKERS", "-1", "WORKERS"},
		{"POOL_MAX", "0", "POOL_MAX"},
		{"POOL_MAX", "4294967296", "POOL_MAX"},
		{"POOL_MIN", "1.5", "POOL_MIN"},
		{"POOL_MIN", "20", "POOL_MIN"}, // more than POOL_MAX's 16
		{"POOL_MAX", "4294967295", "POOL_MAX"},
		{"PING_ON_ACQUIRE", "1", "PING_ON_ACQUIRE"},
	} {
		_, err := configOf(c.name, c.value)
		if err == nil || !strings.HasPrefix(err.Error(), c.prefix) {
			t.Errorf("%s=%q: got error %v, want one starting with %s", c.name, c.value, err, c.prefix)
		}
	}
}
