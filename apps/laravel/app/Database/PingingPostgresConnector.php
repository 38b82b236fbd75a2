<?php

namespace App\Database;

use Illuminate\Database\Connectors\PostgresConnector;
use PDO;
use PDOException;

/**
 * Laravel's PostgreSQL connector with PING_ON_ACQUIRE=always (docs/spec.md
 * §1): the connection a request takes up, its worker's persistent one, is
 * pinged before the first statement, and reopened when the ping fails.
 *
 * With idle (the contract's default) and never there is no ping: a worker
 * keeps no memory from one request to the next, so it cannot tell how long its
 * connection idled. A connection a PostgreSQL restart left dead fails its
 * first statement instead, which Laravel runs again once on a new connection
 * (Illuminate\Database\Connection::tryAgainIfCausedByLostConnection; in a
 * transaction, handleBeginTransactionException), so no request fails for it.
 */
class PingingPostgresConnector extends PostgresConnector
{
    // region: pool
    /**
     * @param  array<string, mixed>  $config
     */
    public function connect(array $config): PDO
    {
        $connection = parent::connect($config);
        if (($config['ping_on_acquire'] ?? 'idle') !== 'always') {
            return $connection;
        }
        try {
            $connection->query('SELECT 1');
        } catch (PDOException) {
            // The failed ping marked the persistent handle broken; PDO's
            // liveness check now resets it (libpq's PQreset) as it is reopened.
            $connection = parent::connect($config);
        }

        return $connection;
    }
    // endregion
}
