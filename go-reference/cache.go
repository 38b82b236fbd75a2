package main

import (
	"context"
	"errors"
	"log"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// pageCache stores rendered pages in Redis under "page:" + the uncached path (docs/spec.md §3). A
// Redis failure is never the client's problem: the caller renders from the database instead.
type pageCache struct {
	rdb     *redis.Client
	failing atomic.Bool // whether the last Redis call failed, so an outage is logged once
}

// homeKey is the key of the cached home page.
const homeKey = "page:/"

// postKey is the key of a cached post page.
func postKey(slug string) string { return "page:/posts/" + slug }

// keysACommentChanges are the pages a new comment on post slug makes stale: the post's (its
// comments) and the home page (the counts).
func keysACommentChanges(slug string) []string { return []string{postKey(slug), homeKey} }

// get returns the page stored under key and whether there was one; err is set when Redis
// could not answer.
func (c *pageCache) get(ctx context.Context, key string) (page []byte, hit bool, err error) {
	page, err = c.rdb.Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		c.note(ctx, nil)
		return nil, false, nil
	}
	c.note(ctx, err)
	return page, err == nil, err
}

// set stores page under key with no expiry.
func (c *pageCache) set(ctx context.Context, key string, page []byte) {
	c.note(ctx, c.rdb.Set(ctx, key, page, 0).Err())
}

// invalidate deletes keys with one DEL, after a write. Best-effort: the write is committed,
// so a Redis failure is logged (once) and the answer is the same (docs/spec.md §3.9).
func (c *pageCache) invalidate(ctx context.Context, keys ...string) {
	c.note(ctx, c.rdb.Del(ctx, keys...).Err())
}

// note logs when Redis starts failing and when it answers again.
func (c *pageCache) note(ctx context.Context, err error) {
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
