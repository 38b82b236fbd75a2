"""The environment parsed as go-shared/workload/config.go and workload::Config parse it."""

import pytest

from blog.config import ConfigError, Settings, from_env


def test_defaults():
    assert from_env({}) == Settings(
        database_url="postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable",
        redis_url="redis://127.0.0.1:6379/0",
        host="127.0.0.1",
        port=8080,
        workers=4,
        pool_max=16,
        pool_min=4,
        ping_on_acquire="idle",
    )


def test_values():
    environ = {
        "WORKERS": "2",
        "BIND": "127.0.0.1:9000",
        "POOL_MAX": "+8",
        "POOL_MIN": "8",
        "DATABASE_URL": "postgres://x@h/db",
        "REDIS_URL": "redis://h:1/2",
        "PING_ON_ACQUIRE": "never",
    }
    assert from_env(environ) == Settings(
        database_url="postgres://x@h/db",
        redis_url="redis://h:1/2",
        host="127.0.0.1",
        port=9000,
        workers=2,
        pool_max=8,
        pool_min=8,
        ping_on_acquire="never",
    )


def test_an_empty_value_is_a_value():
    assert from_env({"DATABASE_URL": ""}).database_url == ""
    with pytest.raises(ConfigError, match=r"^WORKERS"):
        from_env({"WORKERS": ""})


def test_the_largest_numbers_are_those_of_a_u32():
    assert from_env({"POOL_MAX": "4294967295"}).pool_max == 2**32 - 1


def test_bind_takes_an_ipv6_address():
    settings = from_env({"BIND": "[::1]:8081"})
    assert (settings.host, settings.port) == ("::1", 8081)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("WORKERS", "four"),
        ("WORKERS", ""),
        ("WORKERS", "-1"),
        ("WORKERS", "+"),
        ("WORKERS", " 4"),
        ("WORKERS", "4\n"),
        ("WORKERS", "1_000"),
        ("WORKERS", "٤"),  # an Arabic-Indic digit: Python's int() would take it
        ("POOL_MAX", "0"),
        ("POOL_MAX", "4294967296"),
        ("POOL_MIN", "1.5"),
        ("POOL_MIN", "20"),  # more than POOL_MAX's 16
        ("PING_ON_ACQUIRE", "1"),
        ("PING_ON_ACQUIRE", ""),
        ("DATABASE_URL", "mysql://blogbench@127.0.0.1/blogbench"),
        ("REDIS_URL", ""),
        ("REDIS_URL", "http://127.0.0.1:6379"),
        ("BIND", "127.0.0.1"),
        ("BIND", "127.0.0.1:http"),
        ("BIND", "127.0.0.1:65536"),
    ],
)
def test_a_bad_value_is_refused_by_name(name, value):
    with pytest.raises(ConfigError, match=rf"^{name}"):
        from_env({name: value})


@pytest.mark.parametrize(
    ("workers", "pool_min", "pool_max", "share"),
    [
        (1, 4, 16, (4, 16)),
        (4, 4, 16, (1, 4)),
        (3, 4, 16, (1, 5)),
        (4, 2, 2, (0, 1)),
    ],
)
def test_each_worker_gets_its_share_of_the_pool(workers, pool_min, pool_max, share):
    environ = {"WORKERS": str(workers), "POOL_MIN": str(pool_min), "POOL_MAX": str(pool_max)}
    assert from_env(environ).pool_share() == share
