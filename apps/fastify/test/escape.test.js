import assert from 'node:assert/strict'
import { test } from 'node:test'
import { escapeHtml } from '../src/escape.js'
import { readShared } from './vectors.js'

test('escapeHtml escapes as Go html/template does, for every shared vector', () => {
  const vectors = readShared('templates/testdata/escape-vectors.json')
  assert.ok(vectors.length >= 10, `only ${vectors.length} vectors`)
  for (const [input, want] of vectors) {
    assert.equal(escapeHtml(input), want, `escaping ${JSON.stringify(input)}`)
  }
})

test('escapeHtml prints numbers as they are', () => {
  assert.equal(escapeHtml(0), '0')
  assert.equal(escapeHtml('12'), '12')
})
