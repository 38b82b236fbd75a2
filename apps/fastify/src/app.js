// The Fastify app: its plugins, its error and not-found handlers, and its routes at a glance.
import { fileURLToPath } from 'node:url'
import fastifyView from '@fastify/view'
import { Eta } from 'eta'
import Fastify from 'fastify'
import { escapeHtml } from './escape.js'
import {
  addComment,
  answerError,
  answerNotFound,
  cachedHomePage,
  cachedPostPage,
  compute,
  homePage,
  postPage,
  requireForm,
  requireSlug,
  tagPage,
} from './handlers.js'
import { FORM_CONTENT_TYPE, FORM_LIMIT } from './rules.js'

const VIEWS = fileURLToPath(new URL('../views', import.meta.url))
const HEADER_TIMEOUT_MS = 10_000

/** The app serving the blog from db (a Database) and pageCache (a PageCache). */
export async function buildApp({ db, pageCache }) {
  const app = Fastify({
    logger: false, // no access log
    // A client gets 10 s to send a request's header (docs/spec.md §1). Node checks the limit
    // every connectionsCheckingInterval (30 s by default), so a connection that sends nothing
    // is closed 10 to 11 s after it opened.
    http: { headersTimeout: HEADER_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    // A path the router cannot decode (invalid UTF-8 in an escape) or whose {slug} is over
    // 100 bytes: the 404 page, as for any other segment that cannot be a slug.
    frameworkErrors: (error, request, reply) => answerNotFound(request, reply),
  })
  app.decorate('db', db)
  app.decorate('pageCache', pageCache)

  await app.register(fastifyView, {
    // Eta with Go's html/template escaper. Its default autoTrim, kept here, drops the newline
    // after a tag, so a line holding only a tag prints nothing: the templates rely on it.
    engine: { eta: new Eta({ escapeFunction: escapeHtml, autoTrim: [false, 'nl'] }) },
    root: VIEWS,
    production: true, // compile each template once (by default only when NODE_ENV=production)
  })
  app.decorate('notFoundPage', await app.view('not_found'))

  // The comment form is read as bytes, up to the route's bodyLimit, and decoded by the comment
  // rule, which must refuse invalid UTF-8: @fastify/formbody would hand on body.toString(),
  // where it has already become U+FFFD.
  app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'buffer' }, (request, body, done) =>
    done(null, body),
  )
  app.setNotFoundHandler(answerNotFound)
  app.setErrorHandler(answerError)
  app.addHook('onClose', async () => {
    await Promise.all([db.close(), pageCache.close()])
  })

  app.get('/', homePage)
  app.get('/posts/:slug', { onRequest: requireSlug }, postPage)
  app.get('/tags/:slug', { onRequest: requireSlug }, tagPage)
  app.get('/cached/', cachedHomePage)
  app.get('/cached/posts/:slug', { onRequest: requireSlug }, cachedPostPage)
  app.get('/compute', compute)
  app.post(
    '/posts/:slug/comments',
    { onRequest: [requireSlug, requireForm], bodyLimit: FORM_LIMIT },
    addComment,
  )
  return app
}
