package pagecache

import (
	"context"
	"slices"
	"testing"
	"time"

	"blogbench/goshared/workload"
)

func TestKeys(t *testing.T) {
	if HomeKey != "page:/" || PostKey("rust") != "page:/posts/rust" {
		t.Errorf("keys %q, %q: want page: + the uncached path", HomeKey, PostKey("rust"))
	}
	if got := KeysACommentChanges("a-1"); !slices.Equal(got, []string{"page:/posts/a-1", "page:/"}) {
		t.Errorf("a comment on a-1 deletes %q", got)
	}
}

// Nothing listens on port 1: every call is a quick failure, and a lookup is a miss.
func TestRedisDownIsAMiss(t *testing.T) {
	rdb, err := OpenRedis(workload.Config{RedisURL: "redis://127.0.0.1:1/0"})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	c := New(rdb)
	ctx := context.Background()
	start := time.Now()
	page, hit, err := c.Get(ctx, HomeKey)
	if hit || page != nil || err == nil {
		t.Errorf("Get with Redis down: %q, hit %v, err %v; want a miss with an error", page, hit, err)
	}
	c.Set(ctx, HomeKey, []byte("page"))
	c.Invalidate(ctx, KeysACommentChanges("a-1")...)
	if d := time.Since(start); d > time.Second {
		t.Errorf("three calls with Redis down took %v", d)
	}
}

func TestOpenRedisRejectsABadURL(t *testing.T) {
	if _, err := OpenRedis(workload.Config{RedisURL: "http://x"}); err == nil {
		t.Error("REDIS_URL http://x accepted")
	}
}
