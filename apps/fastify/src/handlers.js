// The route handlers and hooks, in Fastify's shape: `this` is the Fastify instance, which
// carries the database (`this.db`), the page cache (`this.pageCache`) and the views
// (`this.view`, from @fastify/view); a handler returns its body or throws, and answerError
// turns what it throws into the response (docs/spec.md §3.8).
import { keysACommentChanges, HOME_KEY, postKey } from './cache.js'
import { DatabaseUnavailableError, NotFoundError } from './db.js'
import {
  BAD_N_MESSAGE,
  DB_UNAVAILABLE_MESSAGE,
  FORM_MALFORMED,
  FORM_TOO_LARGE,
  FormError,
  INTERNAL_ERROR_MESSAGE,
  NOT_A_FORM,
  isForm,
  isSlug,
  parseComment,
  parseN,
  sumOfPrimesBelow,
} from './rules.js'

export const HTML = 'text/html; charset=utf-8'
const TEXT = 'text/plain; charset=utf-8'

/** A template that failed: a 500. */
class RenderError extends Error {}

async function render(app, page, data) {
  try {
    return await app.view(page, data)
  } catch (error) {
    throw new RenderError(`rendering ${page}: ${error.message}`, { cause: error })
  }
}

const renderHome = async (app) => render(app, 'home', await app.db.loadHome())
const renderPost = async (app, slug) => render(app, 'post', await app.db.loadPost(slug))
const renderTag = async (app, slug) => render(app, 'tag', await app.db.loadTag(slug))

export async function homePage(request, reply) {
  reply.type(HTML)
  return renderHome(this)
}

// region: detail-page
/**
 * An onRequest hook of every route with a {slug}: a segment that cannot be a slug gets the 404
 * page before any query, cache lookup or body read (docs/spec.md §3.1).
 */
export async function requireSlug(request) {
  if (!isSlug(request.params.slug)) throw new NotFoundError(request.params.slug)
}

export async function postPage(request, reply) {
  reply.type(HTML)
  return renderPost(this, request.params.slug)
}
// endregion

export async function tagPage(request, reply) {
  reply.type(HTML)
  return renderTag(this, request.params.slug)
}

export async function cachedHomePage(request, reply) {
  reply.type(HTML)
  return this.pageCache.page(HOME_KEY, () => renderHome(this))
}

// region: cache
export async function cachedPostPage(request, reply) {
  const { slug } = request.params
  reply.type(HTML)
  return this.pageCache.page(postKey(slug), () => renderPost(this, slug))
}
// endregion

/** /compute: the sum of the primes below n, n read from the raw query string (§3.6). */
export function compute(request, reply) {
  const query = request.url.indexOf('?')
  const n = parseN(query === -1 ? '' : request.url.slice(query + 1))
  reply.type(TEXT)
  if (n === null) return reply.code(400).send(BAD_N_MESSAGE)
  return reply.send(`${sumOfPrimesBelow(n)}\n`)
}

// region: comment
/** An onRequest hook of the comment route: a body that is not a form is refused unread. */
export async function requireForm(request) {
  if (!isForm(request.headers['content-type'])) throw NOT_A_FORM
}

/**
 * Stores a comment (docs/spec.md §3.9): the form (read whole by the route's content-type
 * parser, up to its body limit) checked before anything else, the insert in one transaction,
 * then the post's and the home page's cached copies deleted, and a 303 to the post. Nothing
 * cancels a handler whose client went away, so a committed comment's pages are always deleted.
 */
export async function addComment(request, reply) {
  const comment = parseComment(request.body)
  const { slug } = request.params
  await this.db.addComment(slug, comment)
  await this.pageCache.invalidate(keysACommentChanges(slug))
  return reply.redirect(`/posts/${slug}`, 303)
}
// endregion

// region: errors
/** The 404 page: the not-found handler, and the answer to an unknown or impossible slug. */
export function answerNotFound(request, reply) {
  return reply.code(404).type(HTML).send(reply.server.notFoundPage)
}

/** The error handler: what a handler or hook threw, as its response. */
export function answerError(error, request, reply) {
  if (error instanceof NotFoundError) return answerNotFound(request, reply)
  if (error instanceof DatabaseUnavailableError) {
    return reply.code(503).type(TEXT).send(DB_UNAVAILABLE_MESSAGE)
  }
  const refusal = formRefusal(error)
  if (refusal !== null) return reply.code(refusal.status).type(TEXT).send(refusal.message)
  // A template that failed (RenderError), or a bug.
  console.error(`${request.method} ${request.url}: ${error.stack}`)
  return reply.code(500).type(TEXT).send(INTERNAL_ERROR_MESSAGE)
}

/**
 * The comment form's refusal that error is, if any: the rule's, or Fastify's while it read the
 * body (over the route's body limit, or cut short: a 400 of its own).
 */
function formRefusal(error) {
  if (error instanceof FormError) return error
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return FORM_TOO_LARGE
  if (error.statusCode >= 400 && error.statusCode < 500) return FORM_MALFORMED
  return null
}
// endregion
