//! Where PostgreSQL and Redis are: the same environment variables and defaults the apps read.

pub fn database_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| workload::DEFAULT_DATABASE_URL.to_owned())
}

pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| workload::DEFAULT_REDIS_URL.to_owned())
}

/// `host:port` of a `scheme://[user[:password]@]host:port[/…]` URL.
pub fn host_port(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, rest)| rest);
    rest.split(['/', '?']).next().unwrap_or(rest)
}

/// `url` with its `host:port` replaced by `addr` (to route an app through a relay).
pub fn with_host_port(url: &str, addr: &str) -> String {
    url.replacen(host_port(url), addr, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_replaces_host_and_port() {
        let url = "postgres://u:p@127.0.0.1:5432/blogbench?sslmode=disable";
        assert_eq!(host_port(url), "127.0.0.1:5432");
        assert_eq!(host_port("redis://127.0.0.1:6379/0"), "127.0.0.1:6379");
        assert_eq!(
            with_host_port(url, "127.0.0.1:40000"),
            "postgres://u:p@127.0.0.1:40000/blogbench?sslmode=disable"
        );
    }
}
