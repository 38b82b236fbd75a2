<?php

// The application's autoloader, and Tests\ in tests/ (a skeleton's autoload-dev).
require __DIR__ . '/../bootstrap/autoload.php';

spl_autoload_register(function (string $class): void {
    if (str_starts_with($class, 'Tests\\')) {
        $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, 6)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
