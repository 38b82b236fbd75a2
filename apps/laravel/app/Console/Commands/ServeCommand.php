<?php

namespace App\Console\Commands;

use App\Blog\Settings;
use Composer\ClassMapGenerator\ClassMapGenerator;
use Illuminate\Console\Command;
use Illuminate\Filesystem\Filesystem;
use InvalidArgumentException;
use RuntimeException;
use Symfony\Component\Process\Process;

/**
 * Serves the blog as a Laravel application is deployed: PHP-FPM running the
 * front controller (public/index.php), behind nginx speaking FastCGI to it
 * over a unix socket. Both are configured for this run from the environment
 * of docs/spec.md §1, in a folder of their own that is removed at the end, and
 * run in the foreground under this command, which stops them on SIGTERM or
 * Ctrl-C and waits for them.
 */
class ServeCommand extends Command
{
    protected $signature = 'blog:serve';

    protected $description = 'Serve the blog: PHP-FPM behind nginx, as the environment says (docs/spec.md §1)';

    /**
     * PHP-FPM workers per WORKERS. A worker serves one request at a time and
     * waits for PostgreSQL in between, so a CPU needs a few of them to stay
     * busy; each keeps one persistent connection, so there are never more
     * than POOL_MAX of them.
     */
    public const FPM_WORKERS_PER_CPU = 4;

    /** How long PHP-FPM and nginx get to stop before they are killed. */
    private const STOP_TIMEOUT = 4.0; // seconds

    /**
     * Started as root, PHP-FPM and nginx keep their workers as root, as every
     * other app's processes run as the user who started them: workers that
     * dropped to nobody could not read an app under a folder only its owner
     * may enter (a clone in /root).
     */
    private const AS_ROOT = <<<'CONF'
        user = root
        group = root
        CONF;

    private bool $stopping = false;

    public function handle(Filesystem $files): int
    {
        try {
            $settings = Settings::fromEnvironment(getenv());
        } catch (InvalidArgumentException $error) {
            $this->getOutput()->getErrorStyle()->writeln("laravel: {$error->getMessage()}");

            return 2;
        }
        $run = rtrim(sys_get_temp_dir(), '/') . '/blogbench-laravel-' . getmypid();
        $files->deleteDirectory($run);
        $files->makeDirectory($run, 0700);
        try {
            return $this->serve($settings, $run);
        } finally {
            $files->deleteDirectory($run);
        }
    }

    /** Runs PHP-FPM, then nginx once PHP-FPM answers, until a signal or either stops. */
    private function serve(Settings $settings, string $run): int
    {
        pcntl_async_signals(true);
        foreach ([SIGTERM, SIGINT] as $signal) {
            pcntl_signal($signal, function () {
                $this->stopping = true;
            });
        }

        // Laravel's deployment step, into this run's folder: the service
        // manifest, the configuration (with the run's DATABASE_URL, REDIS_URL
        // and PING_ON_ACQUIRE: once cached, env() is not read again), the routes
        // and the compiled templates, so that no request loads a configuration
        // file or compiles a template. A folder per run lets runs of different
        // settings share the app folder, and each run serves the code as it is.
        $environment = [
            'BLOG_CLASS_MAP' => $this->writeClassMap($run),
            'APP_SERVICES_CACHE' => "{$run}/services.php",
            'APP_PACKAGES_CACHE' => "{$run}/packages.php",
            'APP_CONFIG_CACHE' => "{$run}/config.php",
            'APP_ROUTES_CACHE' => "{$run}/routes.php",
            'VIEW_COMPILED_PATH' => "{$run}/views",
        ] + getenv();
        mkdir("{$run}/views");
        foreach (['optimize', 'view:cache'] as $command) {
            (new Process([PHP_BINARY, 'artisan', $command], base_path(), $environment))->mustRun();
        }

        file_put_contents("{$run}/php-fpm.conf", $this->fpmConfiguration($settings, $run));
        file_put_contents("{$run}/nginx.conf", $this->nginxConfiguration($settings, $run));

        $fpm = $this->start($this->fpmCommand($run), $environment);
        if (!$this->waitForSocket("{$run}/php-fpm.sock", $fpm)) {
            $this->stop([$fpm]);

            return 1;
        }
        $nginx = $this->start(['nginx', '-p', $run, '-c', "{$run}/nginx.conf", '-e', 'stderr'], $environment);

        $status = 0;
        while (!$this->stopping) {
            foreach (['php-fpm' => $fpm, 'nginx' => $nginx] as $name => $process) {
                if (!proc_get_status($process)['running']) {
                    $this->getOutput()->getErrorStyle()->writeln("laravel: {$name} stopped");
                    $status = 1;
                    break 2;
                }
            }
            usleep(100000);
        }
        // nginx first, so that nothing reaches PHP-FPM while it stops.
        $this->stop([$nginx, $fpm]);

        return $status;
    }

    /**
     * Writes the class map of bootstrap/autoload.php: every class of Debian's
     * PHP libraries (/usr/share/php) and of the app, by file. Returns its path.
     */
    private function writeClassMap(string $run): string
    {
        require_once 'Composer/ClassMapGenerator/autoload.php';
        $generator = new ClassMapGenerator();
        $generator->scanPaths('/usr/share/php');
        $generator->scanPaths(app_path());
        $path = "{$run}/classmap.php";
        file_put_contents($path, '<?php return ' . var_export($generator->getClassMap()->getMap(), true) . ";\n");

        return $path;
    }

    /**
     * PHP-FPM in the foreground, with the settings that must be given at its
     * start: OPcache on, and never checking a file's time (the files do not
     * change while it runs).
     *
     * @return list<string>
     */
    private function fpmCommand(string $run): array
    {
        $command = ['php-fpm8.2', '--nodaemonize', '--fpm-config', "{$run}/php-fpm.conf"];
        if (posix_geteuid() === 0) {
            $command[] = '--allow-to-run-as-root';
        }
        $ini = [
            'opcache.enable' => '1',
            'opcache.validate_timestamps' => '0',
            // A pooled Redis connection is checked for a close locally before
            // reuse; the default also sends it an ECHO, a round trip per request.
            'redis.pconnect.echo_check_liveness' => '0',
            'expose_php' => '0',
        ];
        foreach ($ini as $name => $value) {
            $command[] = '-d';
            $command[] = "{$name}={$value}";
        }

        return $command;
    }

    /**
     * The PHP-FPM pool: static, one worker per pooled connection.
     */
    private function fpmConfiguration(Settings $settings, string $run): string
    {
        $workers = min($settings->poolMax, self::FPM_WORKERS_PER_CPU * $settings->workers);
        $backlog = self::listenBacklog();
        $user = posix_geteuid() === 0 ? self::AS_ROOT : '';

        return <<<CONF
            [global]
            pid = {$run}/php-fpm.pid
            error_log = /proc/self/fd/2
            log_level = warning
            daemonize = no

            [blog]
            {$user}
            listen = {$run}/php-fpm.sock
            listen.backlog = {$backlog}
            pm = static
            pm.max_children = {$workers}
            pm.max_requests = 0
            ; The workers see the run's environment (APP_CONFIG_CACHE among it),
            ; and their standard error (Laravel's log) is passed on as it is.
            clear_env = no
            catch_workers_output = yes
            decorate_workers_output = no

            CONF;
    }

    /**
     * nginx in front: every path goes to the front controller (there are no
     * static files), no access log, errors to standard error, 10 s for a
     * request header (docs/spec.md §1).
     */
    private function nginxConfiguration(Settings $settings, string $run): string
    {
        $public = public_path();
        $backlog = self::listenBacklog();
        $user = posix_geteuid() === 0 ? 'user root root;' : '';
        // As many connections, clients' and PHP-FPM's, as the open-file limit allows.
        $connections = posix_getrlimit()['hard openfiles'];
        $connections = is_numeric($connections) ? min((int) $connections, 65536) : 65536;

        return <<<CONF
            daemon off;
            {$user}
            worker_processes {$settings->workers};
            worker_rlimit_nofile {$connections};
            pid {$run}/nginx.pid;
            error_log stderr warn;

            events {
                worker_connections {$connections};
            }

            http {
                access_log off;
                server_tokens off;
                client_header_timeout 10s;
                keepalive_requests 1000000;
                absolute_redirect off;
                client_body_buffer_size 32k;
                client_body_temp_path {$run}/client_body;
                fastcgi_temp_path {$run}/fastcgi;
                proxy_temp_path {$run}/proxy;
                uwsgi_temp_path {$run}/uwsgi;
                scgi_temp_path {$run}/scgi;
                fastcgi_buffer_size 32k;
                fastcgi_buffers 8 32k;

                # The request target as the client sent it. nginx refuses a path
                # with an encoded NUL (%00) with its own 400 page before choosing
                # a location, and then has no \$request_uri; the contract wants
                # the 404 page for such a path, so that 400 goes to Laravel too,
                # with the target read from the request line.
                map \$request \$request_line_target {
                    "~^[^ ]+ (?<target>[^ ]+)" \$target;
                }
                map \$request_uri \$front_controller_uri {
                    "" \$request_line_target;
                    default \$request_uri;
                }

                server {
                    listen {$settings->bind} backlog={$backlog};
                    root {$public};
                    error_page 400 = /index.php;

                    # Every path goes to the front controller: there are no
                    # static files.
                    location / {
                        fastcgi_param QUERY_STRING \$query_string;
                        fastcgi_param REQUEST_METHOD \$request_method;
                        fastcgi_param CONTENT_TYPE \$content_type;
                        fastcgi_param CONTENT_LENGTH \$content_length;
                        fastcgi_param SCRIPT_FILENAME \$document_root/index.php;
                        fastcgi_param SCRIPT_NAME /index.php;
                        fastcgi_param REQUEST_URI \$front_controller_uri;
                        fastcgi_param DOCUMENT_ROOT \$document_root;
                        fastcgi_param SERVER_PROTOCOL \$server_protocol;
                        fastcgi_param REQUEST_SCHEME \$scheme;
                        fastcgi_param GATEWAY_INTERFACE CGI/1.1;
                        fastcgi_param SERVER_SOFTWARE nginx;
                        fastcgi_param REMOTE_ADDR \$remote_addr;
                        fastcgi_param REMOTE_PORT \$remote_port;
                        fastcgi_param SERVER_ADDR \$server_addr;
                        fastcgi_param SERVER_PORT \$server_port;
                        fastcgi_param SERVER_NAME \$server_name;
                        fastcgi_pass unix:{$run}/php-fpm.sock;
                    }
                }
            }

            CONF;
    }

    /** The kernel's most pending connections, which Go's listener asks for too. */
    private static function listenBacklog(): int
    {
        $limit = @file_get_contents('/proc/sys/net/core/somaxconn');

        return $limit === false ? 4096 : max(511, (int) $limit);
    }

    /**
     * Starts $command with this process's standard output and error.
     *
     * @param  list<string>  $command
     * @param  array<string, string>  $environment
     * @return resource
     */
    private function start(array $command, array $environment)
    {
        $streams = [0 => ['file', '/dev/null', 'r'], 1 => STDOUT, 2 => STDERR];
        $process = proc_open($command, $streams, $pipes, base_path(), $environment);
        if ($process === false) {
            throw new RuntimeException('cannot start ' . $command[0]);
        }

        return $process;
    }

    /**
     * Whether PHP-FPM's socket accepts within 10 s, so that nginx, and with it
     * the listening port, opens only once a request can be served.
     *
     * @param  resource  $fpm
     */
    private function waitForSocket(string $socket, $fpm): bool
    {
        $deadline = microtime(true) + 10;
        while (!$this->stopping && microtime(true) < $deadline && proc_get_status($fpm)['running']) {
            $connection = @stream_socket_client("unix://{$socket}", $errno, $error, 0.1);
            if ($connection !== false) {
                fclose($connection);

                return true;
            }
            usleep(20000);
        }
        if (!$this->stopping) {
            $this->getOutput()->getErrorStyle()->writeln('laravel: php-fpm did not start');
        }

        return false;
    }

    /**
     * Stops each process in turn with SIGTERM (fast shutdown for both) and waits
     * for it, killing what is still there STOP_TIMEOUT after the first signal.
     *
     * @param  list<resource>  $processes
     */
    private function stop(array $processes): void
    {
        $deadline = microtime(true) + self::STOP_TIMEOUT;
        foreach ($processes as $process) {
            $status = proc_get_status($process);
            if ($status['running']) {
                posix_kill($status['pid'], SIGTERM);
            }
            while (proc_get_status($process)['running'] && microtime(true) < $deadline) {
                usleep(10000);
            }
            if (proc_get_status($process)['running']) {
                posix_kill($status['pid'], SIGKILL);
            }
            proc_close($process);
        }
    }
}
