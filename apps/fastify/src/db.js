// The blog in PostgreSQL through a node-postgres pool (docs/spec.md §1–§3): the pool as the
// contract sets it up, the SQL text (byte for byte shared-sql/queries.json's), each page's
// loader, which turns rows into the view data its template prints, and the transaction that
// stores a comment. Any failure of the database becomes a DatabaseUnavailableError (a 503).
import pg from 'pg'

export const QUERIES = Object.freeze({
  HOME_POSTS:
    'SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY p.published_at DESC, p.id DESC LIMIT 20',
  TAGS_OF_POSTS:
    'SELECT pt.post_id, t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = ANY($1) ORDER BY pt.post_id, t.slug',
  COMMENT_COUNTS:
    'SELECT post_id, count(*) AS comment_count FROM comments WHERE post_id = ANY($1) GROUP BY post_id',
  POST_BY_SLUG:
    'SELECT p.id, p.title, p.slug, p.body, p.published_at, a.name AS author_name FROM posts p JOIN authors a ON a.id = p.author_id WHERE p.slug = $1',
  TAGS_OF_POST:
    'SELECT t.name, t.slug FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_id = $1 ORDER BY t.slug',
  COMMENTS_OF_POST:
    'SELECT author_name, body, created_at FROM comments WHERE post_id = $1 ORDER BY created_at, id',
  TAG_BY_SLUG: 'SELECT id, name, slug FROM tags WHERE slug = $1',
  TAG_POSTS:
    'SELECT p.id, p.title, p.slug, p.excerpt, p.published_at, a.name AS author_name FROM post_tags pt JOIN posts p ON p.id = pt.post_id JOIN authors a ON a.id = p.author_id WHERE pt.tag_id = $1 ORDER BY p.published_at DESC, p.id DESC LIMIT 20',
  TAG_POST_COUNT: 'SELECT count(*) FROM post_tags WHERE tag_id = $1',
  POST_ID_BY_SLUG: 'SELECT id FROM posts WHERE slug = $1',
  INSERT_COMMENT:
    'INSERT INTO comments (post_id, author_name, body, created_at) VALUES ($1, $2, $3, now())',
})

/** An unknown slug: the 404 page. */
export class NotFoundError extends Error {}

/** PostgreSQL failed, could not be reached, or had no connection free within 3 s: a 503. */
export class DatabaseUnavailableError extends Error {}

const ACQUIRE_TIMEOUT_MS = 3000
const PING_IDLE_AFTER_MS = 1000 // pgxpool's rule for PING_ON_ACQUIRE=idle
const IDLE_TIMEOUT_MS = 30 * 60 * 1000 // pgxpool's MaxConnIdleTime; pg-pool's default is 10 s

// region: pool
export class Database {
  #pool
  #pingOnAcquire
  #idleSince = new WeakMap() // client -> when it went back to the pool
  #failing = false // whether the last use failed, so an outage is logged once

  /**
   * A pool of at most max connections that keeps min of them once opened. It connects on first
   * use, so the app starts (and answers 503) while PostgreSQL is down, and a request waits at
   * most 3 s for a connection.
   */
  constructor({ connectionString, max, min, pingOnAcquire }) {
    this.#pool = new pg.Pool({
      connectionString,
      max,
      min,
      connectionTimeoutMillis: ACQUIRE_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
    })
    this.#pingOnAcquire = pingOnAcquire
    // An idle client whose server goes away (a restart) emits 'error'; pg-pool drops it and
    // emits the error here, where an unhandled one would end the process.
    this.#pool.on('error', (error) => this.#note(error))
    // pg-pool takes its listener off a client it hands out, and node-postgres emits 'error' on
    // a client whose connection breaks even when a query gets the error too.
    this.#pool.on('connect', (client) => client.on('error', (error) => this.#note(error)))
    this.#pool.on('release', (_error, client) => this.#idleSince.set(client, performance.now()))
  }

  /** Runs work with one pooled client: a page's queries, or a comment's transaction. */
  async #withClient(work) {
    let client
    let failure
    try {
      client = await this.#acquire()
      return await work(client)
    } catch (error) {
      if (error instanceof NotFoundError) throw error
      failure = error
      throw new DatabaseUnavailableError(error.message, { cause: error })
    } finally {
      client?.release(failure) // a client that failed is closed, not pooled again
      this.#note(failure)
    }
  }

  /**
   * A client from the pool, pinged first when PING_ON_ACQUIRE asks for it. pg-pool has no such
   * hook (pg-pool/index.js: _acquireClient runs options.verify on new clients only and hands
   * out idle ones as they are), so it is here: a client that fails its ping is closed and the
   * next one taken, as pgxpool does.
   */
  async #acquire() {
    for (;;) {
      const client = await this.#pool.connect()
      if (!this.#shouldPing(client)) return client
      try {
        await client.query('SELECT 1')
        return client
      } catch (error) {
        client.release(error)
      }
    }
  }

  #shouldPing(client) {
    if (this.#pingOnAcquire !== 'idle') return this.#pingOnAcquire === 'always'
    const idleSince = this.#idleSince.get(client)
    return idleSince !== undefined && performance.now() - idleSince > PING_IDLE_AFTER_MS
  }
  // endregion

  /** The view data of / (3 queries). */
  loadHome() {
    return this.#withClient(async (client) => {
      const posts = await rows(client, 'HOME_POSTS')
      const ids = posts.map((post) => post.id)
      const tags = await rows(client, 'TAGS_OF_POSTS', ids)
      const counts = await rows(client, 'COMMENT_COUNTS', ids)
      const countOf = new Map(counts.map((row) => [row.post_id, row.comment_count]))
      return { posts: cards(posts, tags, countOf) }
    })
  }

  // region: detail-page
  /** The view data of /posts/{slug} (3 queries), or a NotFoundError after one. */
  loadPost(slug) {
    return this.#withClient(async (client) => {
      const [post] = await rows(client, 'POST_BY_SLUG', slug)
      if (post === undefined) throw new NotFoundError(slug)
      const tags = await rows(client, 'TAGS_OF_POST', post.id)
      const comments = await rows(client, 'COMMENTS_OF_POST', post.id)
      return {
        title: post.title,
        author: post.author_name,
        date: day(post.published_at),
        tags,
        paragraphs: post.body.split('\n\n'),
        comments: comments.map((comment) => ({
          author: comment.author_name,
          time: minute(comment.created_at),
          body: comment.body,
        })),
      }
    })
  }
  // endregion

  /** The view data of /tags/{slug} (4 queries), or a NotFoundError after one. */
  loadTag(slug) {
    return this.#withClient(async (client) => {
      const [tag] = await rows(client, 'TAG_BY_SLUG', slug)
      if (tag === undefined) throw new NotFoundError(slug)
      const posts = await rows(client, 'TAG_POSTS', tag.id)
      const tags = await rows(
        client,
        'TAGS_OF_POSTS',
        posts.map((post) => post.id),
      )
      const [{ count }] = await rows(client, 'TAG_POST_COUNT', tag.id)
      return { name: tag.name, slug: tag.slug, postCount: count, posts: cards(posts, tags) }
    })
  }

  // region: comment
  /**
   * Stores a comment on the post slug in one transaction (BEGIN, POST_ID_BY_SLUG,
   * INSERT_COMMENT, COMMIT), or throws a NotFoundError after a rollback.
   */
  addComment(slug, { authorName, body }) {
    return this.#withClient(async (client) => {
      await client.query('BEGIN')
      try {
        const [post] = await rows(client, 'POST_ID_BY_SLUG', slug)
        if (post === undefined) throw new NotFoundError(slug)
        await rows(client, 'INSERT_COMMENT', post.id, authorName, body)
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK')
        throw error
      }
    })
  }
  // endregion

  close() {
    return this.#pool.end()
  }

  /** Logs when the database starts failing and when it answers again. */
  #note(error) {
    if (error === undefined) {
      if (this.#failing) console.error('database is back')
      this.#failing = false
    } else if (!this.#failing) {
      this.#failing = true
      console.error(`database unavailable: ${error.message}`)
    }
  }
}

/**
 * The rows of the named statement. Each is prepared once per connection (a named statement),
 * as pgx's statement cache does for the Go reference.
 */
async function rows(client, name, ...values) {
  const result = await client.query({ name, text: QUERIES[name], values })
  return result.rows
}

/** Posts as a list shows them, each with its tags (in query order) and comment count. */
function cards(posts, tags, countOf = new Map()) {
  const tagsOf = new Map(posts.map((post) => [post.id, []]))
  for (const tag of tags) tagsOf.get(tag.post_id).push({ name: tag.name, slug: tag.slug })
  return posts.map((post) => ({
    title: post.title,
    slug: post.slug,
    author: post.author_name,
    date: day(post.published_at),
    excerpt: post.excerpt,
    tags: tagsOf.get(post.id),
    commentCount: countOf.get(post.id) ?? 0,
  }))
}

// Dates as docs/spec.md §2 prints them, in UTC: YYYY-MM-DD, comment times YYYY-MM-DD HH:MM.
function day(time) {
  return time.toISOString().slice(0, 10)
}

function minute(time) {
  return time.toISOString().slice(0, 16).replace('T', ' ')
}
