<?php

use App\Blog\Settings;

return [

    /*
    |--------------------------------------------------------------------------
    | Default Database Connection Name
    |--------------------------------------------------------------------------
    */

    'default' => 'pgsql',

    /*
    |--------------------------------------------------------------------------
    | Database Connections
    |--------------------------------------------------------------------------
    |
    | PostgreSQL at DATABASE_URL (docs/spec.md §1), through pdo_pgsql. Each
    | PHP-FPM worker keeps one persistent connection, so a request reuses the
    | connection its worker opened before instead of connecting anew; the
    | workers are at most POOL_MAX. No charset, timezone or schema: Laravel
    | would send a statement for each on every connect (PostgresConnector),
    | and with persistent connections that is every request.
    |
    */

    'connections' => [

        // region: pool
        'pgsql' => [
            'driver' => 'pgsql',
            'url' => env('DATABASE_URL', Settings::DEFAULT_DATABASE_URL),
            'prefix' => '',
            'options' => [
                PDO::ATTR_PERSISTENT => true,
                // One round trip per statement: the unnamed statement of the
                // extended protocol (PQexecParams), where a named prepared
                // statement costs a DEALLOCATE round trip when PDO frees it.
                PDO::PGSQL_ATTR_DISABLE_PREPARES => true,
                // libpq's connect_timeout, in whole seconds (it reads 1 as 2).
                PDO::ATTR_TIMEOUT => 2,
            ],
            'ping_on_acquire' => env('PING_ON_ACQUIRE', 'idle'),
        ],
        // endregion

    ],

    /*
    |--------------------------------------------------------------------------
    | Redis Databases
    |--------------------------------------------------------------------------
    |
    | The page cache's Redis at REDIS_URL, through phpredis: a persistent
    | connection per worker, 250 ms to connect and 1 s per reply (docs/spec.md
    | §1), and no key prefix, so the keys are the contract's page:*. Database
    | 0 is where a connection starts; named in the URL, PhpRedisConnector
    | would SELECT it on every connect, which is every request.
    |
    */

    'redis' => [

        'client' => 'phpredis',

        'options' => [],

        'default' => [
            'url' => preg_replace('#/0$#', '', env('REDIS_URL', Settings::DEFAULT_REDIS_URL)),
            'timeout' => 0.25,
            'read_timeout' => 1.0,
            'persistent' => true,
        ],

    ],

];
