<?php

/*
|--------------------------------------------------------------------------
| Register The Auto Loader
|--------------------------------------------------------------------------
|
| What Composer's vendor/autoload.php is to a Laravel application installed
| from Packagist: Debian's php-laravel-framework brings its own class map
| for Illuminate and its dependencies (/usr/share/php/Illuminate/autoload.php,
| found through PHP's include_path), and this application's classes are
| loaded by the PSR-4 rule a Laravel skeleton's composer.json declares:
| App\ lives in app/.
|
| A run (`php artisan blog:serve`) also gives its PHP-FPM workers one class
| map of every class under /usr/share/php and in app/ (BLOG_CLASS_MAP), made
| by Composer's own class-map generator: the analog of Composer's optimized
| autoloader (`composer install --optimize-autoloader`), which Laravel's
| deployment guide asks for. Debian's class maps are one autoloader per
| library, some sixty, which each class asks in turn.
|
*/

$classMap = getenv('BLOG_CLASS_MAP');
if ($classMap !== false && is_file($classMap)) {
    $classes = require $classMap;
    spl_autoload_register(function (string $class) use ($classes): void {
        if (isset($classes[$class])) {
            require $classes[$class];
        }
    });
}
unset($classMap, $classes);

require_once 'Illuminate/autoload.php';

spl_autoload_register(function (string $class): void {
    if (str_starts_with($class, 'App\\')) {
        $file = __DIR__ . '/../app/' . str_replace('\\', '/', substr($class, 4)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
