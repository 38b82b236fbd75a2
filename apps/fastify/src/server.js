// The entry point: reads the environment (docs/spec.md §1), then serves the blog in one process
// (WORKERS=1) or in WORKERS cluster workers that share the listening socket, each with its own
// share of the pool; stops on SIGTERM and Ctrl-C.
import cluster from 'node:cluster'
import { buildApp } from './app.js'
import { PageCache } from './cache.js'
import { loadConfig, poolShare } from './config.js'
import { Database } from './db.js'

const NAME = 'fastify'

let config
try {
  config = loadConfig(process.env)
} catch (error) {
  console.error(`${NAME}: ${error.message}`)
  process.exit(2)
}

if (config.workers > 1 && cluster.isPrimary) {
  superviseWorkers(config.workers)
} else {
  await serve(Number(process.env.BLOGBENCH_WORKER ?? 0))
}

/** Serves as worker number `worker` of config.workers. */
async function serve(worker) {
  // region: pool
  // Each worker has a pool of its own; the shares add up to POOL_MAX and POOL_MIN.
  const db = new Database({
    connectionString: config.databaseUrl,
    max: Math.max(1, poolShare(config.poolMax, config.workers, worker)),
    min: poolShare(config.poolMin, config.workers, worker),
    pingOnAcquire: config.pingOnAcquire,
  })
  // endregion
  const app = await buildApp({ db, pageCache: new PageCache(config.redisUrl) })
  try {
    await app.listen(config.listen)
  } catch (error) {
    console.error(`${NAME}: BIND: ${error.message}`)
    process.exit(1)
  }
  if (worker === 0) console.log(`${NAME} listening on http://${config.bind}/`)
  let stopping
  const stop = () => {
    // Stop accepting, let the requests in flight finish, close the pools, then exit.
    stopping ??= app.close().then(() => process.exit(0))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/**
 * The cluster primary: starts the workers, each told its number, and stops them on SIGTERM or
 * Ctrl-C. A worker that dies takes the app down with it, as a crash of one process would.
 */
function superviseWorkers(count) {
  let running = count
  let exitCode = null // set once the workers are being stopped
  const stop = (code) => {
    exitCode ??= code
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM')
  }
  cluster.on('exit', (worker, code, signal) => {
    running--
    if (exitCode === null) {
      console.error(`${NAME}: worker ${worker.process.pid} died (${signal ?? code}), stopping`)
      stop(1)
    }
    if (running === 0) process.exit(exitCode)
  })
  for (let worker = 0; worker < count; worker++) {
    cluster.fork({ BLOGBENCH_WORKER: String(worker) })
  }
  process.once('SIGTERM', () => stop(0))
  process.once('SIGINT', () => stop(0))
}
