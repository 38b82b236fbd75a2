<?php

use Monolog\Handler\StreamHandler;

return [

    /*
    |--------------------------------------------------------------------------
    | Log Channels
    |--------------------------------------------------------------------------
    |
    | Warnings and errors to standard error, which PHP-FPM passes on to its
    | own (the run's) standard error. Deprecation notices are dropped: Debian's
    | Laravel 8 on PHP 8.2 would log one for each deprecated call.
    |
    */

    'default' => 'stderr',

    'deprecations' => 'null',

    'channels' => [

        'stderr' => [
            'driver' => 'monolog',
            'handler' => StreamHandler::class,
            'with' => [
                'stream' => 'php://stderr',
            ],
            'level' => 'warning',
        ],

        'null' => [
            'driver' => 'monolog',
            'handler' => Monolog\Handler\NullHandler::class,
        ],

    ],

];
