import assert from 'node:assert/strict'
import { afterEach, beforeEach, mock, test } from 'node:test'
import pg from 'pg'
import { Database, DatabaseUnavailableError, NotFoundError, QUERIES } from '../src/db.js'
import { readShared } from './vectors.js'

test('the SQL text is shared-sql/queries.json, byte for byte, with the same names', () => {
  assert.deepEqual({ ...QUERIES }, readShared('shared-sql/queries.json'))
})

/**
 * A stand-in for a pooled node-postgres client: records every statement sent and answers
 * each named statement with the rows given for it.
 */
class FakeClient {
  sent = []
  released = []
  constructor(rowsOf = {}) {
    this.rowsOf = rowsOf
  }
  async query(statement) {
    const { name, text, values } = typeof statement === 'string' ? { text: statement } : statement
    this.sent.push(name ?? text)
    if (name !== undefined) assert.equal(text, QUERIES[name], `the text of ${name}`)
    if (this.failOn === (name ?? text)) throw new Error('connection terminated')
    return {
      rows:
        typeof this.rowsOf[name] === 'function'
          ? this.rowsOf[name](values)
          : (this.rowsOf[name] ?? []),
    }
  }
  release(error) {
    this.released.push(error)
    this.pool.emit('release', error, this) // as pg-pool does
  }
}

let client
beforeEach(() => {
  client = new FakeClient()
  mock.method(pg.Pool.prototype, 'connect', async function () {
    client.pool = this
    return client
  })
})
afterEach(() => mock.restoreAll())

const database = (pingOnAcquire = 'never') =>
  new Database({
    connectionString: 'postgres://x@127.0.0.1:1/blogbench',
    max: 2,
    min: 1,
    pingOnAcquire,
  })

const at = (iso) => new Date(iso)

test('the home page: 3 statements, tags grouped by post, a missing count is 0', async () => {
  client.rowsOf = {
    HOME_POSTS: [
      {
        id: 2,
        title: 'B',
        slug: 'b-2',
        excerpt: 'e2',
        published_at: at('2024-01-02T23:59:59Z'),
        author_name: 'Ann',
      },
      {
        id: 1,
        title: 'A',
        slug: 'a-1',
        excerpt: 'e1',
        published_at: at('2024-01-01T00:00:00Z'),
        author_name: 'Bo',
      },
    ],
    TAGS_OF_POSTS: [
      { post_id: 1, name: 'Go', slug: 'go' },
      { post_id: 2, name: 'C++', slug: 'cpp' },
      { post_id: 2, name: 'Rust', slug: 'rust' },
    ],
    COMMENT_COUNTS: [{ post_id: 2, comment_count: '3' }],
  }
  const page = await database().loadHome()
  assert.deepEqual(client.sent, ['HOME_POSTS', 'TAGS_OF_POSTS', 'COMMENT_COUNTS'])
  assert.deepEqual(
    page.posts.map((post) => [
      post.slug,
      post.date,
      post.commentCount,
      post.tags.map((tag) => tag.slug),
    ]),
    [
      ['b-2', '2024-01-02', '3', ['cpp', 'rust']],
      ['a-1', '2024-01-01', 0, ['go']],
    ],
  )
  assert.deepEqual(client.released, [undefined])
})

test('the post page: 3 statements, paragraphs, comment times in UTC', async () => {
  client.rowsOf = {
    POST_BY_SLUG: [
      {
        id: 7,
        title: 'T',
        slug: 't-7',
        body: 'one\n\ntwo\nlines',
        published_at: at('2024-03-04T05:06:07Z'),
        author_name: 'Ann',
      },
    ],
    TAGS_OF_POST: [{ name: 'Go', slug: 'go' }],
    COMMENTS_OF_POST: [
      { author_name: 'Bo', body: 'hi', created_at: at('2024-03-05T10:11:59.999Z') },
    ],
  }
  const page = await database().loadPost('t-7')
  assert.deepEqual(client.sent, ['POST_BY_SLUG', 'TAGS_OF_POST', 'COMMENTS_OF_POST'])
  assert.deepEqual(page, {
    title: 'T',
    author: 'Ann',
    date: '2024-03-04',
    tags: [{ name: 'Go', slug: 'go' }],
    paragraphs: ['one', 'two\nlines'],
    comments: [{ author: 'Bo', time: '2024-03-05 10:11', body: 'hi' }],
  })
})

test('an unknown slug costs one statement', async () => {
  await assert.rejects(database().loadPost('no-such-post'), NotFoundError)
  await assert.rejects(database().loadTag('no-such-tag'), NotFoundError)
  assert.deepEqual(client.sent, ['POST_BY_SLUG', 'TAG_BY_SLUG'])
  assert.deepEqual(client.released, [undefined, undefined]) // the clients go back to the pool
})

test('the tag page: 4 statements', async () => {
  client.rowsOf = {
    TAG_BY_SLUG: [{ id: 3, name: 'Q&A', slug: 'q-and-a' }],
    TAG_POSTS: [
      {
        id: 9,
        title: 'P',
        slug: 'p-9',
        excerpt: 'e',
        published_at: at('2024-01-01T00:00:00Z'),
        author_name: 'Ann',
      },
    ],
    TAGS_OF_POSTS: [{ post_id: 9, name: 'Q&A', slug: 'q-and-a' }],
    TAG_POST_COUNT: [{ count: '87' }],
  }
  const page = await database().loadTag('q-and-a')
  assert.deepEqual(client.sent, ['TAG_BY_SLUG', 'TAG_POSTS', 'TAGS_OF_POSTS', 'TAG_POST_COUNT'])
  assert.equal(page.postCount, '87')
  assert.equal(page.posts[0].tags[0].name, 'Q&A')
})

test('a comment: 4 statements in one transaction, or a rollback for an unknown post', async () => {
  client.rowsOf = { POST_ID_BY_SLUG: [{ id: 5 }] }
  await database().addComment('p-5', { authorName: 'Ann', body: 'hi' })
  assert.deepEqual(client.sent, ['BEGIN', 'POST_ID_BY_SLUG', 'INSERT_COMMENT', 'COMMIT'])

  client = new FakeClient()
  await assert.rejects(
    database().addComment('no-such-post', { authorName: 'A', body: 'b' }),
    NotFoundError,
  )
  assert.deepEqual(client.sent, ['BEGIN', 'POST_ID_BY_SLUG', 'ROLLBACK'])
})

test('a failing database is a DatabaseUnavailableError, and its client is not pooled again', async () => {
  const logged = mock.method(console, 'error', () => {})
  client.failOn = 'TAGS_OF_POST'
  client.rowsOf = { POST_BY_SLUG: [{ id: 1, body: '', published_at: at('2024-01-01T00:00:00Z') }] }
  await assert.rejects(database().loadPost('a-1'), DatabaseUnavailableError)
  assert.equal(client.released.length, 1)
  assert.ok(client.released[0] instanceof Error)

  pg.Pool.prototype.connect.mock.mockImplementation(async () => {
    throw new Error('timeout exceeded when trying to connect')
  })
  await assert.rejects(database().loadHome(), DatabaseUnavailableError)
  assert.equal(logged.mock.callCount(), 2) // one outage per Database, logged once each
})

/** One lookup of an unknown post: one statement, and the client back to the pool. */
const lookUp = (db) => assert.rejects(db.loadPost('no-such-post'), NotFoundError)

test('PING_ON_ACQUIRE: always pings every client, never none, idle a client idle over 1 s', async () => {
  await lookUp(database('always'))
  assert.deepEqual(client.sent, ['SELECT 1', 'POST_BY_SLUG'])

  client = new FakeClient()
  await lookUp(database('never'))
  assert.deepEqual(client.sent, ['POST_BY_SLUG'])

  client = new FakeClient()
  const db = database('idle')
  const now = mock.method(performance, 'now', () => 0)
  await lookUp(db) // a client the pool just opened: no ping
  now.mock.mockImplementation(() => 1000)
  await lookUp(db) // idle exactly 1 s: no ping
  now.mock.mockImplementation(() => 2001)
  await lookUp(db) // idle over 1 s
  assert.deepEqual(client.sent, ['POST_BY_SLUG', 'POST_BY_SLUG', 'SELECT 1', 'POST_BY_SLUG'])
})

test('PING_ON_ACQUIRE: a client that fails its ping is closed and another taken', async () => {
  const dead = new FakeClient()
  dead.failOn = 'SELECT 1'
  const fresh = client
  const clients = [dead, fresh]
  pg.Pool.prototype.connect.mock.mockImplementation(async function () {
    const next = clients.shift()
    next.pool = this
    return next
  })
  await lookUp(database('always'))
  assert.equal(dead.released.length, 1)
  assert.ok(dead.released[0] instanceof Error)
  assert.deepEqual(fresh.sent, ['SELECT 1', 'POST_BY_SLUG'])
})
