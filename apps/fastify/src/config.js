// The environment every blogbench app reads (docs/spec.md §1), parsed as
// go-shared/workload/config.go parses it: an unset variable takes its default, a variable set
// even to the empty string is a value, and a bad value stops the app at start-up with a message
// that names the variable.

export const DEFAULTS = Object.freeze({
  databaseUrl: 'postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable',
  redisUrl: 'redis://127.0.0.1:6379/0',
  bind: '127.0.0.1:8080',
  workers: 4,
  poolMax: 16,
  poolMin: 4,
  pingOnAcquire: 'idle',
})

const PING_SETTINGS = ['always', 'idle', 'never']
const MAX_U32 = 2 ** 32 - 1

export class ConfigError extends Error {}

/** The settings in env (process.env, or an object in tests). */
export function loadConfig(env) {
  const text = (name, fallback) => env[name] ?? fallback
  const config = {
    databaseUrl: url(env, 'DATABASE_URL', DEFAULTS.databaseUrl),
    redisUrl: url(env, 'REDIS_URL', DEFAULTS.redisUrl),
    bind: text('BIND', DEFAULTS.bind),
    workers: positive(env, 'WORKERS', DEFAULTS.workers),
    poolMax: positive(env, 'POOL_MAX', DEFAULTS.poolMax),
    poolMin: positive(env, 'POOL_MIN', DEFAULTS.poolMin),
    pingOnAcquire: text('PING_ON_ACQUIRE', DEFAULTS.pingOnAcquire),
  }
  if (!PING_SETTINGS.includes(config.pingOnAcquire)) {
    throw new ConfigError(
      `PING_ON_ACQUIRE must be always, idle or never, got ${JSON.stringify(config.pingOnAcquire)}`,
    )
  }
  if (config.poolMin > config.poolMax) {
    throw new ConfigError(
      `POOL_MIN (${config.poolMin}) must not exceed POOL_MAX (${config.poolMax})`,
    )
  }
  config.listen = hostAndPort(config.bind)
  return config
}

/**
 * Worker `worker`'s share of `total` pool connections when each of `workers` workers has a pool
 * of its own: total / workers, one more for each of the first total % workers workers, so the
 * shares add up to total (16 over 3: 6, 5, 5), as workload::pool_shard splits them.
 */
export function poolShare(total, workers, worker) {
  return Math.floor(total / workers) + (worker < total % workers ? 1 : 0)
}

/** A u32 above zero, as Rust's str::parse::<u32> reads it: decimal digits after an optional '+'. */
function positive(env, name, fallback) {
  const value = env[name]
  if (value === undefined) return fallback
  const digits = value.startsWith('+') ? value.slice(1) : value
  const n = /^[0-9]+$/.test(digits) ? Number(digits) : NaN
  if (!(n >= 1 && n <= MAX_U32)) {
    throw new ConfigError(`${name} must be a positive integer, got ${JSON.stringify(value)}`)
  }
  return n
}

function url(env, name, fallback) {
  const value = env[name] ?? fallback
  if (!URL.canParse(value)) {
    throw new ConfigError(`${name} must be a URL, got ${JSON.stringify(value)}`)
  }
  return value
}

/** BIND as Go's net.Listen reads "host:port": an empty host (":8080") is every address. */
function hostAndPort(bind) {
  const colon = bind.lastIndexOf(':')
  const host = bind.slice(0, colon).replace(/^\[(.*)\]$/, '$1')
  const port = bind.slice(colon + 1)
  if (colon === -1 || !/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) {
    throw new ConfigError(`BIND must be host:port, got ${JSON.stringify(bind)}`)
  }
  return { host: host === '' ? '::' : host, port: Number(port) }
}
