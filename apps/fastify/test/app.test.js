import assert from 'node:assert/strict'
import { after, before, beforeEach, mock, test } from 'node:test'
import { buildApp } from '../src/app.js'
import { DatabaseUnavailableError, NotFoundError } from '../src/db.js'
import { readShared } from './vectors.js'

const HTML = 'text/html; charset=utf-8'
const TEXT = 'text/plain; charset=utf-8'

// The Go reference's 404 page (go-shared/blog/templates/not_found.html in base.html).
const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Not found · blogbench</title>
</head>
<body>
<header><a href="/">blogbench</a></header>
<main>
<h1>Not found</h1>
<p>There is no page at this address. <a href="/">Back to the latest posts</a>.</p>
</main>
</body>
</html>
`

const POST = {
  title: `Tom & Jerry's "C++" <notes>`,
  author: 'Zoë',
  date: '2024-01-11',
  tags: [{ name: '<script> & XSS', slug: 'script-and-xss' }],
  paragraphs: ['one', 'two'],
  comments: [{ author: 'Bo', time: '2024-01-12 10:00', body: '<script>alert("xss")</script>' }],
}

// Stand-ins for the database and the page cache; a test replaces the methods it expects.
const db = {}
const pageCache = {}
let app

before(async () => {
  app = await buildApp({ db, pageCache })
})
after(() => app.close())
beforeEach(() => {
  const untouched = (name) => () => assert.fail(`${name} was called`)
  for (const name of ['loadHome', 'loadPost', 'loadTag', 'addComment', 'close']) {
    db[name] = untouched(`db.${name}`)
  }
  for (const name of ['page', 'invalidate', 'close']) pageCache[name] = untouched(`cache.${name}`)
  db.close = pageCache.close = async () => {}
})

test('the post page, escaped as Go escapes it', async () => {
  db.loadPost = async (slug) => (slug === 'tom-1000' ? POST : assert.fail(slug))
  const response = await app.inject('/posts/tom-1000')
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], HTML)
  assert.equal(response.headers['content-length'], String(response.rawPayload.length))
  assert.match(
    response.body,
    /<title>Tom &amp; Jerry&#39;s &#34;C&#43;&#43;&#34; &lt;notes&gt; · blogbench<\/title>/,
  )
  assert.ok(
    response.body.includes(`<main>
<article>
<h1>Tom &amp; Jerry&#39;s &#34;C&#43;&#43;&#34; &lt;notes&gt;</h1>
<p class="meta">by Zoë on <time>2024-01-11</time></p>
<ul class="tags">
<li><a href="/tags/script-and-xss">&lt;script&gt; &amp; XSS</a></li>
</ul>
<p>one</p>
<p>two</p>
</article>
<section class="comments">
<h2>Comments (1)</h2>
<div class="comment">
<p class="meta">Bo at <time>2024-01-12 10:00</time></p>
<p>&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;</p>
</div>
</section>
</main>`),
    response.body,
  )
})

test('the 404 page, for an unknown slug and an unknown path', async () => {
  db.loadPost = async (slug) => {
    throw new NotFoundError(slug)
  }
  for (const path of ['/posts/no-such-post', '/no/such/page', '/posts', '/posts/a/b']) {
    const response = await app.inject(path)
    assert.equal(response.statusCode, 404, path)
    assert.equal(response.headers['content-type'], HTML, path)
    assert.equal(response.body, NOT_FOUND_PAGE, path)
  }
})

test('a segment that cannot be a slug gets the 404 page before any query or cache lookup', async () => {
  const segments = readShared('workload/testdata/slugs.json')
    .filter(([segment, isSlug]) => !isSlug && !['', '..', '%2e%2e', '.'].includes(segment))
    .map(([segment]) => segment)
  assert.ok(segments.length >= 20)
  for (const segment of segments) {
    for (const path of [`/posts/${segment}`, `/tags/${segment}`, `/cached/posts/${segment}`]) {
      const response = await app.inject(path)
      assert.equal(response.statusCode, 404, path)
      assert.equal(response.body, NOT_FOUND_PAGE, path)
    }
    const response = await app.inject({
      method: 'POST',
      url: `/posts/${segment}/comments`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'author_name=Ana&body=b',
    })
    assert.equal(response.statusCode, 404, segment)
  }
})

test('a database failure is a 503', async () => {
  db.loadHome = async () => {
    throw new DatabaseUnavailableError('connection refused')
  }
  const response = await app.inject('/')
  assert.equal(response.statusCode, 503)
  assert.equal(response.headers['content-type'], TEXT)
  assert.equal(response.body, 'database unavailable\n')
})

test('a template that fails is a 500', async () => {
  const logged = mock.method(console, 'error', () => {})
  db.loadTag = async () => ({ name: 'x' }) // no posts to loop over
  const response = await app.inject('/tags/rust')
  assert.equal(response.statusCode, 500)
  assert.equal(response.headers['content-type'], TEXT)
  assert.equal(response.body, 'internal server error\n')
  assert.equal(logged.mock.callCount(), 1)
  logged.mock.restore()
})

test('the cached routes go through the page cache under the uncached path', async () => {
  const keys = []
  pageCache.page = async (key, render) => {
    keys.push(key)
    return render()
  }
  db.loadHome = async () => ({ posts: [] })
  db.loadPost = async () => POST
  assert.equal((await app.inject('/cached/')).statusCode, 200)
  const response = await app.inject('/cached/posts/tom-1000')
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], HTML)
  assert.deepEqual(keys, ['page:/', 'page:/posts/tom-1000'])

  pageCache.page = async () => Buffer.from('stored page')
  assert.equal((await app.inject('/cached/posts/tom-1000')).body, 'stored page')
})

test('/compute reads n from the raw query', async () => {
  for (const [query, status, body] of [
    ['', 200, '21171191\n'],
    ['?n=10', 200, '17\n'],
    ['?n=%31%30', 200, '17\n'],
    ['?N=10', 200, '21171191\n'],
    ['?n=+10', 400, 'n must be an integer from 2 to 1000000\n'],
    ['?x=1;y=2', 400, 'n must be an integer from 2 to 1000000\n'],
  ]) {
    const response = await app.inject(`/compute${query}`)
    assert.equal(response.statusCode, status, query)
    assert.equal(response.headers['content-type'], TEXT, query)
    assert.equal(response.body, body, query)
  }
})

const postComment = (headers, payload, slug = 'post-1') =>
  app.inject({ method: 'POST', url: `/posts/${slug}/comments`, headers, payload })
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

test('a comment is stored, its pages deleted from the cache, and a 303 sent', async () => {
  const calls = []
  db.addComment = async (slug, comment) => calls.push(['insert', slug, comment])
  pageCache.invalidate = async (keys) => calls.push(['delete', keys])
  const response = await postComment(
    { 'content-type': 'Application/X-WWW-Form-URLEncoded; charset=UTF-8' },
    'author_name=+Ana+&body=%3Cb%3E',
  )
  assert.equal(response.statusCode, 303)
  assert.equal(response.headers.location, '/posts/post-1')
  assert.equal(response.headers['content-length'], '0')
  assert.equal(response.headers['content-type'], undefined)
  assert.equal(response.body, '')
  assert.deepEqual(calls, [
    ['insert', 'post-1', { authorName: 'Ana', body: '<b>' }],
    ['delete', ['page:/posts/post-1', 'page:/']],
  ])
})

test('a comment on an unknown post gets the 404 page', async () => {
  db.addComment = async (slug) => {
    throw new NotFoundError(slug)
  }
  const response = await postComment(FORM, 'author_name=Ana&body=b', 'no-such-post')
  assert.equal(response.statusCode, 404)
  assert.equal(response.body, NOT_FOUND_PAGE)
})

test('a comment that is refused touches neither the database nor the cache', async () => {
  const large = `author_name=a&body=${'b'.repeat(16385 - 19)}`
  for (const [headers, payload, status, message] of [
    [
      {},
      'author_name=Ana&body=b',
      415,
      'a comment must be sent as application/x-www-form-urlencoded\n',
    ],
    [
      { 'content-type': 'text/plain' },
      'x',
      415,
      'a comment must be sent as application/x-www-form-urlencoded\n',
    ],
    [
      { 'content-type': 'application/json' },
      '{}',
      415,
      'a comment must be sent as application/x-www-form-urlencoded\n',
    ],
    [FORM, large, 413, 'a comment form must be at most 16384 bytes\n'],
    [FORM, large.slice(0, -1), 400, 'body must be at most 2000 characters\n'],
    [FORM, '', 400, 'author_name is required\n'],
    [FORM, 'author_name=Ana&body=%zz', 400, 'the comment form is not valid form encoding\n'],
    [FORM, 'author_name=%FF&body=b', 400, 'author_name must be valid UTF-8\n'],
  ]) {
    const response = await postComment(headers, payload)
    assert.equal(response.statusCode, status, message)
    assert.equal(response.headers['content-type'], TEXT, message)
    assert.equal(response.body, message)
  }
})
