#!/usr/bin/env bash
# Bring up PostgreSQL and Redis for blogbench natively from Debian's packages (no Docker,
# no systemd required). Called by `make services`.
#
#   scripts/services.sh [up]    install if missing (root only), start if stopped, ensure role + db
#   scripts/services.sh status  report; exit 1 if not ready
#   scripts/services.sh stop    stop only what this script started (recorded in a state file)
#   scripts/services.sh crash postgres|redis
#                               stop one service abruptly, as an outage would (PostgreSQL: fast
#                               shutdown; Redis: SHUTDOWN NOSAVE); `up` starts it again. Used by
#                               `blogbench faults`; loopback services only
#
# Environment: DATABASE_URL (default postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable)
#              REDIS_URL    (default redis://127.0.0.1:6379/0)
#              WAIT_SECS    (default 30) how long to wait for a service to answer
#
# Safety: only database `blogbench` is ever created; the only role touched is the URL's user
# (created, or its password set). Nothing is dropped; Redis is never flushed. Services are only
# started on loopback addresses.
set -euo pipefail

readonly DEFAULT_DATABASE_URL='postgres://blogbench:blogbench@127.0.0.1:5432/blogbench?sslmode=disable'
readonly DEFAULT_REDIS_URL='redis://127.0.0.1:6379/0'
readonly PROJECT_DB='blogbench'
WAIT_SECS="${WAIT_SECS:-30}"
STATE_DIR="${XDG_STATE_HOME:-${HOME:-/root}/.local/state}/blogbench"
STATE_FILE="$STATE_DIR/services.state"

APT_UPDATED=0
IS_ROOT=0
[[ "$(id -u)" -eq 0 ]] && IS_ROOT=1

# ---------------------------------------------------------------------------------------------
# output helpers

say() { printf '%s\n' "$*"; }
warn() { printf '%s\n' "$*" >&2; }
die() { printf '%s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# state file (key=value lines) recording what this script started

# keys: postgres:VER/NAME (value "started"), redis:PORT (value service|config|port)
state_keys() { # prefix -> matching keys, one a line
    [[ -f "$STATE_FILE" ]] || return 0
    awk -F= -v p="$1" 'index($1, p) == 1 { print $1 }' "$STATE_FILE"
}

state_set() { # key [value]; an empty value removes the key
    local key="$1" value="${2:-}" tmp
    mkdir -p "$STATE_DIR"
    tmp="$(mktemp "$STATE_DIR/.state.XXXXXX")"
    if [[ -f "$STATE_FILE" ]]; then
        awk -F= -v k="$key" '$1 != k' "$STATE_FILE" >"$tmp"
    fi
    if [[ -n "$value" ]]; then printf '%s=%s\n' "$key" "$value" >>"$tmp"; fi
    mv -f "$tmp" "$STATE_FILE"
}

state_get() { # key -> value
    [[ -f "$STATE_FILE" ]] || return 0
    awk -F= -v k="$1" '$1 == k { v = substr($0, length(k) + 2) } END { printf "%s", v }' "$STATE_FILE"
}

# ---------------------------------------------------------------------------------------------
# URL parsing

urldecode() { # %XX escapes only ('+' stays '+', as libpq reads it)
    local s="${1//\\/\\\\}"
    printf '%b' "${s//%/\\x}"
}

strip_brackets() {
    local h="$1"
    h="${h#[}"
    h="${h%]}"
    printf '%s' "$h"
}

is_loopback() {
    case "$1" in
        127.0.0.1 | localhost | ::1) return 0 ;;
        *) return 1 ;;
    esac
}

# host for the "host:port" in messages
hostport() {
    if [[ "$1" == *:* ]]; then printf '[%s]:%s' "$1" "$2"; else printf '%s:%s' "$1" "$2"; fi
}

parse_database_url() {
    DATABASE_URL="${DATABASE_URL:-$DEFAULT_DATABASE_URL}"
    local re='^(postgres|postgresql)://(([^:@/]*)(:([^@/]*))?@)?(\[[^]/]+\]|[^:/?]*)(:([0-9]+))?(/([^?]*))?(\?.*)?$'
    [[ "$DATABASE_URL" =~ $re ]] ||
        die "postgres: cannot parse DATABASE_URL ($DATABASE_URL); fix: use the form postgres://USER:PASSWORD@127.0.0.1:5432/blogbench"
    PG_USER="$(urldecode "${BASH_REMATCH[3]}")"
    PG_PASS="$(urldecode "${BASH_REMATCH[5]}")"
    PG_HOST="$(strip_brackets "${BASH_REMATCH[6]}")"
    PG_PORT="${BASH_REMATCH[8]:-5432}"
    PG_DB="$(urldecode "${BASH_REMATCH[10]}")"
    [[ -n "$PG_HOST" ]] || PG_HOST=127.0.0.1
    [[ -n "$PG_USER" ]] ||
        die "postgres: DATABASE_URL has no user name; fix: use postgres://blogbench:blogbench@$(hostport "$PG_HOST" "$PG_PORT")/blogbench"
    [[ -n "$PG_PASS" ]] ||
        die "postgres: DATABASE_URL has no password (the apps log in over TCP with a password); fix: use postgres://$PG_USER:PASSWORD@$(hostport "$PG_HOST" "$PG_PORT")/blogbench"
    [[ "$PG_DB" == "$PROJECT_DB" ]] ||
        die "postgres: refusing DATABASE_URL with database '${PG_DB}': this project only ever creates and uses database '$PROJECT_DB'; fix: end DATABASE_URL with /$PROJECT_DB"
    [[ "$PG_USER" != postgres ]] ||
        die "postgres: refusing to use the superuser 'postgres' as the app role (its password would be changed); fix: use a dedicated role, e.g. postgres://blogbench:blogbench@$(hostport "$PG_HOST" "$PG_PORT")/blogbench"
    ((PG_PORT >= 1 && PG_PORT <= 65535)) || die "postgres: port $PG_PORT in DATABASE_URL is out of range; fix: use e.g. 5432"
}

parse_redis_url() {
    REDIS_URL="${REDIS_URL:-$DEFAULT_REDIS_URL}"
    local re='^redis://(([^:@/]*)(:([^@/]*))?@)?(\[[^]/]+\]|[^:/?]*)(:([0-9]+))?(/([0-9]*))?(\?.*)?$'
    [[ "$REDIS_URL" =~ $re ]] ||
        die "redis: cannot parse REDIS_URL ($REDIS_URL); fix: use the form redis://127.0.0.1:6379/0 (TLS rediss:// is not supported for a local service)"
    REDIS_PASS="$(urldecode "${BASH_REMATCH[4]}")"
    REDIS_HOST="$(strip_brackets "${BASH_REMATCH[5]}")"
    REDIS_PORT="${BASH_REMATCH[7]:-6379}"
    [[ -n "$REDIS_HOST" ]] || REDIS_HOST=127.0.0.1
    ((REDIS_PORT >= 1 && REDIS_PORT <= 65535)) || die "redis: port $REDIS_PORT in REDIS_URL is out of range; fix: use e.g. 6379"
}

# ---------------------------------------------------------------------------------------------
# generic helpers

# true if something accepts TCP connections on host:port
port_open() {
    # shellcheck disable=SC2016 # expanded by the inner bash, on purpose
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

listener_info() {
    local out
    out="$(ss -ltnp "sport = :$1" 2>/dev/null | tail -n +2 || true)"
    [[ -n "$out" ]] || out="(ss shows no listener details; run: sudo ss -ltnp 'sport = :$1')"
    printf '%s' "$out"
}

apt_install() { # service, packages...
    local svc="$1"
    shift
    if ((IS_ROOT == 0)); then
        die "$svc: not installed; fix: run  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y $*  and re-run scripts/services.sh"
    fi
    command -v apt-get >/dev/null 2>&1 ||
        die "$svc: not installed and apt-get is not available (this script targets Debian); fix: install $* with your package manager"
    if ((APT_UPDATED == 0)); then
        say "$svc: apt-get update"
        apt-get update -qq || die "$svc: apt-get update failed; fix: check network/apt sources and re-run"
        APT_UPDATED=1
    fi
    say "$svc: installing $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null ||
        die "$svc: apt-get install $* failed; fix: run  apt-get install -y $*  by hand to see why, then re-run"
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL

pg_answers() { # 0 = accepting connections
    pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 3 >/dev/null 2>&1
}

pg_bin_dir() { # newest installed server
    local d
    d="$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort -V | tail -n 1)"
    printf '%s' "$d"
}

pg_wait() {
    local i
    for ((i = 0; i < WAIT_SECS; i++)); do
        pg_answers && return 0
        sleep 1
    done
    return 1
}

# psql as the URL's role over TCP (exactly what the apps do)
app_psql() { # db, sql
    PGPASSWORD="$PG_PASS" PGCONNECT_TIMEOUT=5 psql -X -q -A -t -v ON_ERROR_STOP=1 \
        -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$1" -c "$2"
}

# psql as the postgres superuser over the local Unix socket (root only)
admin_psql() { # psql args...
    runuser -u postgres -- psql -X -q -A -t -v ON_ERROR_STOP=1 -p "$PG_PORT" "$@"
}

pg_admin_socket() {
    [[ -S "/var/run/postgresql/.s.PGSQL.$PG_PORT" ]]
}

pg_not_postgres_error() {
    die "postgres: port $PG_PORT on $PG_HOST is taken by something that is not PostgreSQL:
$(listener_info "$PG_PORT")
postgres: fix: stop that program, or point DATABASE_URL at a free port (e.g. postgres://$PG_USER:...@$(hostport "$PG_HOST" 5433)/blogbench) and create a cluster there (pg_createcluster $(basename "$(pg_bin_dir)") blogbench --port 5433 --start)"
}

pg_start_local() {
    if ! command -v pg_lsclusters >/dev/null 2>&1 || [[ -z "$(pg_bin_dir)" ]]; then
        apt_install postgres postgresql postgresql-contrib
        # the package creates and starts a cluster on a system with a working init
        if pg_answers; then
            say "postgres: installed; running on $(hostport "$PG_HOST" "$PG_PORT")"
            return 0
        fi
    fi

    local clusters ver name port status match="" others=""
    clusters="$(pg_lsclusters --no-header 2>/dev/null || true)"
    while read -r ver name port status _; do
        [[ -n "${ver:-}" ]] || continue
        if [[ "$port" == "$PG_PORT" ]]; then
            match="$ver $name $status"
        else
            others+="  $ver/$name on port $port ($status)"$'\n'
        fi
    done <<<"$clusters"

    if [[ -z "$match" && -n "$others" ]]; then
        die "postgres: no cluster is configured for port $PG_PORT (the port in DATABASE_URL); existing clusters:
${others%$'\n'}
postgres: fix: set DATABASE_URL to one of those ports (e.g. postgres://$PG_USER:...@$(hostport "$PG_HOST" "$(awk '{print $3; exit}' <<<"$clusters")")/blogbench), or move a cluster with  pg_conftool VER NAME set port $PG_PORT"
    fi

    if [[ -z "$match" ]]; then
        local bindir
        bindir="$(pg_bin_dir)"
        ver="${bindir##*/}"
        ((IS_ROOT == 1)) ||
            die "postgres: no cluster exists; fix: run  sudo pg_createcluster $ver main --port $PG_PORT --start  and re-run"
        say "postgres: creating cluster $ver/main on port $PG_PORT"
        pg_createcluster "$ver" main --port "$PG_PORT" --start >/dev/null ||
            die "postgres: pg_createcluster $ver main failed; fix: see /var/log/postgresql/postgresql-$ver-main.log"
        state_set "postgres:$ver/main" started
    else
        read -r ver name status <<<"$match"
        if [[ "$status" == online* ]]; then
            # online but pg_isready on the URL's host failed: listening elsewhere, or starting up
            if pg_isready -q -h /var/run/postgresql -p "$PG_PORT" -t 3 >/dev/null 2>&1; then
                die "postgres: cluster $ver/$name is running on port $PG_PORT but does not listen on $PG_HOST (localhost resolves to: $(getent ahosts localhost | awk '{print $1}' | sort -u | tr '\n' ' '| sed 's/ $//')); fix: use 127.0.0.1 in DATABASE_URL, or add the address to listen_addresses in /etc/postgresql/$ver/$name/postgresql.conf and restart with  pg_ctlcluster $ver $name restart"
            fi
            say "postgres: cluster $ver/$name is online, waiting for it to accept connections"
        else
            ((IS_ROOT == 1)) ||
                die "postgres: cluster $ver/$name (port $PG_PORT) is down; fix: run  sudo pg_ctlcluster $ver $name start  and re-run"
            say "postgres: starting cluster $ver/$name"
            pg_ctlcluster "$ver" "$name" start ||
                die "postgres: pg_ctlcluster $ver $name start failed; fix: see /var/log/postgresql/postgresql-$ver-$name.log"
            state_set "postgres:$ver/$name" started
        fi
    fi

    pg_wait ||
        die "postgres: cluster $ver/${name:-main} did not accept connections on $(hostport "$PG_HOST" "$PG_PORT") within ${WAIT_SECS}s; fix: check listen_addresses in /etc/postgresql/$ver/${name:-main}/postgresql.conf and the log in /var/log/postgresql/"
    say "postgres: started on $(hostport "$PG_HOST" "$PG_PORT") (cluster $ver/${name:-main})"
}

pg_ensure_running() {
    if command -v pg_isready >/dev/null 2>&1 && pg_answers; then
        say "postgres: running on $(hostport "$PG_HOST" "$PG_PORT")"
        return 0
    fi
    if ! is_loopback "$PG_HOST"; then
        command -v pg_isready >/dev/null 2>&1 ||
            die "postgres: cannot check $(hostport "$PG_HOST" "$PG_PORT"): pg_isready is missing; fix: apt-get install -y postgresql-client"
        die "postgres: no PostgreSQL answers on $(hostport "$PG_HOST" "$PG_PORT") ($(pg_isready -h "$PG_HOST" -p "$PG_PORT" -t 3 2>&1 || true)); this script only starts services on loopback; fix: start PostgreSQL on $PG_HOST, or set DATABASE_URL to postgres://$PG_USER:...@127.0.0.1:$PG_PORT/blogbench"
    fi
    if port_open "$PG_HOST" "$PG_PORT"; then
        if command -v pg_isready >/dev/null 2>&1; then
            # rc 1 = a postgres that rejects connections right now (starting up / shutting down)
            local rc=0
            pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 3 >/dev/null 2>&1 || rc=$?
            if ((rc == 1)); then
                say "postgres: server on $(hostport "$PG_HOST" "$PG_PORT") is starting up, waiting"
                pg_wait || die "postgres: server on $(hostport "$PG_HOST" "$PG_PORT") still rejects connections after ${WAIT_SECS}s; fix: check /var/log/postgresql/"
                say "postgres: running on $(hostport "$PG_HOST" "$PG_PORT")"
                return 0
            fi
            pg_not_postgres_error
        fi
        # no client tools yet: install them, then decide
        apt_install postgres postgresql postgresql-contrib
        pg_answers && { say "postgres: running on $(hostport "$PG_HOST" "$PG_PORT")"; return 0; }
        pg_not_postgres_error
    fi
    pg_start_local
}

shell_dq() { # quote for pasting into a shell, inside double quotes
    local v="$1"
    v="${v//\\/\\\\}"
    v="${v//\"/\\\"}"
    v="${v//\$/\\\$}"
    v="${v//\`/\\\`}"
    printf '"%s"' "$v"
}

pg_print_manual_sql() {
    local sql_pass="${PG_PASS//\'/\'\'}" role_sql db_sql
    role_sql="CREATE ROLE \"$PG_USER\" LOGIN PASSWORD '$sql_pass'"
    db_sql="CREATE DATABASE $PROJECT_DB OWNER \"$PG_USER\" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
    die "postgres: role '$PG_USER' cannot log in to database '$PROJECT_DB' (role or database missing, or wrong password) and fixing that needs root; fix: run
  sudo -u postgres psql -p $PG_PORT -c $(shell_dq "$role_sql")
    (if the role exists: sudo -u postgres psql -p $PG_PORT -c $(shell_dq "ALTER ROLE \"$PG_USER\" LOGIN PASSWORD '$sql_pass'"))
  sudo -u postgres psql -p $PG_PORT -c $(shell_dq "$db_sql")
    (skip this one if database $PROJECT_DB already exists)
then re-run scripts/services.sh (or run it as root: sudo scripts/services.sh up)"
}

# 0 if the URL's role can log in to database blogbench over TCP
pg_app_login_ok() {
    app_psql "$PROJECT_DB" 'select 1' >/dev/null 2>&1
}

pg_ensure_role_db() {
    local where
    where="$(hostport "$PG_HOST" "$PG_PORT")"
    if pg_app_login_ok; then
        local owner
        owner="$(app_psql "$PROJECT_DB" "select pg_catalog.pg_get_userbyid(datdba) from pg_catalog.pg_database where datname = current_database()" 2>/dev/null || true)"
        if [[ -n "$owner" && "$owner" != "$PG_USER" ]]; then
            warn "postgres: warning: database $PROJECT_DB is owned by '$owner', not '$PG_USER' (left as is); fix if the seed cannot create tables: sudo -u postgres psql -p $PG_PORT -c 'ALTER DATABASE $PROJECT_DB OWNER TO \"$PG_USER\"'"
        fi
        say "postgres: role $PG_USER and database $PROJECT_DB ready"
        return 0
    fi

    if ! is_loopback "$PG_HOST"; then
        die "postgres: cannot log in as $PG_USER to database $PROJECT_DB on $where; fix: create the role and database on that server (this script only administers a local cluster)"
    fi
    ((IS_ROOT == 1)) || pg_print_manual_sql
    pg_admin_socket ||
        die "postgres: the server on $where is not a local Debian cluster (no socket /var/run/postgresql/.s.PGSQL.$PG_PORT), so role/database cannot be created here; fix: create role '$PG_USER' and database '$PROJECT_DB' owned by it on that server"

    local role_exists db_exists created_role=0
    role_exists="$(admin_psql -d postgres -v u="$PG_USER" <<<"select count(*) from pg_catalog.pg_roles where rolname = :'u';")" ||
        die "postgres: cannot query roles as the postgres superuser; fix: check that 'runuser -u postgres -- psql -p $PG_PORT' works"
    if [[ "$role_exists" == 0 ]]; then
        admin_psql -d postgres -v u="$PG_USER" -v p="$PG_PASS" <<<'create role :"u" login password :'"'"'p'"'"';' ||
            die "postgres: creating role $PG_USER failed; fix: see the error above"
        created_role=1
        say "postgres: created role $PG_USER"
    else
        # role exists; make sure the URL's password works (the only change ever made to it)
        if ! PGPASSWORD="$PG_PASS" PGCONNECT_TIMEOUT=5 psql -X -q -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -c 'select 1' >/dev/null 2>&1; then
            admin_psql -d postgres -v u="$PG_USER" -v p="$PG_PASS" <<<'alter role :"u" with login password :'"'"'p'"'"';' ||
                die "postgres: setting the password of role $PG_USER failed; fix: see the error above"
            say "postgres: set password of existing role $PG_USER (from DATABASE_URL)"
        fi
    fi

    db_exists="$(admin_psql -d postgres -v d="$PROJECT_DB" <<<"select count(*) from pg_catalog.pg_database where datname = :'d';")"
    if [[ "$db_exists" == 0 ]]; then
        # C collation: byte order, identical on every machine (deterministic ORDER BY on text)
        if ! admin_psql -d postgres -v u="$PG_USER" <<<"create database $PROJECT_DB owner :\"u\" template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C';"; then
            if ((created_role == 1)); then
                die "postgres: creating database $PROJECT_DB failed after this run created role $PG_USER (the role was kept); fix: see the error above, then re-run (or remove the role with: sudo -u postgres dropuser -p $PG_PORT $PG_USER)"
            fi
            die "postgres: creating database $PROJECT_DB failed; fix: see the error above"
        fi
        say "postgres: created database $PROJECT_DB owned by $PG_USER"
    fi

    pg_app_login_ok || {
        local err
        err="$(app_psql "$PROJECT_DB" 'select 1' 2>&1 >/dev/null || true)"
        die "postgres: role $PG_USER still cannot log in to $PROJECT_DB on $where over TCP: $err
postgres: fix: check pg_hba.conf (pg_lsclusters shows the cluster; Debian's default allows scram-sha-256 from 127.0.0.1/32 and ::1/128)"
    }
    say "postgres: role $PG_USER and database $PROJECT_DB ready"
}

# ---------------------------------------------------------------------------------------------
# Redis

redis_cli() { # command... (REDISCLI_AUTH only when set: an empty one still sends AUTH)
    if [[ -n "$REDIS_PASS" ]]; then
        REDISCLI_AUTH="$REDIS_PASS" timeout 5 redis-cli --no-auth-warning -h "$REDIS_HOST" -p "$REDIS_PORT" "$@"
    else
        timeout 5 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" "$@"
    fi
}

redis_ping() { # prints the reply
    redis_cli ping 2>&1 | tr '\n' ' ' | sed 's/ *$//' || true
}

redis_answers() {
    [[ "$(redis_ping)" == PONG ]]
}

redis_wait() {
    local i
    for ((i = 0; i < WAIT_SECS * 2; i++)); do
        redis_answers && return 0
        sleep 0.5
    done
    return 1
}

redis_conf_port() {
    local p
    p="$(awk '$1 == "port" { print $2 }' /etc/redis/redis.conf 2>/dev/null | tail -n 1)"
    printf '%s' "${p:-6379}"
}

redis_not_redis_error() {
    die "redis: port $REDIS_PORT on $REDIS_HOST is taken by something that is not Redis (PING got: $(redis_ping | head -c 200)):
$(listener_info "$REDIS_PORT")
redis: fix: stop that program, or set REDIS_URL to a free port (e.g. REDIS_URL=redis://127.0.0.1:6380/0)"
}

redis_start_local() {
    local how
    if ((IS_ROOT == 1)) && [[ -r /etc/redis/redis.conf && "$REDIS_PORT" == "$(redis_conf_port)" ]]; then
        if command -v service >/dev/null 2>&1 && [[ -x /etc/init.d/redis-server ]] &&
            service redis-server start >/dev/null 2>&1 && redis_wait; then
            state_set "redis:$REDIS_PORT" service
            say "redis: started on $(hostport "$REDIS_HOST" "$REDIS_PORT") (service redis-server)"
            return 0
        fi
        # no usable init: run Debian's config directly, as the redis user
        install -d -o redis -g redis -m 2775 /run/redis
        how="config"
        runuser -u redis -- redis-server /etc/redis/redis.conf --daemonize yes >/dev/null ||
            die "redis: redis-server /etc/redis/redis.conf failed to start; fix: see /var/log/redis/redis-server.log"
    else
        # a separate instance on the URL's port, its files kept apart from the packaged one
        local dir
        if ((IS_ROOT == 1)); then
            dir="/var/lib/redis/blogbench-$REDIS_PORT"
            install -d -o redis -g redis -m 750 "$dir"
        else
            dir="$STATE_DIR/redis-$REDIS_PORT"
            mkdir -p "$dir"
        fi
        how="port"
        local -a cmd=(redis-server --port "$REDIS_PORT" --bind 127.0.0.1 -::1 --daemonize yes
            --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log")
        if ((IS_ROOT == 1)); then
            runuser -u redis -- "${cmd[@]}" >/dev/null
        else
            "${cmd[@]}" >/dev/null
        fi || die "redis: redis-server --port $REDIS_PORT failed to start; fix: see $dir/redis.log"
    fi
    redis_wait ||
        die "redis: started redis-server but it does not answer PING on $(hostport "$REDIS_HOST" "$REDIS_PORT") within ${WAIT_SECS}s; fix: see /var/log/redis/ or $STATE_DIR"
    state_set "redis:$REDIS_PORT" "$how"
    say "redis: started on $(hostport "$REDIS_HOST" "$REDIS_PORT")"
}

redis_ensure_running() {
    if command -v redis-cli >/dev/null 2>&1; then
        local reply
        reply="$(redis_ping)"
        if [[ "$reply" == PONG ]]; then
            say "redis: running on $(hostport "$REDIS_HOST" "$REDIS_PORT")"
            return 0
        fi
        case "$reply" in
            *NOAUTH* | *WRONGPASS* | *"invalid password"* | *"without any password"*)
                die "redis: the server on $(hostport "$REDIS_HOST" "$REDIS_PORT") is Redis but rejects the credentials in REDIS_URL ($reply); fix: put the right password in REDIS_URL (redis://:PASSWORD@host:port/0) or remove it" ;;
            *LOADING*)
                say "redis: loading its dataset, waiting"
                redis_wait || die "redis: still loading after ${WAIT_SECS}s; fix: wait and re-run"
                say "redis: running on $(hostport "$REDIS_HOST" "$REDIS_PORT")"
                return 0 ;;
            *) ;; # not answering, or not Redis: decided below
        esac
    fi
    if ! is_loopback "$REDIS_HOST"; then
        command -v redis-cli >/dev/null 2>&1 ||
            die "redis: cannot check $(hostport "$REDIS_HOST" "$REDIS_PORT"): redis-cli is missing; fix: apt-get install -y redis-tools"
        die "redis: no Redis answers on $(hostport "$REDIS_HOST" "$REDIS_PORT") (PING got: $(redis_ping | head -c 200)); this script only starts services on loopback; fix: start Redis on $REDIS_HOST, or set REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
    fi
    if port_open "$REDIS_HOST" "$REDIS_PORT"; then
        command -v redis-cli >/dev/null 2>&1 || apt_install redis redis-server
        redis_answers && { say "redis: running on $(hostport "$REDIS_HOST" "$REDIS_PORT")"; return 0; }
        redis_not_redis_error
    fi
    if ! command -v redis-server >/dev/null 2>&1; then
        apt_install redis redis-server
        # the package starts the service on a system with a working init
        if redis_answers; then
            say "redis: installed; running on $(hostport "$REDIS_HOST" "$REDIS_PORT")"
            return 0
        fi
    fi
    if [[ -n "$REDIS_PASS" ]]; then
        warn "redis: warning: REDIS_URL has a password but a Redis started here has none; remove it from REDIS_URL if PING fails"
    fi
    redis_start_local
}

# ---------------------------------------------------------------------------------------------
# subcommands

# pg_stat_statements, for `blogbench profile` (queries per page beside round trips): the
# library must be preloaded, which takes a restart. Done only for a local cluster, as root,
# while nobody is connected to it; otherwise the fix is printed and nothing changes.
pg_ensure_stat_statements() {
    app_psql "$PROJECT_DB" 'select 1 from pg_stat_statements limit 1' >/dev/null 2>&1 && return 0
    local fix="add shared_preload_libraries = 'pg_stat_statements' to postgresql.conf, restart PostgreSQL, then run  CREATE EXTENSION pg_stat_statements  in database $PROJECT_DB"
    if ((IS_ROOT == 0)) || ! pg_admin_socket; then
        warn "postgres: note: pg_stat_statements is not set up, so \`blogbench profile\` cannot count queries per page; fix: $fix"
        return 0
    fi
    local preload cluster others
    preload="$(admin_psql -c 'show shared_preload_libraries')"
    if [[ ",${preload// /}," != *,pg_stat_statements,* ]]; then
        cluster="$(pg_lsclusters --no-header 2>/dev/null | awk -v p="$PG_PORT" '$3 == p { print $1 "/" $2; exit }' || true)"
        others="$(admin_psql -c "select count(*) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()")"
        if [[ -z "$cluster" || "$others" != 0 ]]; then
            warn "postgres: note: pg_stat_statements is not preloaded and ${others:-some} client(s) are connected, so it was left so (\`blogbench profile\` then reports no queries per page); fix: $fix"
            return 0
        fi
        say "postgres: preloading pg_stat_statements in idle cluster $cluster (restart)"
        pg_conftool "${cluster%/*}" "${cluster#*/}" set shared_preload_libraries "${preload:+$preload,}pg_stat_statements" ||
            die "postgres: pg_conftool could not set shared_preload_libraries; fix: $fix"
        pg_ctlcluster "${cluster%/*}" "${cluster#*/}" restart ||
            die "postgres: restarting cluster $cluster failed; fix: see /var/log/postgresql/postgresql-${cluster/\//-}.log"
        pg_wait || die "postgres: cluster $cluster did not come back within ${WAIT_SECS}s; fix: see /var/log/postgresql/"
    fi
    admin_psql -d "$PROJECT_DB" -c 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' >/dev/null ||
        die "postgres: could not create extension pg_stat_statements in $PROJECT_DB; fix: apt-get install postgresql-contrib"
}

cmd_up() {
    parse_database_url
    parse_redis_url
    pg_ensure_running
    pg_ensure_role_db
    pg_ensure_stat_statements
    redis_ensure_running
    say "services: ready: DATABASE_URL=postgres://$PG_USER:***@$(hostport "$PG_HOST" "$PG_PORT")/$PROJECT_DB REDIS_URL=redis://$(hostport "$REDIS_HOST" "$REDIS_PORT")"
}

cmd_status() {
    parse_database_url
    parse_redis_url
    local ok=1 where
    where="$(hostport "$PG_HOST" "$PG_PORT")"
    if command -v pg_isready >/dev/null 2>&1 && pg_answers; then
        say "postgres: answers on $where"
        if pg_app_login_ok; then
            say "postgres: role $PG_USER can log in to database $PROJECT_DB"
        else
            ok=0
            if ((IS_ROOT == 1)) && pg_admin_socket; then
                local r d
                r="$(admin_psql -d postgres -v u="$PG_USER" <<<"select count(*) from pg_catalog.pg_roles where rolname = :'u';" 2>/dev/null || echo '?')"
                d="$(admin_psql -d postgres -v d="$PROJECT_DB" <<<"select count(*) from pg_catalog.pg_database where datname = :'d';" 2>/dev/null || echo '?')"
                say "postgres: NOT ready: role $PG_USER $([[ "$r" == 1 ]] && echo exists || echo missing), database $PROJECT_DB $([[ "$d" == 1 ]] && echo exists || echo missing), password login failed; fix: scripts/services.sh up"
            else
                say "postgres: NOT ready: role $PG_USER cannot log in to database $PROJECT_DB (missing or wrong password); fix: scripts/services.sh up"
            fi
        fi
    else
        ok=0
        say "postgres: NOT answering on $where; fix: scripts/services.sh up"
    fi
    where="$(hostport "$REDIS_HOST" "$REDIS_PORT")"
    if command -v redis-cli >/dev/null 2>&1 && redis_answers; then
        say "redis: answers on $where"
    else
        ok=0
        say "redis: NOT answering on $where; fix: scripts/services.sh up"
    fi
    local key
    while read -r key; do
        if [[ -n "$key" ]]; then say "postgres: cluster ${key#postgres:} was started by this script"; fi
    done < <(state_keys postgres:)
    while read -r key; do
        if [[ -n "$key" ]]; then say "redis: instance on port ${key#redis:} was started by this script ($(state_get "$key"))"; fi
    done < <(state_keys redis:)
    if ((ok == 1)); then
        say "services: ready"
    else
        say "services: NOT ready"
        return 1
    fi
}

cmd_stop() {
    local key rec ver name how port pg_keys redis_keys
    pg_keys="$(state_keys postgres:)"
    redis_keys="$(state_keys redis:)"
    [[ -n "$pg_keys" ]] || say "postgres: not started by this script, leaving it alone"
    while read -r key; do
        [[ -n "$key" ]] || continue
        rec="${key#postgres:}"
        ver="${rec%%/*}"
        name="${rec#*/}"
        ((IS_ROOT == 1)) || die "postgres: stopping cluster $ver/$name needs root; fix: run  sudo pg_ctlcluster $ver $name stop"
        if pg_lsclusters --no-header "$ver" "$name" 2>/dev/null | awk '{print $4}' | grep -q '^online'; then
            pg_ctlcluster "$ver" "$name" stop ||
                die "postgres: pg_ctlcluster $ver $name stop failed; fix: see /var/log/postgresql/postgresql-$ver-$name.log"
            say "postgres: stopped cluster $ver/$name (started by this script)"
        else
            say "postgres: cluster $ver/$name (started by this script) is already stopped"
        fi
        state_set "$key"
    done <<<"$pg_keys"

    [[ -n "$redis_keys" ]] || say "redis: not started by this script, leaving it alone"
    while read -r key; do
        [[ -n "$key" ]] || continue
        port="${key#redis:}"
        how="$(state_get "$key")"
        if [[ "$how" == service ]]; then
            service redis-server stop >/dev/null 2>&1 ||
                die "redis: service redis-server stop failed; fix: run  redis-cli -p $port shutdown"
        elif [[ "$(timeout 5 redis-cli -p "$port" ping 2>/dev/null || true)" == PONG ]]; then
            # SHUTDOWN saves per the instance's save policy; it never flushes data
            timeout 30 redis-cli -p "$port" shutdown >/dev/null 2>&1 || true
        fi
        if [[ "$(timeout 5 redis-cli -p "$port" ping 2>/dev/null || true)" == PONG ]]; then
            die "redis: instance on port $port still answers after stop; fix: run  redis-cli -p $port shutdown"
        fi
        say "redis: stopped the instance on port $port (started by this script)"
        state_set "$key"
    done <<<"$redis_keys"
}

cmd_crash() {
    case "${1:-}" in
        postgres)
            parse_database_url
            is_loopback "$PG_HOST" || die "postgres: refusing to stop a server that is not on loopback ($PG_HOST)"
            ((IS_ROOT == 1)) || die "postgres: stopping a cluster needs root; fix: run as root, or  sudo pg_ctlcluster <version> <name> stop -m fast"
            local cluster
            cluster="$(pg_lsclusters --no-header 2>/dev/null | awk -v p="$PG_PORT" '$3 == p && $4 ~ /^online/ { print $1 "/" $2; exit }' || true)"
            [[ -n "$cluster" ]] || die "postgres: no online cluster on port $PG_PORT; fix: scripts/services.sh up"
            pg_ctlcluster "${cluster%/*}" "${cluster#*/}" stop -m fast ||
                die "postgres: pg_ctlcluster ${cluster%/*} ${cluster#*/} stop -m fast failed; fix: see /var/log/postgresql/"
            say "postgres: cluster $cluster stopped (fast shutdown); scripts/services.sh up starts it"
            ;;
        redis)
            parse_redis_url
            is_loopback "$REDIS_HOST" || die "redis: refusing to stop a server that is not on loopback ($REDIS_HOST)"
            redis_answers || die "redis: nothing answers on $(hostport "$REDIS_HOST" "$REDIS_PORT"); fix: scripts/services.sh up"
            local snapshot
            snapshot="$(redis_cli config get dir | sed -n 2p)/$(redis_cli config get dbfilename | sed -n 2p)"
            # SHUTDOWN closes the connection instead of replying
            redis_cli shutdown nosave >/dev/null 2>&1 || true
            ! redis_answers || die "redis: still answers after SHUTDOWN NOSAVE"
            # A page cache comes back empty: the last snapshot would bring back pages cached
            # before comments that deleted them (docs/spec.md §3.9). Kept, moved aside.
            if [[ -f "$snapshot" ]]; then
                mv -f "$snapshot" "$snapshot.before-crash" ||
                    die "redis: cannot move its snapshot $snapshot aside; fix: run as root"
            fi
            say "redis: stopped on $(hostport "$REDIS_HOST" "$REDIS_PORT") (SHUTDOWN NOSAVE, snapshot moved aside); scripts/services.sh up starts it empty"
            ;;
        *) die "services: crash what? fix: scripts/services.sh crash postgres|redis" ;;
    esac
}

case "${1:-up}" in
    up) cmd_up ;;
    crash) cmd_crash "${2:-}" ;;
    status) cmd_status ;;
    stop) cmd_stop ;;
    -h | --help | help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' ;;
    *) die "services: unknown subcommand '$1'; fix: use one of: up, status, stop, crash" ;;
esac
