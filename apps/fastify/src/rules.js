// The rules every blogbench app applies alike, this app's copy of go-shared/workload: the slug
// rule (docs/spec.md §3.1), /compute's function and query rule (§3.6), the comment form's rule
// (§3.9) and the plain-text bodies of §3.8. test/rules.test.js checks them against the shared
// vectors in workload/testdata/.
import { isUtf8 } from 'node:buffer'

export const DB_UNAVAILABLE_MESSAGE = 'database unavailable\n'
export const INTERNAL_ERROR_MESSAGE = 'internal server error\n'

const MAX_SLUG_LENGTH = 100

/**
 * Whether a decoded path segment may be a slug: 1 to 100 bytes, each a-z, 0-9 or '-'. Anything
 * else gets the 404 page before any query: PostgreSQL rejects a NUL or invalid UTF-8 in a text
 * parameter, which would otherwise read as an outage.
 */
export function isSlug(segment) {
  return segment.length <= MAX_SLUG_LENGTH && /^[a-z0-9-]+$/.test(segment)
}

export const DEFAULT_N = 20000
export const BAD_N_MESSAGE = 'n must be an integer from 2 to 1000000\n'

/**
 * The n of a /compute query string (what follows '?'), by Go's url.ParseQuery rule: the first
 * decodable `n` decides and must be an integer from 2 to 1 000 000 with an optional sign; with
 * no `n`, the default, unless a piece was undecodable. Null for a bad n or a bad query.
 */
export function parseN(rawQuery) {
  let undecodable = false
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue
    // A ';' makes a piece undecodable, as a bad escape does.
    const [key, value] = piece.includes(';') ? [null, null] : splitPair(piece)
    if (key === null || value === null) {
      undecodable = true
    } else if (key === 'n') {
      const n = /^[+-]?[0-9]+$/.test(value) ? Number(value) : NaN
      return n >= 2 && n <= 1_000_000 ? n : null
    }
  }
  return undecodable ? null : DEFAULT_N
}

/** The sum of the primes below n by trial division, on every call: the work is the point. */
export function sumOfPrimesBelow(n) {
  let sum = 0
  for (let i = 2; i < n; i++) {
    let prime = true
    for (let d = 2; d * d <= i; d++) {
      if (i % d === 0) {
        prime = false
        break
      }
    }
    if (prime) sum += i
  }
  return sum
}

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded'
export const FORM_LIMIT = 16 * 1024 // bytes
const AUTHOR_MAX_CHARS = 80 // after trimming
const BODY_MAX_CHARS = 2000 // after trimming

/** A request that is not a valid comment: a 4xx with a plain-text body, and no query. */
export class FormError extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}

// The refusals of the whole form, in the order the comment route checks them.
export const NOT_A_FORM = new FormError(
  415,
  'a comment must be sent as application/x-www-form-urlencoded\n',
)
export const FORM_TOO_LARGE = new FormError(413, 'a comment form must be at most 16384 bytes\n')
export const FORM_MALFORMED = new FormError(400, 'the comment form is not valid form encoding\n')

/**
 * Whether a Content-Type value names a form: its media type (before any ';', without
 * surrounding spaces or tabs) is application/x-www-form-urlencoded in any ASCII case.
 */
export function isForm(contentType) {
  if (contentType === undefined) return false
  const mediaType = contentType.split(';', 1)[0].replace(/^[ \t]+|[ \t]+$/g, '')
  return asciiLower(mediaType) === FORM_CONTENT_TYPE
}

/**
 * The comment in a form body (a Buffer), its fields trimmed, or a FormError: pieces split on
 * '&' (empty ones skipped) and at the first '='; '+' is a space and %XX a byte; a bad escape
 * anywhere makes the form malformed; the first author_name and the first body count, and are
 * checked in that order.
 */
export function parseComment(body) {
  if (body.length > FORM_LIMIT) throw FORM_TOO_LARGE
  let author
  let text
  // latin1 maps each byte to one character, so the form is split and unescaped byte by byte.
  for (const piece of body.toString('latin1').split('&')) {
    if (piece === '') continue
    const [key, value] = splitPair(piece)
    if (key === null || value === null) throw FORM_MALFORMED
    if (key === 'author_name') author ??= value
    else if (key === 'body') text ??= value
  }
  return {
    authorName: checkField('author_name', AUTHOR_MAX_CHARS, author),
    body: checkField('body', BODY_MAX_CHARS, text),
  }
}

/** The trimmed value: present, UTF-8, free of NUL, not blank, at most maxChars characters. */
function checkField(name, maxChars, bytes) {
  if (bytes === undefined) throw new FormError(400, `${name} is required\n`)
  const raw = Buffer.from(bytes, 'latin1')
  if (!isUtf8(raw)) throw new FormError(400, `${name} must be valid UTF-8\n`)
  const value = raw.toString('utf8')
  if (value.includes('\0')) throw new FormError(400, `${name} must not contain NUL characters\n`)
  const trimmed = trimSpace(value)
  if (trimmed === '') throw new FormError(400, `${name} is required\n`)
  // Counted in code points (Go counts runes), not UTF-16 units.
  if ([...trimmed].length > maxChars) {
    throw new FormError(400, `${name} must be at most ${maxChars} characters\n`)
  }
  return trimmed
}

/** A query piece's key and value, each unescaped (null when it cannot be). */
function splitPair(piece) {
  const eq = piece.indexOf('=')
  if (eq === -1) return [unescapeQuery(piece), '']
  return [unescapeQuery(piece.slice(0, eq)), unescapeQuery(piece.slice(eq + 1))]
}

/** Go's url.QueryUnescape on a byte string: '+' is a space, %XX a byte, any other '%' null. */
function unescapeQuery(text) {
  if (!text.includes('%') && !text.includes('+')) return text
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '+') {
      out += ' '
    } else if (c !== '%') {
      out += c
    } else if (/^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      return null
    }
  }
  return out
}

// Unicode White_Space, what Go's strings.TrimSpace trims. JavaScript's trim() differs: it also
// trims U+FEFF and keeps U+0085.
const SPACE =
  '\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000'
const SURROUNDING_SPACE = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g')

function trimSpace(text) {
  return text.replace(SURROUNDING_SPACE, '')
}

function asciiLower(text) {
  return text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))
}
