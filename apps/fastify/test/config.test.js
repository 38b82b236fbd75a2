import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULTS, loadConfig, poolShare } from '../src/config.js'

test('unset variables take the defaults of docs/spec.md §1', () => {
  assert.deepEqual(loadConfig({}), {
    ...DEFAULTS,
    databaseUrl: 'postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable',
    redisUrl: 'redis://127.0.0.1:6379/0',
    bind: '127.0.0.1:8080',
    workers: 4,
    poolMax: 16,
    poolMin: 4,
    pingOnAcquire: 'idle',
    listen: { host: '127.0.0.1', port: 8080 },
  })
})

test('set variables are read, a leading + included', () => {
  const config = loadConfig({
    WORKERS: '2',
    BIND: '[::1]:9000',
    POOL_MAX: '+8',
    POOL_MIN: '8',
    DATABASE_URL: 'postgres://x@h/db',
    REDIS_URL: 'redis://h:1/2',
    PING_ON_ACQUIRE: 'never',
  })
  assert.equal(config.workers, 2)
  assert.equal(config.poolMax, 8)
  assert.equal(config.poolMin, 8)
  assert.equal(config.databaseUrl, 'postgres://x@h/db')
  assert.equal(config.redisUrl, 'redis://h:1/2')
  assert.equal(config.pingOnAcquire, 'never')
  assert.deepEqual(config.listen, { host: '::1', port: 9000 })
  assert.equal(loadConfig({ POOL_MAX: '4294967295' }).poolMax, 2 ** 32 - 1)
  assert.deepEqual(loadConfig({ BIND: ':8080' }).listen, { host: '::', port: 8080 })
})

test('a bad value is refused with a message that names the variable', () => {
  const cases = [
    ['WORKERS', 'four'],
    ['WORKERS', ''], // set but empty is a value, and not a number
    ['WORKERS', '-1'],
    ['WORKERS', '++1'],
    ['WORKERS', ' 1'],
    ['POOL_MAX', '0'],
    ['POOL_MAX', '4294967296'],
    ['POOL_MIN', '1.5'],
    ['POOL_MIN', '20'], // more than POOL_MAX's 16
    ['PING_ON_ACQUIRE', '1'],
    ['PING_ON_ACQUIRE', ''],
    ['BIND', '127.0.0.1'],
    ['BIND', '127.0.0.1:http'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', ''],
  ]
  for (const [name, value] of cases) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (error) => error.message.startsWith(name),
      `${name}=${JSON.stringify(value)}`,
    )
  }
})

test('each worker takes its share of the pool, the shares adding up to the whole', () => {
  const shares = (total, workers) =>
    [...Array(workers).keys()].map((w) => poolShare(total, workers, w))
  assert.deepEqual(shares(16, 1), [16])
  assert.deepEqual(shares(16, 3), [6, 5, 5])
  assert.deepEqual(shares(4, 3), [2, 1, 1])
  assert.deepEqual(shares(2, 4), [1, 1, 0, 0])
})
