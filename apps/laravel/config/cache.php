<?php

return [

    /*
    |--------------------------------------------------------------------------
    | Default Cache Store
    |--------------------------------------------------------------------------
    |
    | Artisan's commands need a cache store to exist (cache:clear among them);
    | the blog caches nothing through it. Its page cache is Redis itself
    | (App\Blog\PageCache), as the contract's keys and values are not a Laravel
    | cache store's.
    |
    */

    'default' => 'array',

    'stores' => [

        'array' => [
            'driver' => 'array',
            'serialize' => false,
        ],

    ],

];
