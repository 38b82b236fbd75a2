<?php

namespace Tests\Fakes;

use Illuminate\Database\Connection;
use Tests\TestCase;

/**
 * A database connection that answers each statement with canned rows and
 * records what was sent, by its name in shared-sql/queries.json (BEGIN,
 * COMMIT and ROLLBACK as such). The name is looked up by the text PostgreSQL
 * receives: PDO writes each "?" as $1, $2, ... in order.
 */
class RecordingConnection extends Connection
{
    /** @var list<string> */
    public array $sent = [];

    /** @var array<string, string> shared-sql's text => name */
    private array $names;

    /**
     * @param  array<string, list<object>>  $answers  rows by statement name
     */
    public function __construct(private readonly array $answers)
    {
        $this->names = array_flip(TestCase::shared('shared-sql/queries.json'));
        parent::__construct(new RecordingPdo($this));
    }

    public static function postgresText(string $sql): string
    {
        $n = 0;

        return preg_replace_callback('/\?/', function () use (&$n) {
            return '$' . ++$n;
        }, $sql);
    }

    public function select($query, $bindings = [], $useReadPdo = true)
    {
        return $this->answers[$this->record($query)] ?? [];
    }

    public function insert($query, $bindings = [])
    {
        $this->record($query);

        return true;
    }

    private function record(string $query): string
    {
        $text = self::postgresText($query);
        if (!isset($this->names[$text])) {
            throw new \LogicException("SQL text not in shared-sql/queries.json: {$text}");
        }
        $this->sent[] = $this->names[$text];

        return $this->names[$text];
    }
}
