// The Redis page cache of docs/spec.md §3.5, as go-shared/pagecache: pages stored under
// "page:" + the uncached path, as their HTML bytes, with no expiry. A Redis that fails or does
// not answer quickly is a miss, never the client's problem.
import { Redis } from 'ioredis'

export const HOME_KEY = 'page:/'

export function postKey(slug) {
  return `page:/posts/${slug}`
}

/** The pages a new comment on post slug makes stale: the post's and the home page (counts). */
export function keysACommentChanges(slug) {
  return [postKey(slug), HOME_KEY]
}

const CONNECT_TIMEOUT_MS = 250
const REPLY_TIMEOUT_MS = 1000
const RECONNECT_DELAY_MS = 100

// region: cache
export class PageCache {
  #redis
  #failing = false // whether the last command failed, so an outage is logged once

  constructor(redisUrl) {
    // ioredis queues commands while it is disconnected and retries them (20 times by default):
    // here a command fails at once instead, a reply waits at most 1 s and a connection 250 ms,
    // so a Redis outage costs a request a miss, not a wait. The client reconnects by itself.
    this.#redis = new Redis(redisUrl, {
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: REPLY_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => RECONNECT_DELAY_MS,
    })
    this.#redis.on('error', (error) => this.#note(error))
  }

  /**
   * The page stored under key: one GET on a hit; on a miss the page rendered and stored with
   * one SET. When Redis fails, the page is rendered and nothing is stored.
   */
  async page(key, render) {
    let stored
    try {
      stored = await this.#redis.getBuffer(key)
    } catch (error) {
      this.#note(error)
      return render()
    }
    this.#note()
    if (stored !== null) return stored
    const page = await render()
    try {
      await this.#redis.set(key, page)
    } catch (error) {
      this.#note(error)
    }
    return page
  }
  // endregion

  /**
   * Deletes keys with one DEL, after a write. Best effort: the write is committed, so a Redis
   * failure is logged (once) and the answer stays the same.
   */
  async invalidate(keys) {
    try {
      await this.#redis.del(...keys)
      this.#note()
    } catch (error) {
      this.#note(error)
    }
  }

  close() {
    this.#redis.disconnect()
  }

  /** Logs when Redis starts failing and when it answers again. */
  #note(error) {
    if (error === undefined) {
      if (this.#failing) console.error('redis is back: caching pages again')
      this.#failing = false
    } else if (!this.#failing) {
      this.#failing = true
      console.error(
        `redis unavailable, rendering cached routes from the database: ${error.message}`,
      )
    }
  }
}
