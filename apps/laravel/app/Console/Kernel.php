<?php

namespace App\Console;

use Illuminate\Foundation\Console\Kernel as ConsoleKernel;

class Kernel extends ConsoleKernel
{
    /**
     * The Artisan commands provided by your application, listed: load() would
     * find them through composer.json, which a Debian install has none of.
     *
     * @var array<int, class-string>
     */
    protected $commands = [
        Commands\ServeCommand::class,
    ];
}
