<?php

namespace Tests;

use Illuminate\Foundation\Testing\TestCase as BaseTestCase;

abstract class TestCase extends BaseTestCase
{
    use CreatesApplication;

    /**
     * The decoded JSON of a file of the repository this app lives in, which
     * holds the single sources its tests compare with (shared-sql/queries.json,
     * templates/testdata, workload/testdata).
     */
    public static function shared(string $path): mixed
    {
        $file = __DIR__ . '/../../../' . $path;

        return json_decode((string) file_get_contents($file), true, 512, JSON_THROW_ON_ERROR);
    }
}
