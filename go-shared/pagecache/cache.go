// Package pagecache is the Redis page cache of docs/spec.md §3.5 for the Go apps, the twin of
// the Rust page-cache crate: rendered pages stored under "page:" + the uncached path, with no
// expiry, and the Redis client set up as the contract says (short timeouts, no retries).
package pagecache

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync/atomic"
	"time"

	"blogbench/goshared/workload"

	"github.com/redis/go-redis/v9"
)

// OpenRedis makes the Redis client. Short timeouts and no retries: a cache that does not
// answer quickly is skipped (the page comes from the database), and go-redis redials by
// itself when Redis returns.
func OpenRedis(cfg workload.Config) (*redis.Client, error) {
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	opt.DialTimeout = 250 * time.Millisecond
	opt.DialerRetries = 1
	opt.ReadTimeout = time.Second
	opt.WriteTimeout = time.Second
	opt.MaxRetries = -1
	return redis.NewClient(opt), nil
}

// Cache stores rendered pages in Redis under "page:" + the uncached path (docs/spec.md §3.5).
// A Redis failure is never the client's problem: the caller renders from the database
// instead.
type Cache struct {
	rdb     *redis.Client
	failing atomic.Bool // whether the last Redis call failed, so an outage is logged once
}

// New caches pages in rdb.
func New(rdb *redis.Client) *Cache { return &Cache{rdb: rdb} }

// HomeKey is the key of the cached home page.
const HomeKey = "page:/"

// PostKey is the key of a cached post page.
func PostKey(slug string) string { return "page:/posts/" + slug }

// KeysACommentChanges are the pages a new comment on post slug makes stale: the post's (its
// comments) and the home page (the counts).
func KeysACommentChanges(slug string) []string { return []string{PostKey(slug), HomeKey} }

// Get returns the page stored under key and whether there was one; err is set when Redis
// could not answer.
func (c *Cache) Get(ctx context.Context, key string) (page []byte, hit bool, err error) {
	page, err = c.rdb.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		c.note(ctx, nil)
		return nil, false, nil
	}
	c.note(ctx, err)
	return page, err == nil, err
}

// Set stores page under key with no expiry.
func (c *Cache) Set(ctx context.Context, key string, page []byte) {
	c.note(ctx, c.rdb.Set(ctx, key, page, 0).Err())
}

// Invalidate deletes keys with one DEL, after a write. Best-effort: the write is committed,
// so a Redis failure is logged (once) and the answer is the same (docs/spec.md §3.9).
func (c *Cache) Invalidate(ctx context.Context, keys ...string) {
	c.note(ctx, c.rdb.Del(ctx, keys...).Err())
}

// note logs when Redis starts failing and when it answers again.
func (c *Cache) note(ctx context.Context, err error) {
	switch {
	case err == nil:
		if c.failing.Load() && c.failing.CompareAndSwap(true, false) {
			log.Print("redis is back: caching pages again")
		}
	case ctx.Err() != nil:
		// The client went away; that says nothing about Redis.
	case c.failing.CompareAndSwap(false, true):
		log.Printf("redis unavailable, rendering cached routes from the database: %v", err)
	}
}
