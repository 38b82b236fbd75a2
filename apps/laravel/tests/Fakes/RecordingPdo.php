<?php

namespace Tests\Fakes;

/** The transaction calls Laravel makes on a connection's PDO, recorded. */
class RecordingPdo
{
    public function __construct(private readonly RecordingConnection $connection)
    {
    }

    public function beginTransaction(): bool
    {
        $this->connection->sent[] = 'BEGIN';

        return true;
    }

    public function commit(): bool
    {
        $this->connection->sent[] = 'COMMIT';

        return true;
    }

    public function rollBack(): bool
    {
        $this->connection->sent[] = 'ROLLBACK';

        return true;
    }
}
