import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  DEFAULT_N,
  FORM_LIMIT,
  FORM_TOO_LARGE,
  FormError,
  isForm,
  isSlug,
  parseComment,
  parseN,
  sumOfPrimesBelow,
} from '../src/rules.js'
import { readShared } from './vectors.js'

/** A percent-encoded segment as its bytes, one character per byte (latin1). */
function decodeSegment(encoded) {
  return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)))
}

test('isSlug decides every shared slug vector', () => {
  const vectors = readShared('workload/testdata/slugs.json')
  assert.ok(vectors.length >= 30, `only ${vectors.length} vectors`)
  for (const [encoded, want] of vectors) {
    assert.equal(isSlug(decodeSegment(encoded)), want, `segment ${encoded}`)
  }
})

test('parseN reads every shared /compute query as Go does', () => {
  const vectors = readShared('workload/testdata/compute-queries.json')
  assert.ok(vectors.length >= 20, `only ${vectors.length} vectors`)
  for (const [query, want] of vectors) {
    assert.equal(parseN(query), want, `query ${JSON.stringify(query)}`)
  }
})

test('sumOfPrimesBelow adds the primes below n', () => {
  assert.equal(sumOfPrimesBelow(2), 0)
  assert.equal(sumOfPrimesBelow(3), 2)
  assert.equal(sumOfPrimesBelow(10), 2 + 3 + 5 + 7)
  assert.equal(sumOfPrimesBelow(12), 2 + 3 + 5 + 7 + 11)
  assert.equal(sumOfPrimesBelow(DEFAULT_N), 21171191)
  assert.equal(sumOfPrimesBelow(1_000_000), 37550402023)
})

test('parseComment decides every shared comment form', () => {
  const vectors = readShared('workload/testdata/comment-forms.json')
  assert.ok(vectors.length >= 30, `only ${vectors.length} vectors`)
  for (const [form, want] of vectors) {
    const body = Buffer.from(form, 'utf8')
    if ('error' in want) {
      assert.throws(
        () => parseComment(body),
        (error) =>
          error instanceof FormError && error.status === 400 && error.message === want.error,
        `form ${JSON.stringify(form)}`,
      )
    } else {
      assert.deepEqual(
        parseComment(body),
        { authorName: want.author_name, body: want.body },
        `form ${JSON.stringify(form)}`,
      )
    }
  }
})

test('parseComment refuses raw invalid UTF-8, which no escape hides', () => {
  const body = Buffer.concat([Buffer.from('author_name=Ana&body=caf'), Buffer.from([0xe9])])
  assert.throws(() => parseComment(body), { message: 'body must be valid UTF-8\n' })
})

test('parseComment trims what Go trims, not what JavaScript trims', () => {
  const form = (body) => Buffer.from(`author_name=Ana&body=${body}`)
  assert.equal(parseComment(form('%C2%85x%C2%85')).body, 'x') // U+0085, JavaScript keeps it
  assert.equal(parseComment(form('%EF%BB%BFx')).body, '\uFEFFx') // U+FEFF, JavaScript trims it
})

test('parseComment limits the form to 16 KiB', () => {
  const form = (n) => Buffer.from(`author_name=a&body=${'b'.repeat(n - 19)}`)
  assert.throws(
    () => parseComment(form(FORM_LIMIT + 1)),
    (error) => error === FORM_TOO_LARGE,
  )
  assert.throws(() => parseComment(form(FORM_LIMIT)), {
    message: 'body must be at most 2000 characters\n',
  })
})

test('isForm accepts the form media type in any case, with parameters', () => {
  for (const value of [
    'application/x-www-form-urlencoded',
    'Application/X-WWW-Form-URLEncoded',
    'application/x-www-form-urlencoded; charset=UTF-8',
    ' application/x-www-form-urlencoded\t;charset=utf-8',
  ]) {
    assert.equal(isForm(value), true, value)
  }
  for (const value of [
    undefined,
    '',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencodedx',
    'application/json',
  ]) {
    assert.equal(isForm(value), false, value)
  }
})
